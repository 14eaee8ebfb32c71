package runner

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"path"
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
// written by this function: never edit one by hand. Every file is written
// through [suite.Dir]: atomically (a temporary file renamed over it),
// never through a symbolic link, never outside root.
//
// Errors: REFERENCE_MISMATCH when the reference does not pass a required or
// recommended vector cleanly (a missing or duplicate reply, a schema
// violation, a crash, a timeout, a normalized value that fails its format);
// NORMALIZER_UNMATCHED when a vector-level normalizer matches nothing in the
// reference's output (a stale rule); any load error of the suite (exit 2);
// SUITE_PATH_OUTSIDE (a golden file or folder that is a symbolic link
// leaving root: nothing is written through it); IO.
func UpdateGolden(ctx context.Context, cfg Config, root string) (*GoldenUpdate, error) {
	cfg.defaults()
	cfg.Filters = nil
	p, err := prepare(cfg)
	if err != nil {
		return nil, err
	}
	defer p.close()
	if len(p.problems) > 0 {
		msgs := make([]string, len(p.problems))
		for i, pr := range p.problems {
			msgs[i] = pr.Message
		}
		return nil, kiterr.New(kiterr.VectorInvalid, "fix these vectors first: %s", strings.Join(msgs, "; "))
	}
	dir, err := suite.OpenDir(root)
	if err != nil {
		return nil, err
	}
	defer dir.Close()
	// Golden files are compared with what the reference writes before
	// they are replaced; one that is no golden file (too large, not a
	// regular file) is refused before anything runs, unread.
	for _, v := range p.vectors {
		if err := checkGoldenFile(dir, suite.GoldenPath(p.ver, cfg.Role, v.ID)); err != nil {
			return nil, err
		}
	}
	outs := make(map[string]*outcome, len(p.vectors))
	var mu sync.Mutex
	gen := func(ctx context.Context, v suite.Ref) (Result, error) {
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
		same, err := sameGolden(dir, rel, outs[v.ID].summary)
		switch {
		case same:
			up.Unchanged++
			continue
		case err != nil && kiterr.CodeOf(err) != "":
			return nil, err // SUITE_PATH_OUTSIDE: never written through
		}
		if err := dir.WriteFile(rel, outs[v.ID].summary); err != nil {
			return nil, err
		}
		up.Written++
	}
	// Remove golden files of this role that no vector names.
	pattern := path.Join(p.ver.Golden, "*.json")
	if cfg.Role != "agent" {
		pattern = path.Join(p.ver.Golden, cfg.Role, "*.json")
	}
	olds, err := doublestar.Glob(dir, pattern, doublestar.WithFailOnIOErrors())
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		if kiterr.CodeOf(err) != "" {
			return nil, err
		}
		return nil, kiterr.Wrap(kiterr.IO, err, "list golden files")
	}
	for _, rel := range olds {
		if !want[rel] {
			if err := dir.Remove(rel); err != nil && !errors.Is(err, fs.ErrNotExist) {
				return nil, err
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

// checkGoldenFile refuses the golden file rel (when there is one) that
// golden --update must not read: larger than suite.MaxGoldenFile, or not a
// regular file (a FIFO would block the read). Errors: GOLDEN_INVALID,
// SUITE_PATH_OUTSIDE.
func checkGoldenFile(dir *suite.Dir, rel string) error {
	fi, err := dir.Stat(rel)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return nil
	case err != nil && kiterr.CodeOf(err) != "":
		return err
	case err != nil:
		return kiterr.Wrap(kiterr.IO, err, "golden %s", rel)
	case !fi.Mode().IsRegular():
		return kiterr.New(kiterr.GoldenInvalid, "golden %s is not a regular file (%s): it is not read; remove it and run golden --update again", rel, fi.Mode().Type())
	case fi.Size() > suite.MaxGoldenFile:
		return kiterr.New(kiterr.GoldenInvalid, "golden %s is %d bytes, over the %d a golden file may have: it is not read; remove it and run golden --update again", rel, fi.Size(), suite.MaxGoldenFile)
	}
	return nil
}

// sameGolden reports whether the golden file rel holds exactly summary. A
// file of another size differs unread; one of the same size is read (at
// most len(summary) bytes, checked by checkGoldenFile before the run).
func sameGolden(dir *suite.Dir, rel string, summary []byte) (bool, error) {
	fi, err := dir.Stat(rel)
	if err != nil || !fi.Mode().IsRegular() || fi.Size() != int64(len(summary)) {
		return false, err
	}
	old, err := dir.ReadFile(rel)
	return err == nil && string(old) == string(summary), err
}

// WriteManifest rewrites root/MANIFEST.sha256 over the suite's files
// (atomically, through [suite.Dir]) and returns the new suite digest
// ("sha256:<hex>"). Errors: SUITE_PATH_OUTSIDE, IO, and the load errors
// of the suite.
func WriteManifest(root string) (string, error) {
	dir, err := suite.OpenDir(root)
	if err != nil {
		return "", err
	}
	defer dir.Close()
	d, err := suite.Digests(dir)
	if err != nil {
		return "", err
	}
	if err := dir.WriteFile(suite.DigestFile, suite.DigestManifest(d)); err != nil {
		return "", err
	}
	s, err := suite.Load(dir, suite.Options{})
	if err != nil {
		return "", err
	}
	return s.Digest, nil
}
