package matrix

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/conform-kit/conform/internal/drift"
	"github.com/conform-kit/conform/internal/input"
	"github.com/conform-kit/conform/internal/kiterr"
	"github.com/conform-kit/conform/internal/profile"
	"github.com/conform-kit/conform/internal/result"
	"github.com/conform-kit/conform/runner"
)

// ReadTrend reads the recordings in the subfolders of dir (each with a
// recording.json, as conform record writes them) as the releases of one
// implementation. Errors: PATH_NOT_FOUND (dir), RECORDING_INVALID and IO
// (internal/drift), USAGE when dir holds no recording.
func ReadTrend(dir string) ([]runner.TrendPoint, error) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, kiterr.Wrap(kiterr.PathNotFound, err, "--trend %s", dir)
	}
	var points []runner.TrendPoint
	for _, e := range entries {
		if !e.IsDir() {
			continue
		}
		if _, err := os.Stat(filepath.Join(dir, e.Name(), drift.MetaFile)); err != nil {
			continue
		}
		rec, err := drift.Read(filepath.Join(dir, e.Name()))
		if err != nil {
			return nil, err
		}
		mt := rec.Meta
		label := mt.Label
		if label == "" {
			label = e.Name()
		}
		c := mt.Counts
		points = append(points, runner.TrendPoint{Label: label, Released: mt.Released, Role: mt.Suite.Role, Version: mt.Suite.Version, Verdict: mt.Verdict,
			Passed: c["passed"], Failed: c["failed"], XFail: c["xfail"], XPass: c["xpass"], Informational: c["informational"], NotRun: c["not_run"]})
	}
	if len(points) == 0 {
		return nil, kiterr.New(kiterr.Usage, "--trend %s: no recording (a folder with %s) in it", dir, drift.MetaFile)
	}
	return points, nil
}

// historyFiles lists the saved reports of a --history folder: each
// DIR/NAME.*.json, and each DIR/NAME/*.json, with the implementation NAME
// it belongs to (a file's base name up to its first dot, or its folder's
// name), in name order.
func historyFiles(dir string) ([]Source, error) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, kiterr.Wrap(kiterr.PathNotFound, err, "--history %s", dir)
	}
	var out []Source
	for _, e := range entries {
		p := filepath.Join(dir, e.Name())
		if !e.IsDir() {
			if strings.HasSuffix(e.Name(), ".json") {
				out = append(out, Source{Name: baseName(e.Name()), File: p})
			}
			continue
		}
		sub, err := os.ReadDir(p)
		if err != nil {
			return nil, kiterr.Wrap(kiterr.IO, err, "--history %s", dir)
		}
		for _, f := range sub {
			if !f.IsDir() && strings.HasSuffix(f.Name(), ".json") {
				out = append(out, Source{Name: e.Name(), File: filepath.Join(p, f.Name())})
			}
		}
	}
	return out, nil
}

// AddHistory reads the saved reports of the folder dir ([historyFiles];
// each checked as --from checks it, of any suite digest) and adds each to
// the history of the implementation of m it names (result.HistoryPointOf,
// Matrix.AddHistory); reports of names m does not have are passed over.
// Errors: PATH_NOT_FOUND, REPORT_INVALID, USAGE when no report of dir
// names an implementation of m.
func AddHistory(m *result.Matrix, s *runner.Suite, dir string) error {
	files, err := historyFiles(dir)
	if err != nil {
		return err
	}
	byName := map[string][]result.HistoryPoint{}
	var names []string
	for _, f := range files {
		if !slices.ContainsFunc(m.Implementations, func(mi result.MatrixImplementation) bool { return mi.Name == f.Name }) {
			continue
		}
		in, err := ReadReports(s, []Source{f})
		if err != nil {
			return err
		}
		if _, ok := byName[f.Name]; !ok {
			names = append(names, f.Name)
		}
		byName[f.Name] = append(byName[f.Name], result.HistoryPointOf(in[0].Report))
	}
	if len(names) == 0 {
		return kiterr.New(kiterr.Usage, "--history %s: no saved report (NAME.*.json or NAME/*.json) of an implementation of the matrix in it", dir)
	}
	for _, name := range names {
		if err := m.AddHistory(name, byName[name]); err != nil {
			return err
		}
	}
	return nil
}

// profileFacts gives each implementation of m whose runs name one profile
// folder (--profile DIR) that this process can read the homepage and the
// artifact its profile.json states. Only those two members are read
// here: runs and reports carry the rest. A folder that is not there (the
// reports came from elsewhere) is passed over. Errors: USAGE (runs of one
// implementation naming two profiles), PROFILE_INVALID (a profile.json
// that is not JSON).
func profileFacts(m *result.Matrix) error {
	for i := range m.Implementations {
		mi := &m.Implementations[i]
		dir, err := profileDir(m, mi.Name)
		if err != nil || dir == "" {
			if err != nil {
				return err
			}
			continue
		}
		data, err := input.ReadFile(filepath.Join(dir, "profile.json"), profile.MaxFile, "profile")
		if err != nil {
			continue
		}
		var p struct {
			Homepage string `json:"homepage"`
			Artifact *struct {
				Name   string            `json:"name"`
				URI    string            `json:"uri"`
				Digest map[string]string `json:"digest"`
			} `json:"artifact"`
		}
		if err := json.Unmarshal(data, &p); err != nil {
			return kiterr.Wrap(kiterr.ProfileInvalid, err, "%s", filepath.Join(dir, "profile.json"))
		}
		mi.Homepage = p.Homepage
		if a := p.Artifact; a != nil && a.Name != "" {
			for _, alg := range []string{"sha256", "sha512"} {
				if d := a.Digest[alg]; d != "" {
					mi.Artifact = &result.MatrixArtifact{Name: a.Name, URI: a.URI, Digest: alg + ":" + d}
					break
				}
			}
		}
	}
	return nil
}
