package runner

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/conform-kit/conform/internal/canon"
	"github.com/conform-kit/conform/internal/kiterr"
	"github.com/conform-kit/conform/internal/result"
	"github.com/conform-kit/conform/internal/suite"
)

// ReadReport reads a saved JSON report (conform run --format json, or
// --json-out) and checks it before anything is built from it: data must be
// one strict JSON text (no duplicate member, valid UTF-8; internal/canon),
// follow schemas/report.schema.json of s, and its summary and verdict must
// be those its results, problems, stale entries, preflight and flags give
// ([Report.Recount]). The report may have been made with another suite
// than s: only its format is checked against s. Errors: REPORT_INVALID
// (naming the first fault), SCHEMA_INVALID.
func ReadReport(s *Suite, data []byte) (*Report, error) {
	v, err := canon.Parse(data)
	if err != nil {
		return nil, kiterr.Wrap(kiterr.ReportInvalid, err, "not one strict JSON text")
	}
	sch, err := s.Meta.Compile(suite.ReportSchemaFile)
	if err != nil {
		return nil, err
	}
	if viol := sch.Validate(v); len(viol) > 0 {
		msgs := make([]string, len(viol))
		for i, x := range viol {
			msgs[i] = x.String()
		}
		return nil, kiterr.New(kiterr.ReportInvalid, "does not follow %s: %s", suite.ReportSchemaFile, strings.Join(msgs, "; "))
	}
	var rep Report
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&rep); err != nil {
		return nil, kiterr.Wrap(kiterr.ReportInvalid, err, "decode")
	}
	for _, res := range rep.Results {
		if !result.StatusFollows(res) {
			st, _ := result.Judge(res.Level, res.Findings)
			return nil, kiterr.New(kiterr.ReportInvalid, "result %s is %s, but its findings give %s (docs/running.md \"Verdicts\": a vector's status is the most severe status among its findings)", res.ID, res.Status, st)
		}
	}
	if err := checkClasses(&rep); err != nil {
		return nil, err
	}
	summary, verdict := rep.Summary, rep.Verdict
	classes, certifies := slices.Clone(rep.Classes), rep.Certifies
	rep.Recount()
	if !slices.Equal(rep.Classes, classes) {
		return nil, kiterr.New(kiterr.ReportInvalid, "its classes do not count its results (the counts of each class are those of its results)")
	}
	if !slices.Equal(rep.Certifies, certifies) {
		return nil, kiterr.New(kiterr.ReportInvalid, "its certifies %q is not its judged classes %q", certifies, rep.Certifies)
	}
	if rep.Summary != summary {
		return nil, kiterr.New(kiterr.ReportInvalid, "its summary does not count its results: it says %s, the results give %s", countsText(summary), countsText(rep.Summary))
	}
	if rep.Verdict != verdict {
		return nil, kiterr.New(kiterr.ReportInvalid, "its verdict %s does not follow from its results, which give %s", verdict, rep.Verdict)
	}
	return &rep, nil
}

func countsText(c Counts) string {
	return fmt.Sprintf("%d passed, %d failed, %d xfail, %d xpass, %d informational, %d invalid, %d not run (of %d; exact parity %d, differs %d)",
		c.Passed, c.Failed, c.XFail, c.XPass, c.Informational, c.Invalid, c.NotRun, c.Total, c.ParityExact, c.ParityDiffers)
}

// checkClasses checks what a saved report says of conformance classes:
// every result of a report that lists classes names one of them, a
// result SKIPPED as CLASS_NOT_CLAIMED is of a class not judged, and a
// vector of a class not judged was not run. Errors: REPORT_INVALID.
func checkClasses(rep *Report) error {
	if len(rep.Classes) == 0 {
		return nil
	}
	judged := map[string]bool{}
	for _, c := range rep.Classes {
		if _, dup := judged[c.Name]; dup {
			return kiterr.New(kiterr.ReportInvalid, "class %q is listed twice", c.Name)
		}
		judged[c.Name] = c.Judged
	}
	for _, res := range rep.Results {
		j, ok := judged[res.Class]
		switch {
		case !ok:
			return kiterr.New(kiterr.ReportInvalid, "result %s is of class %q, which the report does not list", res.ID, res.Class)
		case res.NotClaimed() && j:
			return kiterr.New(kiterr.ReportInvalid, "result %s is SKIPPED as CLASS_NOT_CLAIMED, but its class %q is judged", res.ID, res.Class)
		case !j && res.Status != Skipped && res.Status != NotRun && (rep.Preflight == nil || res.ID != rep.Preflight.ID):
			return kiterr.New(kiterr.ReportInvalid, "result %s is %s, but its class %q is not judged (its vectors are SKIPPED)", res.ID, res.Status, res.Class)
		}
	}
	return nil
}
