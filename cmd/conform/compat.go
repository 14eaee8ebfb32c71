package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/conform-kit/conform/internal/canon"
	"github.com/conform-kit/conform/internal/compat"
	"github.com/conform-kit/conform/internal/kiterr"
)

// cmdCompat implements `conform compat OLD.json NEW.json`: it classifies the
// changes between two JSON Schemas (internal/compat, docs/compat.md). Flags
// may come before or after the two files. Exit status: 0 when nothing breaks
// in the chosen direction, 1 when something does, 2 for a usage error or bad
// input (unreadable file, bad JSON, remote or dangling $ref), 130 when
// interrupted.
func cmdCompat(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	fl := flag.NewFlagSet("compat", flag.ContinueOnError)
	fl.SetOutput(stderr)
	direction := fl.String("direction", "both", "compatibility that must hold: reader (new reads old messages), writer (old consumers read new messages) or both")
	format := fl.String("format", "text", "output format: text, json or github (workflow commands)")
	strictOpen := fl.Bool("strict-open", false, "a constrained property added to or removed from an open object is BREAKING")
	enumAdditive := fl.Bool("enum-added-additive", false, "an enum value added is ADDITIVE (default: BREAKING for writers)")
	formatAnnotation := fl.Bool("format-annotation", false, "treat format as an annotation: format changes are ADDITIVE")
	requiredDefault := fl.Bool("required-default-additive", false, "a property with a default that becomes required is ADDITIVE")
	var files []string
	for {
		if code, ok := parseFlags(fl, args, stdout, stderr); !ok {
			return code
		}
		args = fl.Args()
		if len(args) == 0 {
			break
		}
		files = append(files, args[0])
		args = args[1:]
	}
	if len(files) != 2 {
		return usageError(stderr, "compat", "want two schema files, OLD.json and NEW.json; got %d (conform compat -h)", len(files))
	}
	if *format != "text" && *format != "json" && *format != "github" {
		return usageError(stderr, "compat", "--format must be text, json or github")
	}
	var docs [2]any
	for i, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			fmt.Fprintf(stderr, "conform compat: %v\n", kiterr.Wrap(kiterr.IO, err, "read schema %s", f))
			return exitUsage
		}
		if docs[i], err = canon.Parse(data); err != nil {
			fmt.Fprintf(stderr, "conform compat: %s: %v\n", f, err)
			return exitUsage
		}
	}
	rep, err := compat.Compare(ctx, docs[0], docs[1], compat.Options{
		Direction:               *direction,
		StrictOpen:              *strictOpen,
		EnumAddedAdditive:       *enumAdditive,
		FormatAnnotation:        *formatAnnotation,
		RequiredDefaultAdditive: *requiredDefault,
	})
	if err != nil {
		fmt.Fprintf(stderr, "conform compat: %v\n", err)
		if kiterr.CodeOf(err) == kiterr.Interrupted {
			return exitInterrupted
		}
		return exitUsage
	}
	switch *format {
	case "json":
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		enc.SetEscapeHTML(false)
		if err := enc.Encode(rep); err != nil {
			fmt.Fprintf(stderr, "conform compat: write report: %v\n", err)
			return exitBroken
		}
	case "github":
		writeCompatGitHub(stdout, rep, files[1])
	default:
		writeCompatText(stdout, rep, *direction)
	}
	if rep.Breaking > 0 {
		return exitFail
	}
	return exitPass
}

// showPointer prints a JSON Pointer; the root ("") is "#".
func showPointer(p string) string {
	if p == "" {
		return "#"
	}
	return p
}

// writeCompatText prints one line per finding, then a summary line.
func writeCompatText(w io.Writer, rep compat.Report, direction string) {
	ruleWidth := 0
	for _, f := range rep.Findings {
		ruleWidth = max(ruleWidth, len(f.Rule))
	}
	for _, f := range rep.Findings {
		fmt.Fprintf(w, "%-8s %-6s  %-*s  %s: %s\n", f.Verdict, f.Direction, ruleWidth, f.Rule, showPointer(f.Pointer), f.Message)
	}
	fmt.Fprintf(w, "compat (%s): %d breaking, %d additive\n", direction, rep.Breaking, rep.Additive)
}

// writeCompatGitHub prints GitHub Actions workflow commands: ::error for
// BREAKING findings, ::notice for ADDITIVE ones, annotated on file.
func writeCompatGitHub(w io.Writer, rep compat.Report, file string) {
	for _, f := range rep.Findings {
		cmd := "notice"
		if f.Verdict == compat.VerdictBreaking {
			cmd = "error"
		}
		msg := fmt.Sprintf("%s %s: %s", f.Direction, showPointer(f.Pointer), f.Message)
		fmt.Fprintf(w, "::%s file=%s,title=%s::%s\n", cmd, ghProperty(file), ghProperty(f.Rule), ghData(msg))
	}
	fmt.Fprintf(w, "compat: %d breaking, %d additive\n", rep.Breaking, rep.Additive)
}

// ghData escapes a workflow command's message: %, CR and LF.
func ghData(s string) string {
	return strings.NewReplacer("%", "%25", "\r", "%0D", "\n", "%0A").Replace(s)
}

// ghProperty escapes a workflow command's property value: as ghData, plus
// ":" and ",".
func ghProperty(s string) string {
	return strings.NewReplacer("%", "%25", "\r", "%0D", "\n", "%0A", ":", "%3A", ",", "%2C").Replace(s)
}
