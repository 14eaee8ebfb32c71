package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"strings"

	"github.com/conform-kit/conform/internal/frozen"
	"github.com/conform-kit/conform/internal/input"
	"github.com/conform-kit/conform/internal/kiterr"
)

// cmdFrozen implements `conform frozen`: the frozen-v1 gate
// (internal/frozen). It runs compat from the published schema to the
// working copy in both directions and fails on anything that is not
// additive, or on an additive change without its dated changelog entry.
// Exit status: 0 the gate passes, 1 it fails, 2 usage or unreadable input.
func cmdFrozen(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	fl := flag.NewFlagSet("frozen", flag.ContinueOnError)
	fl.SetOutput(stderr)
	published := fl.String("published", "published/control.v1.json", "the last published schema `file`")
	working := fl.String("working", "schemas/control.v1.json", "the working copy `file`")
	changelog := fl.String("changelog", "COMPATIBILITY.md", "`file` whose \"## Additive changelog\" section holds the dated entries")
	date := fl.String("date", "", "publication `date` of --published (default: \"published\" in its .meta.json sibling)")
	format := fl.String("format", "text", "output format: text or json")
	if code, ok := parseFlags(fl, args, stdout, stderr); !ok {
		return code
	}
	if fl.NArg() > 0 {
		return usageError(stderr, "frozen", "unexpected argument %q (conform frozen -h lists the flags)", fl.Arg(0))
	}
	if *format != "text" && *format != "json" {
		return usageError(stderr, "frozen", "--format must be text or json")
	}
	read := func(name string) ([]byte, error) {
		return input.ReadFile(name, input.MaxSchema, "input")
	}
	in := frozen.Input{PublishedDate: *date}
	var err error
	if in.Published, err = read(*published); err != nil {
		return fail(stderr, err)
	}
	if in.Working, err = read(*working); err != nil {
		return fail(stderr, err)
	}
	if in.Changelog, err = read(*changelog); err != nil {
		return fail(stderr, err)
	}
	if in.PublishedDate == "" {
		metaFile := strings.TrimSuffix(*published, ".json") + ".meta.json"
		b, err := read(metaFile)
		if err != nil {
			return fail(stderr, err)
		}
		var meta struct {
			Published string `json:"published"`
		}
		if err := json.Unmarshal(b, &meta); err != nil || meta.Published == "" {
			return fail(stderr, kiterr.New(kiterr.Usage, "%s has no \"published\" date (or give --date)", metaFile))
		}
		in.PublishedDate = meta.Published
	}
	res, err := frozen.Check(ctx, in)
	if err != nil {
		if kiterr.CodeOf(err) == kiterr.Interrupted {
			return exitInterrupted
		}
		return fail(stderr, err)
	}
	if *format == "json" {
		if err := writeJSONIndent(stdout, res); err != nil {
			return fail(stderr, kiterr.Wrap(kiterr.IO, err, "write report"))
		}
	} else {
		fmt.Fprintf(stdout, "frozen: %s (published %s) -> %s\n", *published, in.PublishedDate, *working)
		for _, c := range res.Changes {
			note := ""
			switch {
			case !c.Additive:
				note = "  [breaks readers: not allowed in a frozen version]"
			case c.Entry != "":
				note = "  [changelog " + c.Entry + "]"
			default:
				note = fmt.Sprintf("  [no entry dated %s or later in %q names %q]", in.PublishedDate, frozen.ChangelogSection, c.Subject)
			}
			verdict := "ADDITIVE"
			if !c.Additive {
				verdict = "NOT_ADDITIVE"
			}
			fmt.Fprintf(stdout, "%-12s %-28s %s: %s%s\n", verdict, c.Rule, showPointer(c.Pointer), c.Message, note)
		}
		fmt.Fprintf(stdout, "compat --direction reader: %d breaking, %d additive\n", res.Reader.Breaking, res.Reader.Additive)
		fmt.Fprintf(stdout, "compat --direction writer: %d breaking, %d additive\n", res.Writer.Breaking, res.Writer.Additive)
		fmt.Fprintln(stdout, res.Summary())
	}
	if !res.OK() {
		return exitFail
	}
	return exitPass
}
