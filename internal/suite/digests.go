package suite

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"io"
	"io/fs"
	"iter"
	"slices"
	"strings"

	"github.com/conform-kit/conform/internal/input"
	"github.com/conform-kit/conform/internal/kiterr"
)

// FileDigests is MANIFEST.sha256 as [Load] read it: the SHA-256 it lists
// for each file, by suite-relative path, in path order. The paths are held
// in one string and each sum as its 32 bytes: about 36 bytes a file besides
// its path, where a map from path to hex string took about 200, which was
// the largest part of a large run's memory (bench/README.md: a suite of
// 10,000 vectors lists 20,000 files). Read-only once made; safe for
// concurrent use. The zero value lists nothing.
type FileDigests struct {
	names string   // every path, in order, one after another
	ends  []uint32 // ends[i] is where path i ends in names
	sums  []byte   // the 32-byte sums, in the same order
	// odd holds, by index, the listed text of a sum that is not 64
	// lowercase hex digits: it names no SHA-256 this package computes, so
	// it matches no file, as when sums were compared as hex text.
	odd map[int]string
}

// Len returns the number of files listed.
func (d *FileDigests) Len() int { return len(d.ends) }

// name returns path i.
func (d *FileDigests) name(i int) string {
	start := uint32(0)
	if i > 0 {
		start = d.ends[i-1]
	}
	return d.names[start:d.ends[i]]
}

// Hex returns the sum listed for name as lowercase hex (or as written, for
// a sum that is not hex), and whether name is listed.
func (d *FileDigests) Hex(name string) (string, bool) {
	i, ok := d.index(name)
	if !ok {
		return "", false
	}
	return d.hex(i), true
}

func (d *FileDigests) hex(i int) string {
	if s, ok := d.odd[i]; ok {
		return s
	}
	return hex.EncodeToString(d.sums[32*i : 32*i+32])
}

// All yields every listed path with its sum as [FileDigests.Hex] gives
// it, in path order.
func (d *FileDigests) All() iter.Seq2[string, string] {
	return func(yield func(string, string) bool) {
		for i := range d.ends {
			if !yield(d.name(i), d.hex(i)) {
				return
			}
		}
	}
}

// index finds name by binary search over the sorted paths.
func (d *FileDigests) index(name string) (int, bool) {
	lo, hi := 0, len(d.ends)
	for lo < hi {
		m := int(uint(lo+hi) >> 1)
		switch c := strings.Compare(d.name(m), name); {
		case c == 0:
			return m, true
		case c < 0:
			lo = m + 1
		default:
			hi = m
		}
	}
	return lo, false
}

// matches reports whether entry i lists sum.
func (d *FileDigests) matches(i int, sum *[32]byte) bool {
	if _, ok := d.odd[i]; ok {
		return false
	}
	return bytes.Equal(d.sums[32*i:32*i+32], sum[:])
}

// parseDigests reads MANIFEST.sha256: one "<sha256>  <path>" line per
// file (sha256sum's format). When a path is listed twice, the last line
// counts. Errors: SUITE_INVALID naming the first malformed line.
//
// The lines are sorted as offsets into data, so that nothing but data and
// the table is ever held (at 20,000 files the manifest is 2.2 MB).
func parseDigests(data []byte) (*FileDigests, error) {
	type entry struct{ name, end, line uint32 } // the path is data[name:end]; the sum ends 2 bytes before it
	var es []entry
	body := bytes.TrimSuffix(data, []byte("\n"))
	for at, line := 0, uint32(0); ; line++ {
		n := bytes.IndexByte(body[at:], '\n')
		if n < 0 {
			n = len(body) - at
		}
		sep := bytes.Index(body[at:at+n], []byte("  "))
		if sep != 64 || n == 66 {
			return nil, kiterr.New(kiterr.SuiteInvalid, "%s:%d: want \"<sha256>  <path>\"", DigestFile, line+1)
		}
		es = append(es, entry{name: uint32(at + 66), end: uint32(at + n), line: line})
		if at += n + 1; at > len(body) {
			break
		}
	}
	name := func(e entry) []byte { return data[e.name:e.end] }
	// Sorted by path, the later line first among equal paths, so that
	// the first of each run of equal paths is the one that counts.
	slices.SortFunc(es, func(a, b entry) int {
		if c := bytes.Compare(name(a), name(b)); c != 0 {
			return c
		}
		return int(b.line) - int(a.line)
	})
	es = slices.CompactFunc(es, func(a, b entry) bool { return bytes.Equal(name(a), name(b)) })
	n := 0
	for _, e := range es {
		n += int(e.end - e.name)
	}
	var names strings.Builder
	names.Grow(n)
	d := &FileDigests{ends: make([]uint32, len(es)), sums: make([]byte, 32*len(es))}
	for i, e := range es {
		names.Write(name(e))
		d.ends[i] = uint32(names.Len())
		sum := data[e.name-66 : e.name-2]
		if lowerHex(sum) {
			_, _ = hex.Decode(d.sums[32*i:32*i+32], sum)
			continue
		}
		if d.odd == nil {
			d.odd = map[int]string{}
		}
		d.odd[i] = string(sum)
	}
	d.names = names.String()
	return d, nil
}

// lowerHex reports whether s is written in lowercase hex digits only.
func lowerHex(s []byte) bool {
	for i := 0; i < len(s); i++ {
		if c := s[i]; (c < '0' || c > '9') && (c < 'a' || c > 'f') {
			return false
		}
	}
	return true
}

// hashFile returns the SHA-256 of the file name, read through buf (never
// held whole). Errors: those of opening and reading it.
func hashFile(fsys fs.FS, name string, buf []byte) ([32]byte, error) {
	var sum [32]byte
	f, err := fsys.Open(name)
	if err != nil {
		return sum, err
	}
	defer f.Close()
	// A file over its kind's cap is never read whole, so it is not hashed
	// either: refused by its size (a sparse 1 GB file took seconds).
	if st, err := f.Stat(); err == nil && st.Mode().IsRegular() {
		if max, code := inputCap(name); st.Size() > max {
			return sum, kiterr.New(code, "%s is %d bytes, over the %d bytes it may have: refused, not read (docs/running.md \"Input bounds\")", name, st.Size(), max)
		}
	}
	h := sha256.New()
	// Not io.Copy: an *os.File's WriteTo copies through 32 KiB of its
	// own per file.
	if _, err := io.CopyBuffer(h, struct{ io.Reader }{f}, buf); err != nil {
		return sum, err
	}
	h.Sum(sum[:0])
	return sum, nil
}

// inputCap returns the cap of the suite file name, in bytes, and the code
// of a file over it: VECTOR_TOO_LARGE for a vector file or a file under
// files/, INPUT_TOO_LARGE for suite.json, a schema or a golden file.
func inputCap(name string) (int64, kiterr.Code) {
	switch {
	case name == ManifestFile:
		return input.MaxSuiteJSON, kiterr.InputTooLarge
	case strings.HasPrefix(name, "vectors/"):
		return MaxVectorFile, kiterr.VectorTooLarge
	case strings.HasPrefix(name, "golden/"):
		return MaxGoldenFile, kiterr.InputTooLarge
	case strings.HasPrefix(name, FilesDir+"/"):
		return MaxSuiteFile, kiterr.VectorTooLarge
	}
	return input.MaxSchema, kiterr.InputTooLarge
}
