package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"path"

	"github.com/conform-kit/conform/internal/canon"
	"github.com/conform-kit/conform/internal/drift"
	"github.com/conform-kit/conform/internal/input"
	"github.com/conform-kit/conform/internal/kiterr"
	"github.com/conform-kit/conform/internal/suite"
)

// cmdDrift implements `conform drift OLD NEW [MORE...]`: each argument is a
// recording directory (conform record), a directory of summaries (such as
// golden/v1 or golden/v1/host) or the word "golden" (the golden files of the
// embedded suite for --version and --role). Each pair of neighbours is
// compared (internal/drift) and every difference is listed with a JSON
// Pointer, a rule id and a verdict. Formats: text, json, markdown (a
// timeline document body) and changelog (dated bullets for
// COMPATIBILITY.md). Exit status: 0 when nothing is BREAKING, 1 when
// something is, 2 for usage errors and unreadable or invalid recordings.
func cmdDrift(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	fl := flag.NewFlagSet("drift", flag.ContinueOnError)
	fl.SetOutput(stderr)
	format := fl.String("format", "text", "output format: text, json, markdown or changelog")
	version := fl.Int("version", 1, "protocol `version` of the golden files named \"golden\", and of the schema whose enum values are known")
	role := fl.String("role", "", "`role` of the golden files named \"golden\" (default: the suite version's first)")
	suiteDir := fl.String("suite", "", "the suite (an embedded suite's `name` or a suite root dir; default: control, embedded) whose envelope pairs frames and whose golden files \"golden\" names")
	schemaFile := fl.String("schema", "", "JSON Schema `file` whose enum and const values tell a known value from a new one (default: the embedded suite's schema of --version)")
	subject := fl.String("subject", "Claude Code CLI", "what was recorded, for --format changelog")
	doc := fl.String("doc", "docs/timeline.md", "where the full timeline is, for --format changelog")
	heading := fl.Int("heading", 2, "heading `level` of the sections of --format markdown")
	var dirs []string
	for {
		if code, ok := parseFlags(fl, args, stdout, stderr); !ok {
			return code
		}
		args = fl.Args()
		if len(args) == 0 {
			break
		}
		dirs = append(dirs, args[0])
		args = args[1:]
	}
	if len(dirs) < 2 {
		return usageError(stderr, "drift", "want at least two recordings, OLD and NEW; got %d (conform drift -h)", len(dirs))
	}
	switch *format {
	case "text", "json", "markdown", "changelog":
	default:
		return usageError(stderr, "drift", "--format must be text, json, markdown or changelog")
	}
	if *heading < 1 || *heading > 5 {
		return usageError(stderr, "drift", "--heading must be 1 to 5")
	}
	s, err := openSuite(*suiteDir, false)
	if err != nil {
		return fail(stderr, err)
	}
	if *role, err = resolveRole(s, *version, *role); err != nil {
		return usageError(stderr, "drift", "%v", err)
	}
	ver, err := s.Version(*version)
	if err != nil {
		return fail(stderr, err)
	}
	var schemaData []byte
	if *schemaFile != "" {
		if schemaData, err = input.ReadFile(*schemaFile, input.MaxSchema, "schema"); err != nil {
			return fail(stderr, err)
		}
	} else if schemaData, err = fs.ReadFile(s.FS, ver.Schema); err != nil {
		return fail(stderr, kiterr.Wrap(kiterr.IO, err, "read %s", ver.Schema))
	}
	schemaDoc, err := canon.Parse(schemaData)
	if err != nil {
		return fail(stderr, kiterr.Wrap(kiterr.SchemaInvalid, err, "schema"))
	}
	recs := make([]*drift.Recording, len(dirs))
	for i, d := range dirs {
		if d == "golden" {
			dir := path.Dir(suite.GoldenPath(ver, *role, "x"))
			recs[i], err = drift.ReadFS(s.FS, dir, fmt.Sprintf("golden v%d %s", *version, *role))
			if err == nil {
				recs[i].Meta.Suite = drift.Suite{Name: s.Manifest.Name, Version: *version, Role: *role, Digest: s.Digest}
			}
		} else {
			recs[i], err = drift.Read(d)
		}
		if err != nil {
			return fail(stderr, err)
		}
		if ctx.Err() != nil {
			return exitInterrupted
		}
	}
	t := drift.NewTimeline(recs, drift.Options{EnumValues: drift.EnumValues(schemaDoc, ver.Env().Discriminators()), Envelope: ver.Env()})
	switch *format {
	case "json":
		err = drift.WriteJSON(stdout, t)
	case "markdown":
		err = drift.WriteMarkdown(stdout, t, *heading)
	case "changelog":
		err = drift.WriteChangelog(stdout, t, *subject, *doc)
	default:
		err = drift.WriteText(stdout, t)
	}
	if err != nil {
		return fail(stderr, kiterr.Wrap(kiterr.IO, err, "write drift report"))
	}
	if t.Breaking() {
		return exitFail
	}
	return exitPass
}
