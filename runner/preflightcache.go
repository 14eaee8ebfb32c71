package runner

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"

	"github.com/conform-kit/conform/internal/canon"
	"github.com/conform-kit/conform/internal/suite"
)

// The preflight cache (Config.PreflightCache): the frames an IUT wrote in
// its version's preflight vector and discover vectors, kept so that a
// partial run (--filter, --skip, --level, --rerun-failed: Report.Partial,
// which certifies nothing) of the same IUT need not start it for them
// again: a one-vector run starts the IUT once, for its vector.
//
// When it is used: only by a partial run that is not a shard (a shard is
// part of a certification), with a cache directory set, not in spawned
// mode, and only for an entry whose key matches. A full run always runs
// the preflight (and writes the entry for later partial runs). A reused
// entry is announced (Config.Note). Frames decide which vectors apply
// (requires) and which classes are derived, never a vector's status
// otherwise; a partial run's verdict certifies nothing either way.
//
// What an entry is keyed by (preflightKey): the cache format, the kit
// (BuildKit), the suite's digest, version and role, the IUT command, its
// environment, Config.IUTDigest (the caller's: the profile file's digest,
// with its artifact's) and, for the command's executable (found on PATH)
// and every argument that names a regular file, the file's SHA-256 (its
// size and modification time beyond preflightHashMax). Anything that
// differs is another key: the old entry is not found, and is pruned in
// time. An entry is written only for a preflight the IUT passed.
//
// One file per key: <PreflightCache>/preflight-<key>.txt, holding the
// header line, the key, the SHA-256 of the rest, then each frame as one
// line of canonical JSON. It is written whole to a temporary file and
// renamed; a file larger than preflightFileMax, of another header or key,
// whose digest does not match or whose lines are not JSON objects is
// ignored (and replaced by the next full preflight). The directory keeps
// the preflightFiles most recently written.
const preflightHeader = "conform preflight 1"

const (
	// preflightFileMax bounds an entry file, in bytes.
	preflightFileMax = 4 << 20
	// preflightFiles is how many entries the directory keeps.
	preflightFiles = 32
	// preflightHashMax is the largest file whose content is hashed into a
	// key, in bytes; a larger one counts by size and modification time.
	preflightHashMax = 64 << 20
)

// preflightKey returns the cache key of this run's preflight, or "" when
// the run cannot use the cache (no directory, spawned mode, no preflight
// vector, no suite digest).
func (p *plan) preflightKey() string {
	cfg := p.cfg
	if cfg.PreflightCache == "" || cfg.Spawn != nil || p.ver.Preflight == "" || cfg.Suite.Digest == "" {
		return ""
	}
	h := sha256.New()
	k := BuildKit()
	fmt.Fprintf(h, "%s\x00%+v\x00%s\x00%d\x00%s\x00%s\x00", preflightHeader, k, cfg.Suite.Digest, cfg.Version, cfg.Role, cfg.IUTDigest)
	fmt.Fprintf(h, "inherit=%t\x00", cfg.InheritEnv)
	for _, a := range cfg.Command {
		fmt.Fprintf(h, "arg %d %s\x00", len(a), a)
	}
	env := make([]string, 0, len(cfg.Env))
	for k, v := range cfg.Env {
		env = append(env, k+"="+v)
	}
	slices.Sort(env)
	for _, e := range env {
		fmt.Fprintf(h, "env %d %s\x00", len(e), e)
	}
	// The vars the vectors' frames take (a document's text may change
	// what the preflight writes).
	for _, k := range sortedKeys(p.vars) {
		b, _ := canon.Canonical(p.vars[k])
		fmt.Fprintf(h, "var %d %s %d %s\x00", len(k), k, len(b), b)
	}
	files := cfg.Command[1:]
	if exe, err := exec.LookPath(cfg.Command[0]); err == nil {
		files = append([]string{exe}, files...)
	}
	for _, f := range files {
		fmt.Fprintf(h, "file %s %s\x00", f, fileDigest(f))
	}
	return hex.EncodeToString(h.Sum(nil))[:32]
}

// fileDigest returns the SHA-256 of name when it is a regular file of at
// most preflightHashMax bytes, its size and modification time when larger,
// "-" when it is not a regular file.
func fileDigest(name string) string {
	st, err := os.Stat(name)
	if err != nil || !st.Mode().IsRegular() {
		return "-"
	}
	if st.Size() > preflightHashMax {
		return fmt.Sprintf("size=%d mtime=%d", st.Size(), st.ModTime().UnixNano())
	}
	f, err := os.Open(name)
	if err != nil {
		return "-"
	}
	defer f.Close()
	h := sha256.New()
	if _, err := io.Copy(h, io.LimitReader(f, preflightHashMax+1)); err != nil {
		return "-"
	}
	return hex.EncodeToString(h.Sum(nil))
}

// preflightFile is where the entry of key is kept.
func (p *plan) preflightFile(key string) string {
	return filepath.Join(p.cfg.PreflightCache, "preflight-"+key+".txt")
}

// loadPreflight returns the frames of the entry of key; false when there
// is none or it is not whole and well-formed.
func (p *plan) loadPreflight(key string) ([]any, bool) {
	f, err := os.Open(p.preflightFile(key))
	if err != nil {
		return nil, false
	}
	defer f.Close()
	if st, err := f.Stat(); err != nil || !st.Mode().IsRegular() || st.Size() > preflightFileMax {
		return nil, false
	}
	data, err := io.ReadAll(io.LimitReader(f, preflightFileMax+1))
	if err != nil || len(data) > preflightFileMax {
		return nil, false
	}
	head, rest, ok := cutLines(data, 3)
	if !ok || head[0] != preflightHeader || head[1] != key {
		return nil, false
	}
	if sum := sha256.Sum256(rest); hex.EncodeToString(sum[:]) != head[2] {
		return nil, false
	}
	var frames []any
	sc := bufio.NewScanner(bytes.NewReader(rest))
	sc.Buffer(nil, preflightFileMax)
	for sc.Scan() {
		v, err := canon.Parse(sc.Bytes())
		if err != nil {
			return nil, false
		}
		if _, ok := v.(map[string]any); !ok {
			return nil, false
		}
		frames = append(frames, v)
	}
	if sc.Err() != nil {
		return nil, false
	}
	return frames, true
}

// cutLines splits the first n lines off data.
func cutLines(data []byte, n int) ([]string, []byte, bool) {
	var head []string
	for range n {
		line, rest, ok := bytes.Cut(data, []byte("\n"))
		if !ok {
			return nil, nil, false
		}
		head, data = append(head, string(line)), rest
	}
	return head, data, true
}

// savePreflight writes the entry of key with frames. Errors are ignored:
// the cache only saves starts.
func (p *plan) savePreflight(key string, frames []any) {
	var body bytes.Buffer
	for _, f := range frames {
		b, err := canon.Canonical(f)
		if err != nil || bytes.ContainsRune(b, '\n') {
			return
		}
		body.Write(b)
		body.WriteByte('\n')
	}
	sum := sha256.Sum256(body.Bytes())
	head := preflightHeader + "\n" + key + "\n" + hex.EncodeToString(sum[:]) + "\n"
	if len(head)+body.Len() > preflightFileMax {
		return
	}
	dir := p.cfg.PreflightCache
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return
	}
	tmp, err := os.CreateTemp(dir, ".preflight-*")
	if err != nil {
		return
	}
	_, werr := io.WriteString(tmp, head)
	if werr == nil {
		_, werr = tmp.Write(body.Bytes())
	}
	if cerr := tmp.Close(); werr != nil || cerr != nil || os.Rename(tmp.Name(), p.preflightFile(key)) != nil {
		_ = os.Remove(tmp.Name())
		return
	}
	suite.PruneCache(dir, "preflight-", preflightFiles)
}
