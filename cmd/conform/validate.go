package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime/debug"
	"strings"

	"github.com/conform-kit/conform/internal/canon"
	"github.com/conform-kit/conform/runner"
)

// tuneGC trades memory for speed in validate, which allocates about 21 KiB
// of short-lived garbage per frame inside the JSON Schema validator and
// keeps under 1 MiB alive: unless the caller set GOGC or GOMEMLIMIT, the heap may
// grow to 9x its live size (GOGC=800) under a 1 GiB soft limit. Measured on
// the 10,000-frame bench corpus (bench/README.md): about 22% less wall time
// than GOGC=100.
func tuneGC() {
	if os.Getenv("GOGC") == "" && os.Getenv("GOMEMLIMIT") == "" {
		debug.SetGCPercent(800)
		debug.SetMemoryLimit(1 << 30)
	}
}

// cmdValidate checks suite inputs. With no paths it checks the whole suite:
// every vector file of every version against vector.schema.json, every
// message vector against its definition, every session vector's golden
// file, and definition coverage (each $defs entry named by a valid message
// vector). With paths (files or doublestar globs) it checks each file by
// kind: *.jsonl is a recording validated line by line, a file under a
// golden/ folder must be canonical, anything else is a vector file.
// Exit 0 when everything is valid, 1 when a check fails, 2 for bad input.
func cmdValidate(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	fl := flag.NewFlagSet("validate", flag.ContinueOnError)
	fl.SetOutput(stderr)
	suiteDir := fl.String("suite", "", "suite root `dir` (default: embedded)")
	version := fl.Int("version", 1, "protocol `version` for recordings and vector files")
	if code, ok := parseFlags(fl, args, stdout, stderr); !ok {
		return code
	}
	tuneGC()
	s, err := openSuite(*suiteDir, false)
	if err != nil {
		return fail(stderr, err)
	}
	if fl.NArg() == 0 {
		return validateSuite(s, stdout, stderr)
	}
	paths, err := expandPaths(fl.Args())
	if err != nil {
		return fail(stderr, err)
	}
	bad := 0
	for _, p := range paths {
		data, err := os.ReadFile(p)
		if err != nil {
			fmt.Fprintf(stdout, "INVALID %s: %v\n", p, err)
			bad++
			continue
		}
		var probs []string
		switch {
		case strings.HasSuffix(p, ".jsonl"):
			probs, err = runner.ValidateRecording(s, *version, data)
			if err != nil {
				return fail(stderr, err)
			}
		case strings.Contains(filepath.ToSlash(p), "golden/"):
			if err := runner.CheckGolden(data); err != nil {
				probs = []string{err.Error()}
			}
		default:
			probs, err = validateVectorFile(s, *version, data)
			if err != nil {
				return fail(stderr, err)
			}
		}
		if len(probs) == 0 {
			fmt.Fprintf(stdout, "ok      %s\n", p)
			continue
		}
		bad++
		for _, pr := range probs {
			fmt.Fprintf(stdout, "INVALID %s: %s\n", p, pr)
		}
	}
	fmt.Fprintf(stdout, "%d files, %d invalid\n", len(paths), bad)
	if bad > 0 {
		return exitFail
	}
	return exitPass
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
			if _, err := s.ReadGolden(&ver, v.Role, v.ID); err != nil {
				fmt.Fprintf(stdout, "INVALID %s: %v\n", v.Path, err)
				status = exitUsage
			}
		}
		fmt.Fprintf(stdout, "v%d: %d session vectors, %d message vectors (%d failed), %d/%d schema definitions covered\n",
			ver.Version, sessions, len(results), failed, len(cov.Definitions)-len(cov.Uncovered), len(cov.Definitions))
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
