package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"math"
	"os"
	"runtime/debug"
	"strconv"
	"strings"
	"time"

	"github.com/conform-kit/conform/internal/canon"
	"github.com/conform-kit/conform/internal/compat"
	"github.com/conform-kit/conform/internal/input"
	"github.com/conform-kit/conform/internal/kiterr"
	"github.com/conform-kit/conform/internal/report"
)

// cmdCompat implements `conform compat OLD.json NEW.json`: it classifies the
// changes between two JSON Schemas (internal/compat, docs/compat.md). Flags
// may come before or after the two files. Exit status: 0 when nothing breaks
// in the chosen direction (at the --fail-on level, ignore entries applied),
// 1 when something does, 2 for a usage error or bad input (unreadable file,
// bad JSON, remote or dangling $ref, unsupported draft, a schema its
// meta-schema rejects), 3 when --timeout passed (COMPAT_TIMEOUT) or the
// process's resident memory passed --memory (COMPAT_MEMORY), 130 when interrupted. With --pairs
// FILE it compares every pair of FILE in one process (compat_pairs.go).
func cmdCompat(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	fl := flag.NewFlagSet("compat", flag.ContinueOnError)
	fl.SetOutput(stderr)
	direction := fl.String("direction", "both", "compatibility that must hold: reader (new reads old messages), writer (old consumers read new messages) or both")
	format := fl.String("format", "text", "output format: text, json or github (workflow commands)")
	strictOpen := fl.Bool("strict-open", false, "a constrained property added to or removed from an open object is BREAKING")
	enumAdditive := fl.Bool("enum-added-additive", false, "an enum value added is ADDITIVE (default: BREAKING for writers)")
	formatAnnotation := fl.Bool("format-annotation", false, "treat format as an annotation: format changes are ADDITIVE")
	requiredDefault := fl.Bool("required-default-additive", false, "a property with a default that becomes required is ADDITIVE")
	noMetaschema := fl.Bool("no-metaschema", false, "do not validate the schemas against their draft's meta-schema first (default: an invalid schema is SCHEMA_INVALID, exit 2)")
	defaultDraft := fl.String("default-draft", "2020-12", "draft of a schema without $schema: 2020-12, 2019-09, draft-07, draft-06 or draft-04")
	timeout := fl.Duration("timeout", 2*time.Minute, "give up after this long with COMPAT_TIMEOUT (exit 3); 0: no bound")
	memory := fl.String("memory", "1GiB", "give up with COMPAT_MEMORY (exit 3) when the process's resident memory passes this many bytes (suffix KiB, MiB or GiB); 0: no bound")
	ignoreFile := fl.String("ignore", "", "file of accepted findings: lines RULE_ID, /json/pointer or RULE_ID /json/pointer")
	severityFile := fl.String("severity-levels", "", "file of RULE_ID LEVEL lines (error, warning, info, none) for BREAKING findings")
	failOn := fl.String("fail-on", "error", "exit 1 for findings of this severity or worse: error or warning")
	pairsFile := fl.String("pairs", "", "compare many pairs in one process: a file (- for stdin) of JSON lines {id, old or old_file, new or new_file, direction, default_draft, strict_open}; one JSON line per pair on stdout")
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
	if *pairsFile != "" && len(files) != 0 {
		return usageError(stderr, "compat", "--pairs takes no schema files; got %d", len(files))
	}
	if *pairsFile == "" && len(files) != 2 {
		return usageError(stderr, "compat", "want two schema files, OLD.json and NEW.json; got %d (conform compat -h)", len(files))
	}
	if *format != "text" && *format != "json" && *format != "github" {
		return usageError(stderr, "compat", "--format must be text, json or github")
	}
	if *failOn != compat.SeverityError && *failOn != compat.SeverityWarning {
		return usageError(stderr, "compat", "--fail-on must be error or warning")
	}
	if *timeout < 0 {
		return usageError(stderr, "compat", "--timeout must not be negative")
	}
	memLimit, err := parseBytes(*memory)
	if err != nil {
		return usageError(stderr, "compat", "--memory: %v", err)
	}
	if memLimit > 0 {
		// the collector works harder near the bound, so the heap the
		// prover reads is mostly live data (runtime/debug.SetMemoryLimit)
		defer debug.SetMemoryLimit(debug.SetMemoryLimit(memLimit))
	} else {
		memLimit = -1
	}
	defer tuneCompatGC(memLimit)()
	var policy compat.Policy
	for _, pf := range []struct {
		path  string
		parse func(r io.Reader) error
	}{
		{*ignoreFile, func(r io.Reader) (err error) { policy.Ignore, err = compat.ParseIgnore(r); return }},
		{*severityFile, func(r io.Reader) (err error) { policy.Severity, err = compat.ParseSeverities(r); return }},
	} {
		if pf.path == "" {
			continue
		}
		data, err := input.ReadFile(pf.path, input.MaxText, "policy")
		if err != nil {
			fmt.Fprintf(stderr, "conform compat: %v\n", err)
			return exitUsage
		}
		err = pf.parse(bytes.NewReader(data))
		if err != nil {
			fmt.Fprintf(stderr, "conform compat: %s: %v\n", pf.path, err)
			return exitUsage
		}
	}
	opt := compat.Options{
		Direction:               *direction,
		StrictOpen:              *strictOpen,
		EnumAddedAdditive:       *enumAdditive,
		FormatAnnotation:        *formatAnnotation,
		RequiredDefaultAdditive: *requiredDefault,
		DefaultDraft:            *defaultDraft,
		NoMetaschema:            *noMetaschema,
		MemoryLimit:             memLimit,
	}
	if *pairsFile != "" {
		return compatPairs(ctx, *pairsFile, pairsConfig{opt: opt, policy: policy, failOn: *failOn, timeout: *timeout}, os.Stdin, stdout, stderr)
	}
	var docs [2]any
	var raw [2][]byte
	for i, f := range files {
		data, err := input.ReadFile(f, input.MaxSchema, "schema")
		if err != nil {
			fmt.Fprintf(stderr, "conform compat: %v\n", err)
			return exitUsage
		}
		raw[i] = data
		if docs[i], err = readSchema(data); err != nil {
			fmt.Fprintf(stderr, "conform compat: %s: %v\n", f, err)
			return exitUsage
		}
	}
	if *timeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, *timeout)
		defer cancel()
	}
	rep, err := compareBounded(ctx, docs[0], docs[1], opt)
	if err != nil {
		fmt.Fprintf(stderr, "conform compat: %v\n", err)
		return compatErrorExit(err)
	}
	for _, e := range policy.Apply(&rep) {
		fmt.Fprintf(stderr, "conform compat: warning: %s line %d (%s %s) matched no finding\n", *ignoreFile, e.Line, e.Rule, e.Pointer)
	}
	switch *format {
	case "json":
		if err := writeJSONIndent(stdout, rep); err != nil {
			fmt.Fprintf(stderr, "conform compat: write report: %v\n", err)
			return exitBroken
		}
	case "github":
		writeCompatGitHub(stdout, rep, files[1], raw[1])
	default:
		writeCompatText(stdout, rep, *direction)
	}
	if rep.Fails(*failOn) {
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

// writeCompatText prints one line per finding, then how it was decided
// (the witness, the proof, or "unchecked"), then a summary line.
func writeCompatText(w io.Writer, rep compat.Report, direction string) {
	ruleWidth := 0
	for _, f := range rep.Findings {
		ruleWidth = max(ruleWidth, len(f.Rule))
	}
	for _, f := range rep.Findings {
		verdict := f.Verdict
		if f.Ignored {
			verdict = "IGNORED"
		}
		fmt.Fprintf(w, "%-8s %-6s  %-*s  %s: %s\n", verdict, f.Direction, ruleWidth, f.Rule, showPointer(f.Pointer), f.Message)
		if line := evidenceLine(f); line != "" {
			fmt.Fprintf(w, "         %s\n", line)
		}
	}
	summary := fmt.Sprintf("compat (%s): %d breaking, %d additive", direction, rep.Breaking, rep.Additive)
	if rep.Ignored > 0 {
		summary += fmt.Sprintf(", %d ignored", rep.Ignored)
	}
	fmt.Fprintln(w, summary)
}

// evidenceLine says how a checked finding was decided.
func evidenceLine(f compat.Finding) string {
	switch f.Evidence {
	case compat.EvidenceWitness:
		wt := f.Witness
		inst, err := canon.Canonical(wt.Instance)
		if err != nil {
			inst = []byte(fmt.Sprint(wt.Instance))
		}
		acc := func(b bool) string {
			if b {
				return "accepts"
			}
			return "rejects"
		}
		return fmt.Sprintf("witness (%s): %s: old %s %s, new %s %s", wt.Direction, inst, showPointer(wt.OldPointer), acc(wt.OldAccepts), showPointer(wt.NewPointer), acc(wt.NewAccepts))
	case compat.EvidenceProof:
		return f.Proof
	case compat.EvidenceUnchecked:
		if f.Verdict == compat.VerdictBreaking {
			return "unchecked: no witness found and no proof that it is harmless"
		}
	}
	return ""
}

// writeCompatGitHub prints GitHub Actions workflow commands annotated on
// the new file at the line and column of the finding's pointer (for a
// removed subject, of its nearest ancestor there): ::error, ::warning or
// ::notice by severity; ignored findings are left out.
func writeCompatGitHub(w io.Writer, rep compat.Report, file string, data []byte) {
	for _, f := range rep.Findings {
		if f.Ignored {
			continue
		}
		cmd := "notice"
		switch f.Severity {
		case compat.SeverityError:
			cmd = "error"
		case compat.SeverityWarning:
			cmd = "warning"
		}
		line, col, _ := compat.Locate(data, f.Pointer)
		msg := fmt.Sprintf("%s %s: %s", f.Direction, showPointer(f.Pointer), f.Message)
		if ev := evidenceLine(f); ev != "" {
			msg += "\n" + ev
		}
		fmt.Fprintf(w, "::%s file=%s,line=%d,col=%d,title=%s::%s\n", cmd, report.EscapeWorkflowProperty(file), line, col, report.EscapeWorkflowProperty(f.Rule), report.EscapeWorkflowData(msg))
	}
	fmt.Fprintf(w, "compat: %d breaking, %d additive\n", rep.Breaking, rep.Additive)
}

// readSchema decodes a schema document with canon.Parse (strict RFC 8259:
// UTF-8, no duplicate names). A schema may hold an integer that binary64
// cannot represent (a default or an enum value beyond ±2^53, such as an
// int64 or uint64 limit): canon refuses it (JSON_NUMBER_INEXACT) because it
// canonicalizes values, but a schema is only read, so such a document is
// decoded again with its numbers kept as written (json.Number); the
// validator and the prover compare them exactly.
func readSchema(data []byte) (any, error) {
	v, err := canon.Parse(data)
	if kiterr.CodeOf(err) != kiterr.JSONNumberInexact {
		return v, err
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	if err := dec.Decode(&v); err != nil {
		return nil, kiterr.Wrap(kiterr.JSONSyntax, err, "decode")
	}
	return v, nil
}

// parseBytes reads a byte count: digits with an optional KiB, MiB or GiB
// suffix ("512MiB", "1GiB", "0").
func parseBytes(s string) (int64, error) {
	mult := int64(1)
	num := s
	for _, u := range []struct {
		suffix string
		mult   int64
	}{{"KiB", 1 << 10}, {"MiB", 1 << 20}, {"GiB", 1 << 30}} {
		if strings.HasSuffix(s, u.suffix) {
			num, mult = strings.TrimSuffix(s, u.suffix), u.mult
			break
		}
	}
	n, err := strconv.ParseInt(num, 10, 64)
	if err != nil || n < 0 || n > math.MaxInt64/mult {
		return 0, fmt.Errorf("%q is not a byte count (digits with an optional KiB, MiB or GiB suffix)", s)
	}
	return n * mult, nil
}

// compatErrorExit is the exit status of a Compare error.
func compatErrorExit(err error) int {
	switch kiterr.CodeOf(err) {
	case kiterr.Interrupted:
		return exitInterrupted
	case kiterr.CompatTimeout, kiterr.CompatMemory:
		return exitBroken
	}
	return exitUsage
}

// tuneCompatGC trades memory for CPU in compat unless the caller set GOGC
// or GOMEMLIMIT: the heap may grow to 5x its live size (GOGC=400) instead
// of twice. The prover and the witness search allocate short-lived
// conjunctions and candidate values; at GOGC=100 the collector took a
// quarter to a third of the CPU of the large pairs of bench/compat-large
// (bench/README.md). The --memory bound (bound > 0) stays the soft memory
// limit cmdCompat set, so near it the collector works as hard as before
// and COMPAT_MEMORY still trips when the live heap nears the bound; with
// no bound (bound < 0) a soft limit of 1 GiB keeps the larger garbage in
// check. The returned function restores both settings.
func tuneCompatGC(bound int64) (restore func()) {
	if os.Getenv("GOGC") != "" || os.Getenv("GOMEMLIMIT") != "" {
		return func() {}
	}
	percent := debug.SetGCPercent(400)
	limit := debug.SetMemoryLimit(-1) // reads the current limit
	if bound < 0 {
		debug.SetMemoryLimit(compat.DefaultMemoryLimit)
	}
	return func() {
		debug.SetGCPercent(percent)
		debug.SetMemoryLimit(limit)
	}
}

// compatGrace is how long compareBounded waits, once ctx is done, for
// Compare to notice it before answering on its behalf.
const compatGrace = 500 * time.Millisecond

// compareBounded is compat.Compare that returns within compatGrace of
// ctx ending (--timeout, a signal) even if Compare is inside a step that
// does not read ctx (a meta-schema validation of a large document, one
// validator call): the error is then COMPAT_TIMEOUT (deadline) or
// INTERRUPTED, as Compare's own, and the abandoned Compare ends at its
// next context check (the command exits right after).
func compareBounded(ctx context.Context, old, new any, opt compat.Options) (compat.Report, error) {
	type result struct {
		rep compat.Report
		err error
	}
	done := make(chan result, 1)
	go func() {
		rep, err := compat.Compare(ctx, old, new, opt)
		done <- result{rep, err}
	}()
	select {
	case r := <-done:
		return r.rep, r.err
	case <-ctx.Done():
	}
	grace := time.NewTimer(compatGrace)
	defer grace.Stop()
	select {
	case r := <-done:
		return r.rep, r.err
	case <-grace.C:
	}
	if errors.Is(ctx.Err(), context.DeadlineExceeded) {
		return compat.Report{}, kiterr.Wrap(kiterr.CompatTimeout, ctx.Err(), "compare schemas: the time bound was reached (--timeout)")
	}
	return compat.Report{}, kiterr.Wrap(kiterr.Interrupted, ctx.Err(), "compare schemas")
}
