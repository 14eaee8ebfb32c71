package main

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"strings"

	conform "github.com/conform-kit/conform"
	"github.com/conform-kit/conform/internal/canon"
	"github.com/conform-kit/conform/internal/input"
	"github.com/conform-kit/conform/internal/kiterr"
	"github.com/conform-kit/conform/internal/report"
	"github.com/conform-kit/conform/internal/schema"
	"github.com/conform-kit/conform/runner"
)

const reportUsage = `usage: conform report <command> [flags] FILE...

commands:
  merge   combine the JSON reports of all shards of a run (run --shard i/n) into one report and one verdict
  show    print a JSON report in another format (text, json, junit, github)

Both exit with the status of the report they print (0, 1, 2 or 130, as run does),
or 2 when a file is not a report (REPORT_INVALID) or the shards do not belong
together (SHARD_INVALID, SHARD_MISSING, SHARD_DUPLICATE, SHARD_SUITE_MISMATCH,
SHARD_KIT_MISMATCH, SHARD_IUT_MISMATCH, SHARD_SELECTION_MISMATCH). merge also
re-checks each result against its findings, its expected and actual bytes and
the suite's golden files (REPORT_INVALID when one does not follow from them);
reports are not signed, so it cannot prove that the IUT wrote those bytes.
`

// cmdReport is `conform report merge|show`: reports read back from their
// JSON form (schemas/report.schema.json).
func cmdReport(args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 {
		fmt.Fprint(stderr, reportUsage)
		return exitUsage
	}
	sub, rest := args[0], args[1:]
	switch sub {
	case "merge", "show":
	case "-h", "--help", "help":
		fmt.Fprint(stdout, reportUsage)
		return exitPass
	default:
		return usageError(stderr, "report", "unknown command %q (merge or show)", sub)
	}
	fl := flag.NewFlagSet("report "+sub, flag.ContinueOnError)
	format := fl.String("format", "text", "report format: "+reportFormats)
	color := colorFlag(fl)
	out := fl.String("out", "", "write the report to `file` (default: stdout), atomically")
	verbose := fl.Bool("v", false, "also show the findings (notes) of passing vectors")
	fileRoot := fl.String("file-root", "", "`dir` joined before vector paths in GitHub annotations (the --suite directory of the run)")
	suiteDir := fl.String("suite", "", "merge: the suite the shards were run with (an embedded suite's `name` or a suite root dir; default: control, embedded), against which each result is re-checked")
	if code, ok := parseFlags(fl, rest, stdout, stderr); !ok {
		return code
	}
	if !validFormat(*format) {
		return usageError(stderr, "report "+sub, "--format must be %s", reportFormats)
	}
	files := fl.Args()
	switch {
	case sub == "show" && len(files) != 1:
		return usageError(stderr, "report show", "give one JSON report file")
	case sub == "merge" && len(files) == 0:
		return usageError(stderr, "report merge", "give the JSON reports of all shards")
	}
	o := output{format: *format, out: *out, verbose: *verbose, fileRoot: *fileRoot}
	if err := o.check(); err != nil {
		return fail(stderr, err)
	}
	var ok bool
	if o.color, ok = useColor(*color, *out, stdout); !ok {
		return usageError(stderr, "report "+sub, "--color must be auto, always or never")
	}
	reports := make([]*runner.Report, len(files))
	for i, f := range files {
		r, err := readReport(f)
		if err != nil {
			return fail(stderr, err)
		}
		reports[i] = r
	}
	rep := reports[0]
	if sub == "merge" {
		s, err := openSuite(*suiteDir, false)
		if err != nil {
			return fail(stderr, err)
		}
		m, err := runner.Merge(s, reports)
		if err != nil {
			return fail(stderr, err)
		}
		rep = m
	}
	if err := o.run(stdout, stderr, rep); err != nil {
		return fail(stderr, err)
	}
	if *out != "" || *format == "json" || *format == "junit" {
		fmt.Fprintln(stderr, verdictSummary(rep))
	}
	return rep.ExitCode()
}

// verdictSummary is the counts and verdict line printed on stderr when the
// report itself goes elsewhere.
func verdictSummary(rep *runner.Report) string {
	c := rep.Summary
	return fmt.Sprintf("%d passed, %d failed, %d xfail, %d xpass, %d informational, %d invalid, %d not run (of %d)\n%s",
		c.Passed, c.Failed, c.XFail, c.XPass, c.Informational, c.Invalid, c.NotRun, c.Total, report.VerdictLine(rep))
}

// readReport reads a JSON report (conform run --format json): it must
// validate against schemas/report.schema.json of the embedded suite,
// decode into [runner.Report], and its summary and verdict must follow
// from its results. Errors: PATH_NOT_FOUND, REPORT_INVALID.
func readReport(name string) (*runner.Report, error) {
	data, err := input.ReadFile(name, input.MaxReport, "report")
	if err != nil {
		return nil, err
	}
	doc, err := canon.Parse(data)
	if err != nil {
		return nil, kiterr.Wrap(kiterr.ReportInvalid, err, "report %s is not JSON", name)
	}
	sch, err := schema.NewSet(conform.Suite()).Compile("schemas/report.schema.json")
	if err != nil {
		return nil, err
	}
	if viol := sch.Validate(doc); len(viol) > 0 {
		msgs := make([]string, 0, 3)
		for i, v := range viol {
			if i == 3 {
				msgs = append(msgs, fmt.Sprintf("and %d more", len(viol)-3))
				break
			}
			msgs = append(msgs, v.String())
		}
		return nil, kiterr.New(kiterr.ReportInvalid, "report %s does not validate against schemas/report.schema.json: %s", name, strings.Join(msgs, "; "))
	}
	var r runner.Report
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&r); err != nil {
		return nil, kiterr.Wrap(kiterr.ReportInvalid, err, "report %s", name)
	}
	summary, verdict := r.Summary, r.Verdict
	r.Recount()
	if r.Summary != summary || r.Verdict != verdict {
		return nil, kiterr.New(kiterr.ReportInvalid, "report %s: its summary or verdict (%s) does not follow from its results (%s)", name, verdict, r.Verdict)
	}
	return &r, nil
}
