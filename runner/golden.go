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

	conform "github.com/conform-kit/conform"
	"github.com/conform-kit/conform/internal/kiterr"
	"github.com/conform-kit/conform/internal/suite"
)

// GoldenUpdate says what [UpdateGolden] wrote.
type GoldenUpdate struct {
	// Written and Unchanged count golden files; Added and Changed list the
	// written ones (new files, and files whose bytes changed), Removed the
	// golden files deleted because no vector names them any more, all
	// suite-relative and sorted: what to review before committing.
	Written, Unchanged int
	Added, Changed     []string
	Removed            []string
	// Fixtures counts the vectors whose golden is a set of fixture files:
	// no golden file is written for them; the implementation must
	// reproduce them.
	Fixtures int
	// Digest is the new suite digest.
	Digest string
}

// UpdateGolden regenerates the golden summaries of every session vector of
// cfg.Version and cfg.Role by running cfg.Command (the suite's reference
// implementation, whatever its language) and writes them under root, the
// on-disk suite directory that cfg.Suite was loaded from (loaded with
// digests skipped). A vector whose golden is a set of fixture files gets no
// golden file; the implementation must reproduce the fixtures (conformance
// rules apply). The version's preflight vector runs first, so vectors'
// requires are checked as in a run; a vector the implementation does not
// satisfy the requires of is a REFERENCE_MISMATCH (a reference must cover
// the whole suite). It then rewrites MANIFEST.sha256 over the whole suite. Golden files are only ever
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
	cfg.Filters, cfg.Skip, cfg.Levels = nil, nil, nil
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
	fixtures := map[string]Result{}
	skipped := map[string]string{}
	var mu sync.Mutex
	if err := p.preflightFramesOnly(ctx); err != nil {
		return nil, err
	}
	gen := func(ctx context.Context, v suite.Ref) (Result, error) {
		l, err := p.load(v)
		if err != nil {
			return Result{}, err
		}
		if why := p.unmet(l.v); why != "" {
			mu.Lock()
			skipped[v.ID] = why
			mu.Unlock()
			return Result{ID: v.ID, Status: Skipped}, nil
		}
		l.keepRaw = v.ID == p.ver.Preflight
		o, err := p.session(ctx, l)
		if err != nil {
			return Result{}, err
		}
		var fix Result
		if len(l.v.Fixture) > 0 {
			golden, where, err := p.golden(l)
			if err != nil {
				return Result{}, err
			}
			fix = o.result(v, golden, where, l.conf, false)
		}
		mu.Lock()
		outs[v.ID] = o
		if len(l.v.Fixture) > 0 {
			fixtures[v.ID] = fix
		}
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
		if why, ok := skipped[v.ID]; ok {
			problems = append(problems, fmt.Sprintf("%s: %s: %s", v.ID, FindingRequirementUnmet, why))
			continue
		}
		o := outs[v.ID]
		if fix, ok := fixtures[v.ID]; ok && fix.Status != Pass {
			// The comparison with the fixtures; the run's own findings
			// (which fix.Findings starts with) follow.
			for _, f := range fix.Findings[min(len(o.findings), len(fix.Findings)):] {
				if f.Status != "" {
					problems = append(problems, fmt.Sprintf("%s: %s: %s", v.ID, f.Code, f.Message))
				}
			}
		}
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
		if _, ok := fixtures[v.ID]; ok {
			up.Fixtures++
			continue
		}
		rel := suite.GoldenPath(p.ver, cfg.Role, v.ID)
		want[rel] = true
		if len(outs[v.ID].summary) > suite.MaxGoldenFile {
			return nil, kiterr.New(kiterr.ReferenceMismatch, "%s: the reference's summary is %d bytes, more than a golden file may hold (%d)", v.ID, len(outs[v.ID].summary), suite.MaxGoldenFile)
		}
		same, readErr := sameGolden(dir, rel, outs[v.ID].summary)
		switch {
		case same:
			up.Unchanged++
			continue
		case readErr != nil && kiterr.CodeOf(readErr) != "":
			return nil, readErr // SUITE_PATH_OUTSIDE: never written through
		}
		if err := dir.WriteFile(rel, outs[v.ID].summary); err != nil {
			return nil, err
		}
		up.Written++
		if readErr == nil {
			up.Changed = append(up.Changed, rel)
		} else {
			up.Added = append(up.Added, rel)
		}
	}
	// Remove golden files of this role that no vector names.
	pattern := path.Join(suite.GoldenDir(p.ver, cfg.Role), "*.json")
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
	s, err := suite.Load(dir, suite.Options{Meta: conform.Meta()})
	if err != nil {
		return "", err
	}
	return s.Digest, nil
}
