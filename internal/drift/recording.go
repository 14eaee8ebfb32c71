// Package drift compares what implementations wrote on the control channel
// across versions: recordings made by conform record (one normalized,
// canonical summary per session vector, as the runner compares with golden
// files) or the golden files themselves. [Compare] lists every difference
// with a JSON Pointer and classifies it ADDITIVE, BREAKING or INFO; the
// rules and their sources are in [Rules].
//
// Drift is over recorded frames (JSON values), not schemas: internal/compat
// classifies schema changes; drift borrows compat's rule ids where a
// difference between two frames means what a compat rule means for two
// schemas (a member added, a member gone, a type changed, a new enum value,
// a discriminator changed).
package drift

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"

	"github.com/conform-kit/conform/internal/canon"
	"github.com/conform-kit/conform/internal/kiterr"
)

// Format is the value of [Meta].Format for recordings written by this
// package.
const Format = "conform-recording/1"

// MetaFile is the name of a recording's metadata file; every other *.json
// file directly in the directory is one vector's summary, named <id>.json.
const MetaFile = "recording.json"

// Meta describes a recording: who was recorded, against which suite, and
// how each vector ended. Written as recording.json (indented JSON).
type Meta struct {
	// Format is [Format].
	Format string `json:"format"`
	// Label names the recording in reports (e.g. a release, "2.1.332").
	Label string `json:"label,omitempty"`
	// Released is the release date of the recorded version (YYYY-MM-DD), if
	// known; timelines order and date their entries by it.
	Released string `json:"released,omitempty"`
	// Implementation and ImplementationVersion name the IUT; Command is
	// its argv.
	Implementation        string   `json:"implementation"`
	ImplementationVersion string   `json:"implementationVersion,omitempty"`
	Command               []string `json:"command,omitempty"`
	// Suite identifies the suite, protocol version and role recorded.
	Suite Suite `json:"suite"`
	// Recorded is when the recording was made (RFC 3339, UTC).
	Recorded string `json:"recorded,omitempty"`
	// Verdict is the run's verdict (CERTIFIED, NOT_CERTIFIED, ...), Counts
	// its counts by status, Results each vector's status.
	Verdict string         `json:"verdict,omitempty"`
	Counts  map[string]int `json:"counts,omitempty"`
	Results []Result       `json:"results,omitempty"`
}

// Suite identifies a suite version and role.
type Suite struct {
	Name    string `json:"name"`
	Version int    `json:"version"`
	Role    string `json:"role"`
	Digest  string `json:"digest"`
	// Framing is the suite's framing when it is not lines
	// ("content-length"; "" for lines). The summaries are the same
	// either way: JSON lines of normalized bodies.
	Framing string `json:"framing,omitempty"`
}

// Result is one vector's status in a recorded run.
type Result struct {
	ID     string `json:"id"`
	Level  string `json:"level"`
	Status string `json:"status"`
}

// Recording is a loaded recording: its metadata and every vector's summary
// (RFC 8785 bytes), by vector id.
type Recording struct {
	Meta      Meta
	Summaries map[string][]byte
	// Shapes holds, by vector id, the shapes document of the summary
	// (runner.Result.Shapes): the member names and JSON types of what its
	// normalizers replaced, frame by frame. Written as shapes/<id>.json;
	// absent in recordings made before shapes were kept, and in
	// directories of golden files.
	Shapes map[string][]byte
}

// ShapesDir is the subdirectory of a recording that holds its shapes.
const ShapesDir = "shapes"

// Write writes rec to dir (created if needed): recording.json and one
// <id>.json per summary. Files of an earlier recording in dir that this one
// does not have are removed, so the directory holds exactly rec. Errors:
// RECORDING_INVALID (a summary that is not canonical, or a vector id that
// cannot be a file name), IO.
func Write(dir string, rec *Recording) error {
	for id, b := range rec.Summaries {
		if err := checkID(id); err != nil {
			return err
		}
		if err := checkSummary(id, b); err != nil {
			return kiterr.Wrap(kiterr.RecordingInvalid, err, "recording")
		}
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return kiterr.Wrap(kiterr.IO, err, "create recording %s", dir)
	}
	old, err := filepath.Glob(filepath.Join(dir, "*.json"))
	if err != nil {
		return kiterr.Wrap(kiterr.IO, err, "list recording %s", dir)
	}
	for _, f := range old {
		id := strings.TrimSuffix(filepath.Base(f), ".json")
		if _, keep := rec.Summaries[id]; !keep && filepath.Base(f) != MetaFile {
			if err := os.Remove(f); err != nil {
				return kiterr.Wrap(kiterr.IO, err, "remove stale summary")
			}
		}
	}
	meta := rec.Meta
	meta.Format = Format
	data, err := json.MarshalIndent(meta, "", "  ")
	if err != nil {
		return kiterr.Wrap(kiterr.IO, err, "encode %s", MetaFile)
	}
	if err := os.WriteFile(filepath.Join(dir, MetaFile), append(data, '\n'), 0o644); err != nil {
		return kiterr.Wrap(kiterr.IO, err, "write %s", MetaFile)
	}
	for id, b := range rec.Summaries {
		if err := os.WriteFile(filepath.Join(dir, id+".json"), b, 0o644); err != nil {
			return kiterr.Wrap(kiterr.IO, err, "write summary %s", id)
		}
	}
	shapes := filepath.Join(dir, ShapesDir)
	if err := os.RemoveAll(shapes); err != nil {
		return kiterr.Wrap(kiterr.IO, err, "remove stale shapes")
	}
	if len(rec.Shapes) > 0 {
		if err := os.MkdirAll(shapes, 0o755); err != nil {
			return kiterr.Wrap(kiterr.IO, err, "create %s", shapes)
		}
	}
	for id, b := range rec.Shapes {
		if _, ok := rec.Summaries[id]; !ok {
			continue
		}
		if err := os.WriteFile(filepath.Join(shapes, id+".json"), b, 0o644); err != nil {
			return kiterr.Wrap(kiterr.IO, err, "write shapes %s", id)
		}
	}
	return nil
}

// Read loads the recording in dir. Each summary file holds canonical bytes,
// optionally followed by one LF. A directory without recording.json is
// read as a directory of summaries, such as golden/v1 or golden/v1/host:
// its Meta.Label is dir and its implementation "summaries in <dir>".
// Errors: PATH_NOT_FOUND, RECORDING_INVALID, IO.
func Read(dir string) (*Recording, error) {
	st, err := os.Stat(dir)
	if err != nil {
		return nil, kiterr.Wrap(kiterr.PathNotFound, err, "recording %q", dir)
	}
	if !st.IsDir() {
		return nil, kiterr.New(kiterr.RecordingInvalid, "%s is not a directory (a recording is a directory written by conform record, or of golden files)", dir)
	}
	return ReadFS(os.DirFS(dir), ".", dir)
}

// ReadFS loads the recording (or directory of summaries) at dir in fsys;
// label names it in errors and, when it has no recording.json, in reports.
// Errors as [Read].
func ReadFS(fsys fs.FS, dir, label string) (*Recording, error) {
	rec := &Recording{Summaries: map[string][]byte{}}
	entries, err := fs.ReadDir(fsys, dir)
	if err != nil {
		return nil, kiterr.Wrap(kiterr.IO, err, "read %s", label)
	}
	hasMeta := false
	for _, e := range entries {
		name := e.Name()
		if e.IsDir() || !strings.HasSuffix(name, ".json") {
			continue
		}
		data, err := fs.ReadFile(fsys, path.Join(dir, name))
		if err != nil {
			return nil, kiterr.Wrap(kiterr.IO, err, "read %s/%s", label, name)
		}
		if name == MetaFile {
			hasMeta = true
			dec := json.NewDecoder(bytes.NewReader(data))
			dec.DisallowUnknownFields()
			if err := dec.Decode(&rec.Meta); err != nil {
				return nil, kiterr.Wrap(kiterr.RecordingInvalid, err, "%s/%s", label, MetaFile)
			}
			if rec.Meta.Format != Format {
				return nil, kiterr.New(kiterr.RecordingInvalid, "%s/%s: format %q, want %q", label, MetaFile, rec.Meta.Format, Format)
			}
			continue
		}
		id := strings.TrimSuffix(name, ".json")
		// One trailing LF (as editors save a file) is not part of the
		// summary's canonical bytes.
		data = bytes.TrimSuffix(data, []byte("\n"))
		if err := checkSummary(id, data); err != nil {
			return nil, kiterr.Wrap(kiterr.RecordingInvalid, err, "%s", label)
		}
		rec.Summaries[id] = data
	}
	if hasMeta {
		if err := readShapes(fsys, dir, label, rec); err != nil {
			return nil, err
		}
	}
	if !hasMeta {
		if len(rec.Summaries) == 0 {
			return nil, kiterr.New(kiterr.RecordingInvalid, "%s has no %s and no summaries (<id>.json)", label, MetaFile)
		}
		rec.Meta = Meta{Format: Format, Label: label, Implementation: "summaries in " + label}
	}
	if rec.Meta.Label == "" {
		rec.Meta.Label = label
	}
	return rec, nil
}

// readShapes reads the recording's shapes/<id>.json files, if it has any,
// for the vectors it has summaries of. Errors: RECORDING_INVALID (a shapes
// file that is not JSON), IO.
func readShapes(fsys fs.FS, dir, label string, rec *Recording) error {
	entries, err := fs.ReadDir(fsys, path.Join(dir, ShapesDir))
	if err != nil {
		return nil // none kept
	}
	for _, e := range entries {
		name := e.Name()
		id := strings.TrimSuffix(name, ".json")
		if e.IsDir() || id == name || rec.Summaries[id] == nil {
			continue
		}
		data, err := fs.ReadFile(fsys, path.Join(dir, ShapesDir, name))
		if err != nil {
			return kiterr.Wrap(kiterr.IO, err, "read %s/%s/%s", label, ShapesDir, name)
		}
		if _, err := canon.Parse(data); err != nil {
			return kiterr.Wrap(kiterr.RecordingInvalid, err, "%s/%s/%s", label, ShapesDir, name)
		}
		if rec.Shapes == nil {
			rec.Shapes = map[string][]byte{}
		}
		rec.Shapes[id] = data
	}
	return nil
}

// checkID rejects ids that cannot be a file name of their own.
func checkID(id string) error {
	if id == "" || id == "recording" || strings.ContainsAny(id, `/\`) || id == "." || id == ".." || strings.HasPrefix(id, ".") {
		return kiterr.New(kiterr.RecordingInvalid, "vector id %q cannot be a summary file name", id)
	}
	return nil
}

// summary is the shape of a golden summary (runner.Summary).
type summary struct {
	Exit   string `json:"exit,omitempty"`
	Frames []any  `json:"frames"`
	Vector string `json:"vector"`
	// value is the whole summary as canon.Parse read it.
	value any
}

// checkSummary checks that b is the canonical form of a summary of vector
// id; its error is a plain description, wrapped by the caller.
func checkSummary(id string, b []byte) error {
	s, err := parseSummary(b)
	if err != nil {
		return fmt.Errorf("%s.json: %w", id, err)
	}
	if s.Vector != id {
		return fmt.Errorf("%s.json: summary of vector %q", id, s.Vector)
	}
	c, err := canon.Canonical(s.value)
	if err != nil || !bytes.Equal(c, b) {
		return fmt.Errorf("%s.json: not in canonical (RFC 8785) form", id)
	}
	return nil
}

func parseSummary(b []byte) (*summary, error) {
	v, err := canon.Parse(b)
	if err != nil {
		return nil, err
	}
	m, ok := v.(map[string]any)
	if !ok {
		return nil, fmt.Errorf("not a JSON object")
	}
	s := &summary{value: v}
	for k, x := range m {
		switch k {
		case "exit":
			if s.Exit, ok = x.(string); !ok {
				return nil, fmt.Errorf("exit is not a string")
			}
		case "frames":
			if s.Frames, ok = x.([]any); !ok {
				return nil, fmt.Errorf("frames is not an array")
			}
		case "vector":
			if s.Vector, ok = x.(string); !ok {
				return nil, fmt.Errorf("vector is not a string")
			}
		default:
			return nil, fmt.Errorf("unknown member %q", k)
		}
	}
	if s.Frames == nil {
		return nil, fmt.Errorf("no frames array")
	}
	return s, nil
}

// IDs returns the vector ids of rec, sorted.
func (rec *Recording) IDs() []string {
	ids := make([]string, 0, len(rec.Summaries))
	for id := range rec.Summaries {
		ids = append(ids, id)
	}
	slices.Sort(ids)
	return ids
}
