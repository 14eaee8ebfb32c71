package runner

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"

	"github.com/bmatcuk/doublestar/v4"

	"github.com/conform-kit/conform/internal/kiterr"
	"github.com/conform-kit/conform/internal/suite"
)

// GoldenUpdate says what [UpdateGolden] wrote.
type GoldenUpdate struct {
	// Written and Unchanged count golden files; Removed lists golden files
	// deleted because no vector names them any more.
	Written, Unchanged int
	Removed            []string
	// Digest is the new suite digest.
	Digest string
}

// UpdateGolden regenerates the golden summaries of every session vector of
// cfg.Version and cfg.Role by running cfg.Command (the reference
// implementation) and writes them under root, the on-disk suite directory
// that cfg.Suite was loaded from (loaded with digests skipped). It then
// rewrites MANIFEST.sha256 over the whole suite. Golden files are only ever
// written by this function: never edit one by hand.
//
// Errors: REFERENCE_MISMATCH when the reference does not pass a required or
// recommended vector cleanly (a missing or duplicate reply, a schema
// violation, a crash, a timeout, a normalized value that fails its format);
// NORMALIZER_UNMATCHED when a vector-level normalizer matches nothing in the
// reference's output (a stale rule); any load error of the suite (exit 2);
// IO.
func UpdateGolden(ctx context.Context, cfg Config, root string) (*GoldenUpdate, error) {
	cfg.defaults()
	cfg.Filters = nil
	p, err := prepare(cfg)
	if err != nil {
		return nil, err
	}
	defer p.dirs.close()
	if len(p.problems) > 0 {
		msgs := make([]string, len(p.problems))
		for i, pr := range p.problems {
			msgs[i] = pr.Message
		}
		return nil, kiterr.New(kiterr.VectorInvalid, "fix these vectors first: %s", strings.Join(msgs, "; "))
	}
	outs := make(map[string]*outcome, len(p.vectors))
	var mu sync.Mutex
	gen := func(ctx context.Context, v *suite.Vector) (Result, error) {
		l, err := p.load(v)
		if err != nil {
			return Result{}, err
		}
		o, err := p.session(ctx, l)
		if err != nil {
			return Result{}, err
		}
		mu.Lock()
		outs[v.ID] = o
		mu.Unlock()
		return Result{ID: v.ID, Status: Pass}, nil
	}
	if _, err := p.runAll(ctx, gen); err != nil {
		return nil, err
	}
	if ctx.Err() != nil {
		return nil, kiterr.Wrap(kiterr.Interrupted, ctx.Err(), "golden update")
	}
	var problems []string
	for _, v := range p.vectors {
		o := outs[v.ID]
		for _, f := range o.findings {
			if f.Status != "" && v.Level != suite.LevelInformational {
				problems = append(problems, fmt.Sprintf("%s: %s: %s", v.ID, f.Code, f.Message))
			}
		}
		for _, u := range o.unmatched {
			problems = append(problems, fmt.Sprintf("%s: %s: vector normalizer %q matched nothing in the reference output", v.ID, kiterr.NormalizerUnmatched, u))
		}
	}
	if len(problems) > 0 {
		code := kiterr.ReferenceMismatch
		if strings.Contains(strings.Join(problems, "\n"), string(kiterr.NormalizerUnmatched)) {
			code = kiterr.NormalizerUnmatched
		}
		return nil, kiterr.New(code, "the reference does not produce clean golden output:\n  %s", strings.Join(problems, "\n  "))
	}

	up := &GoldenUpdate{}
	want := map[string]bool{}
	for _, v := range p.vectors {
		rel := suite.GoldenPath(p.ver, cfg.Role, v.ID)
		want[rel] = true
		file := filepath.Join(root, filepath.FromSlash(rel))
		if old, err := os.ReadFile(file); err == nil && string(old) == string(outs[v.ID].summary) {
			up.Unchanged++
			continue
		}
		if err := os.MkdirAll(filepath.Dir(file), 0o755); err != nil {
			return nil, kiterr.Wrap(kiterr.IO, err, "golden dir")
		}
		if err := os.WriteFile(file, outs[v.ID].summary, 0o644); err != nil {
			return nil, kiterr.Wrap(kiterr.IO, err, "write golden")
		}
		up.Written++
	}
	// Remove golden files of this role that no vector names.
	pattern := filepath.ToSlash(filepath.Join(p.ver.Golden, "*.json"))
	if cfg.Role != "agent" {
		pattern = filepath.ToSlash(filepath.Join(p.ver.Golden, cfg.Role, "*.json"))
	}
	olds, _ := doublestar.Glob(os.DirFS(root), pattern)
	for _, rel := range olds {
		if !want[rel] {
			if err := os.Remove(filepath.Join(root, filepath.FromSlash(rel))); err != nil && !errors.Is(err, fs.ErrNotExist) {
				return nil, kiterr.Wrap(kiterr.IO, err, "remove stale golden")
			}
			up.Removed = append(up.Removed, rel)
		}
	}
	digest, err := WriteManifest(root)
	if err != nil {
		return nil, err
	}
	up.Digest = digest
	return up, nil
}

// WriteManifest rewrites root/MANIFEST.sha256 over the suite's files and
// returns the new suite digest ("sha256:<hex>").
func WriteManifest(root string) (string, error) {
	d, err := suite.Digests(os.DirFS(root))
	if err != nil {
		return "", err
	}
	data := suite.DigestManifest(d)
	if err := os.WriteFile(filepath.Join(root, suite.DigestFile), data, 0o644); err != nil {
		return "", kiterr.Wrap(kiterr.IO, err, "write %s", suite.DigestFile)
	}
	s, err := suite.Load(os.DirFS(root), suite.Options{})
	if err != nil {
		return "", err
	}
	return s.Digest, nil
}
