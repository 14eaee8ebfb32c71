package main

import (
	"bufio"
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime/debug"
	"strings"

	"github.com/conform-kit/conform/internal/canon"
	"github.com/conform-kit/conform/internal/input"
	"github.com/conform-kit/conform/internal/kiterr"
	"github.com/conform-kit/conform/internal/profile"
	"github.com/conform-kit/conform/internal/suite"
	"github.com/conform-kit/conform/runner"
)

// Memory of validate (see tuneGC).
const (
	// validateLimit is the soft memory limit while only ordinary lines
	// are in flight, in bytes: with two chunks of lines in flight a worker
	// (runner.ValidateRecording) the live heap is 4-6 MiB, and the limit
	// keeps a million-frame recording at about 33 MiB RSS (it was 64 MiB
	// and 72 MiB: bench/README.md).
	validateLimit = 24 << 20
	// validatePerByte is how much the limit grows per byte of lines in
	// flight beyond validateLimit's share: what checking a line may hold
	// for each of its bytes. A valid large line holds about 2x (itself,
	// read once into memory of its size; the name sets of its large
	// objects; the nodes of what the schema reads: canon.Tape folds the
	// rest), but one the schema reads all of holds up to 13x (the nodes
	// of an array of small objects) and an invalid one is read again into
	// maps for its messages (up to 35x), which this keeps from being
	// checked under a limit it cannot fit in.
	validatePerByte = 40
	// validateShare is the bytes of lines in flight validateLimit is for.
	validateShare = 2 << 20
)

// tuneGC trades memory for speed in validate: unless the caller set GOGC
// or GOMEMLIMIT, the heap may grow to 5x its live size (GOGC=400) under a
// soft limit of validateLimit, which follows the lines in flight (the
// returned function, for RecordingOptions.InFlight): one large line is
// checked under a limit it fits in (before, a frame of 1.6M members was
// checked under 64 MiB with a collection every few MiB: 3.7 s CPU, 1.2 s
// without the limit). A recording is streamed, so the live heap is a few
// MiB whatever its length; the validator's fast path leaves little garbage
// beyond the parsed frames. The returned function is nil when the caller
// set GOGC or GOMEMLIMIT.
func tuneGC() (inFlight func(bytes int64)) {
	if os.Getenv("GOGC") != "" || os.Getenv("GOMEMLIMIT") != "" {
		return nil
	}
	debug.SetGCPercent(400)
	debug.SetMemoryLimit(validateLimit)
	var last int64 = validateLimit
	return func(bytes int64) {
		limit := validateLimit + validatePerByte*max(0, bytes-validateShare)
		if limit != last {
			last = limit
			debug.SetMemoryLimit(limit)
		}
	}
}

// cmdValidate checks suite inputs. With no paths it checks the whole suite:
// every vector file of every version against vector.schema.json, every
// message vector against its definition, every session vector's golden
// file, and definition coverage (each $defs entry named by a valid message
// vector). With paths (files or doublestar globs) it checks each file by
// kind: *.jsonl (or "-", standard input) is a recording, streamed and
// checked like what an IUT
// writes in a run, replies matched to their requests
// (runner.ValidateRecording); a profile.json (or a folder that has one)
// is checked against schemas/profile.schema.json and loaded, and warned
// about ("WARN    path: PROFILE_METADATA_MISSING: ...", exit status
// unchanged) for each of version, language, source, issues it lacks; a file under
// a golden/ folder must be canonical; anything else is a vector file.
// Exit 0 when everything is valid, 1 when a check fails, 2 for bad input,
// 3 when a file cannot be read.
func cmdValidate(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	fl := flag.NewFlagSet("validate", flag.ContinueOnError)
	fl.SetOutput(stderr)
	suiteDir := fl.String("suite", "", "the suite: an embedded suite's `name` (control, mcp: conform suites) or a suite root dir (default: control, embedded)")
	version := fl.Int("version", 1, "protocol `version` for recordings and vector files")
	maxLine := fl.Int("max-line", runner.DefaultRecordingMaxLine, "recordings: longest line read, in `bytes` (longer is FRAME_TOO_LARGE)")
	complete := fl.Bool("complete", false, "recordings hold whole sessions: a reply without a pending request and a request never answered fail (by default they are notes, since a recording may start or end mid-session)")
	jobs := fl.Int("j", 0, "recordings: lines parsed and validated at once, in `goroutines` (default: number of CPUs)")
	if code, ok := parseFlags(fl, args, stdout, stderr); !ok {
		return code
	}
	if *maxLine <= 0 {
		return usageError(stderr, "validate", "--max-line must be positive")
	}
	inFlight := tuneGC()
	s, err := openSuite(*suiteDir, false)
	if err != nil {
		return fail(stderr, err)
	}
	if fl.NArg() == 0 {
		return validateSuite(s, stdout, stderr)
	}
	// "-" is a recording on standard input, streamed as a *.jsonl file is;
	// a profile folder is its profile.json.
	var paths []string
	for _, a := range fl.Args() {
		if a == "-" {
			paths = append(paths, a)
			continue
		}
		if st, err := os.Stat(filepath.Join(a, profile.File)); err == nil && st.Mode().IsRegular() {
			a = filepath.Join(a, profile.File)
		}
		more, err := expandPaths([]string{a})
		if err != nil {
			return fail(stderr, err)
		}
		paths = append(paths, more...)
	}
	out := bufio.NewWriterSize(stdout, 64<<10)
	defer out.Flush()
	bad, warned := 0, 0
	for _, p := range paths {
		if strings.HasSuffix(p, ".jsonl") || p == "-" {
			var in io.Reader
			if p == "-" {
				in = stdin
			}
			ok, err := validateRecording(ctx, s, *version, p, in, runner.RecordingOptions{MaxLine: *maxLine, Complete: *complete, Jobs: *jobs, InFlight: inFlight}, out)
			if err != nil {
				out.Flush()
				return fail(stderr, err)
			}
			if !ok {
				bad++
			}
			continue
		}
		golden := strings.Contains(filepath.ToSlash(p), "golden/")
		data, err := readBounded(p, golden)
		if err != nil {
			fmt.Fprintf(out, "INVALID %s: %v\n", p, err)
			bad++
			continue
		}
		var probs []string
		switch {
		case filepath.Base(p) == profile.File:
			var warns []profile.Warning
			if probs, warns, err = validateProfile(s, p, data); err != nil {
				out.Flush()
				return fail(stderr, err)
			}
			for _, w := range warns {
				fmt.Fprintf(out, "WARN    %s: %s: %s\n", p, w.Code, w.Message)
			}
			warned += len(warns)
		case golden:
			if err := runner.CheckGolden(data); err != nil {
				probs = []string{err.Error()}
			}
		default:
			probs, err = validateVectorFile(s, *version, data)
			if err != nil {
				out.Flush()
				return fail(stderr, err)
			}
		}
		if len(probs) == 0 {
			fmt.Fprintf(out, "ok      %s\n", p)
			continue
		}
		bad++
		for _, pr := range probs {
			fmt.Fprintf(out, "INVALID %s: %s\n", p, pr)
		}
	}
	fmt.Fprintf(out, "%d files, %d invalid", len(paths), bad)
	if warned > 0 {
		fmt.Fprintf(out, ", %d warnings", warned)
	}
	fmt.Fprintln(out)
	if err := out.Flush(); err != nil {
		return fail(stderr, kiterr.Wrap(kiterr.IO, err, "write"))
	}
	if bad > 0 {
		return exitFail
	}
	return exitPass
}

// validateRecording streams the recording at path and prints each finding
// as it comes, in line order ("INVALID path: line N: CODE: message" for a
// failure, "NOTE    path: ..." for a note), then one line with the counts,
// starting "ok" when nothing failed. It reports whether nothing failed;
// its error is a kit failure (IO, INTERRUPTED, ...).
func validateRecording(ctx context.Context, s *runner.Suite, version int, path string, in io.Reader, opt runner.RecordingOptions, out io.Writer) (bool, error) {
	if in == nil {
		f, err := os.Open(path)
		if err != nil {
			fmt.Fprintf(out, "INVALID %s: %v\n", path, err)
			return false, nil
		}
		defer f.Close()
		in = f
	}
	st, err := runner.ValidateRecording(ctx, s, version, in, opt, func(lf runner.LineFinding) {
		word := "INVALID"
		if lf.Status == "" {
			word = "NOTE   "
		}
		where := fmt.Sprintf("line %d", lf.Line)
		if lf.EOF {
			where = "end of file"
		}
		fmt.Fprintf(out, "%s %s: %s: %s: %s\n", word, path, where, lf.Code, lf.Message)
	})
	if err != nil {
		return false, err
	}
	verdict := "ok     "
	if st.Failed > 0 {
		verdict = "INVALID"
	}
	fmt.Fprintf(out, "%s %s: %d frames, %d correlated (%d requests, %d replies, %d cancels); %d replies matched, %d checked against their method's reply schema; %d failed, %d notes\n",
		verdict, path, st.Frames, st.Control, st.Requests, st.Replies, st.Cancels, st.Matched, st.BodiesChecked, st.Failed, st.Notes)
	return st.Failed == 0, nil
}

// validateProfile checks a profile.json: strict JSON, then
// schemas/profile.schema.json, then what the loader checks beyond it (the
// command's variables, the timeout's duration). It returns the problems
// (the profile is invalid) and, for a valid profile, its warnings
// (profile.Profile.Warnings: PROFILE_METADATA_MISSING), which leave it
// valid. Its error is a kit failure (the schema does not compile).
func validateProfile(s *runner.Suite, path string, data []byte) ([]string, []profile.Warning, error) {
	v, err := canon.Parse(data)
	if err != nil {
		return []string{err.Error()}, nil, nil
	}
	sch, err := s.Meta.Compile(profile.SchemaFile)
	if err != nil {
		return nil, nil, err
	}
	var out []string
	for _, vi := range sch.Validate(v) {
		out = append(out, vi.String())
	}
	if len(out) > 0 {
		return out, nil, nil
	}
	p, err := profile.Load(filepath.Dir(path))
	if err != nil {
		return []string{err.Error()}, nil, nil
	}
	return nil, p.Warnings(), nil
}

// readBounded reads a vector file, or a golden file when golden is set,
// for validate: at most suite.MaxVectorFile (16 MiB) or
// suite.MaxGoldenFile (64 MiB) bytes, the bounds a run reads them with. A
// regular file over the bound is refused by its size, unread; anything
// else (a pipe, a device) is read up to the bound and refused past it. A
// recording (*.jsonl) is streamed instead and has no such bound. Errors:
// the file cannot be opened or read, or VECTOR_TOO_LARGE, GOLDEN_INVALID.
func readBounded(path string, golden bool) ([]byte, error) {
	limit, code, what := int64(suite.MaxVectorFile), kiterr.VectorTooLarge, "a vector file"
	if golden {
		limit, code, what = suite.MaxGoldenFile, kiterr.GoldenInvalid, "a golden file"
	}
	f, st, err := input.Open(path, what)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	if st.Size() > limit {
		return nil, kiterr.New(code, "%d bytes, over the %d bytes %s may have (not read; a recording is named *.jsonl and streamed)", st.Size(), limit, what)
	}
	data, err := io.ReadAll(io.LimitReader(f, limit+1))
	if err != nil {
		return nil, err
	}
	if int64(len(data)) > limit {
		return nil, kiterr.New(code, "over the %d bytes %s may have (read no further; a recording is named *.jsonl and streamed)", limit, what)
	}
	return data, nil
}

func validateVectorFile(s *runner.Suite, version int, data []byte) ([]string, error) {
	v, err := canon.Parse(data)
	if err != nil {
		return []string{err.Error()}, nil
	}
	sch, err := runner.VectorSchema(s)
	if err != nil {
		return nil, err
	}
	var out []string
	for _, vi := range sch.Validate(v) {
		out = append(out, vi.String())
	}
	return out, nil
}

func validateSuite(s *runner.Suite, stdout, stderr io.Writer) int {
	status := exitPass
	for _, ver := range s.Manifest.Versions {
		results, cov, bad, err := runner.CheckMessages(s, ver.Version)
		if err != nil {
			return fail(stderr, err)
		}
		for _, b := range bad {
			fmt.Fprintf(stdout, "INVALID %s: %v\n", b.Path, b.Err)
			status = exitUsage
		}
		failed := 0
		for _, r := range results {
			if !r.Passed {
				failed++
				want := "accept"
				if !r.Valid {
					want = "reject"
				}
				fmt.Fprintf(stdout, "FAIL    v%d message %s: %s must %s it\n", ver.Version, r.ID, r.Definition, want)
				for _, vi := range r.Violations {
					fmt.Fprintf(stdout, "        %s\n", vi)
				}
			}
		}
		if failed > 0 && status == exitPass {
			status = exitFail
		}
		// Golden files of session vectors.
		vs, _, err := s.Vectors(&ver)
		if err != nil {
			return fail(stderr, err)
		}
		sessions := 0
		for _, v := range vs {
			if v.Kind != "session" {
				continue
			}
			sessions++
			if len(v.Fixture) > 0 {
				// Its golden is its fixture files: no golden file.
				for _, name := range v.Fixture {
					if err := checkFixtureFile(s, name); err != nil {
						fmt.Fprintf(stdout, "INVALID %s: %v\n", v.Path, err)
						status = exitUsage
					}
				}
				continue
			}
			if _, err := s.ReadGolden(&ver, v.Role, v.ID); err != nil {
				fmt.Fprintf(stdout, "INVALID %s: %v\n", v.Path, err)
				status = exitUsage
			}
		}
		scope := ""
		if len(ver.Coverage) > 0 {
			scope = " (reachable from the coverage roots " + strings.Join(ver.Coverage, ", ") + ")"
		}
		fmt.Fprintf(stdout, "v%d: %d session vectors, %d message vectors (%d failed), %d/%d schema definitions covered%s\n",
			ver.Version, sessions, len(results), failed, len(cov.Definitions)-len(cov.Uncovered), len(cov.Definitions), scope)
		if len(ver.Classes) == 0 && sessions > 0 {
			// A warning: the run still works, with one implicit class.
			fmt.Fprintf(stdout, "WARNING v%d %s: the version declares no conformance classes, so each role has one implicit class %q, always judged, and a certificate names no feature set (docs/suite-format.md \"Classes\")\n",
				ver.Version, runner.FindingClassesUndeclared, suite.ClassAll)
		}
		for _, d := range cov.Uncovered {
			fmt.Fprintf(stdout, "UNCOVERED v%d #/$defs/%s: no valid message vector exercises it\n", ver.Version, d)
			if status == exitPass {
				status = exitFail
			}
		}
	}
	for p, err := range s.Problems {
		fmt.Fprintf(stdout, "INVALID %s: %v\n", p, err)
		status = exitUsage
	}
	fmt.Fprintf(stdout, "suite %s %s\n", s.Manifest.Name, s.Digest)
	return status
}

// checkFixtureFile checks that the suite file name, one of a vector's
// fixture files, is there as MANIFEST.sha256 lists it and holds one JSON
// object (a frame), as a run reads it. Errors: the suite's read errors
// (SUITE_FILE_UNLISTED, SUITE_DIGEST_MISMATCH, ...), GOLDEN_INVALID.
func checkFixtureFile(s *runner.Suite, name string) error {
	data, err := s.ReadFile(name)
	if err != nil {
		return err
	}
	f, err := canon.Parse(data)
	if err != nil {
		return kiterr.Wrap(kiterr.GoldenInvalid, err, "fixture %s", name)
	}
	if _, ok := f.(map[string]any); !ok {
		return kiterr.New(kiterr.GoldenInvalid, "fixture %s is not one JSON object (a frame)", name)
	}
	return nil
}
