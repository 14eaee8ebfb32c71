package report

import (
	"encoding/xml"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/conform-kit/conform/internal/compare"
	"github.com/conform-kit/conform/internal/result"
)

// The JUnit XML written here is valid against both the Jenkins xUnit
// plugin's junit-10.xsd and the older junit-4.xsd (copies and their sources
// in testdata/junit-xsd): <testsuites> carries no skipped count, <skipped>
// carries its reason as text (junit-4 allows it no attributes), a test
// case's elements come in junit-4's order, and times have at most three
// decimals (junit-10's SUREFIRE_TIME).
type junitSuites struct {
	XMLName  xml.Name     `xml:"testsuites"`
	Name     string       `xml:"name,attr"`
	Time     string       `xml:"time,attr"`
	Tests    int          `xml:"tests,attr"`
	Failures int          `xml:"failures,attr"`
	Errors   int          `xml:"errors,attr"`
	Suites   []junitSuite `xml:"testsuite"`
}

type junitSuite struct {
	Name       string          `xml:"name,attr"`
	Tests      int             `xml:"tests,attr"`
	Failures   int             `xml:"failures,attr"`
	Errors     int             `xml:"errors,attr"`
	Skipped    int             `xml:"skipped,attr"`
	Time       string          `xml:"time,attr"`
	Timestamp  string          `xml:"timestamp,attr,omitempty"`
	Properties []junitProperty `xml:"properties>property"`
	Cases      []junitCase     `xml:"testcase"`
}

type junitProperty struct {
	Name  string `xml:"name,attr"`
	Value string `xml:"value,attr"`
}

// junitCase lists its elements in the order junit-4.xsd requires.
type junitCase struct {
	Name      string        `xml:"name,attr"`
	Classname string        `xml:"classname,attr"`
	Time      string        `xml:"time,attr"`
	Skipped   *junitText    `xml:"skipped,omitempty"`
	Error     *junitMessage `xml:"error,omitempty"`
	Failure   *junitMessage `xml:"failure,omitempty"`
	SystemOut string        `xml:"system-out,omitempty"`
	SystemErr string        `xml:"system-err,omitempty"`
}

type junitMessage struct {
	Message string `xml:"message,attr"`
	Type    string `xml:"type,attr,omitempty"`
	Body    string `xml:",chardata"`
}

// junitText is an element with text only (<skipped>reason</skipped>).
type junitText struct {
	Body string `xml:",chardata"`
}

// JUnit writes r as JUnit XML: one testsuite per run, one testcase per
// vector (classname "conform.v<N>.<role>", and ".<class>" when the vector
// has a conformance class, so that CI tools group the cases by class); a
// report with classes has a "certifies" property (the judged classes) and
// one "class NAME" property per class saying how it did ([ClassesLine]). Failing vectors get <failure>
// (FAIL, SCHEMA_VIOLATION, PROTOCOL_ERROR, XPASS) or <error> (CRASH,
// TIMEOUT, INVALID), whose message is the finding that decided the status;
// XFAIL, NOT_RUN, SKIPPED and informational vectors that did not pass are
// <skipped> with the reason as text (a SKIPPED vector: "skipped, LEVEL:
// CODE: why", with its own level and the note that says why, such as
// CLASS_NOT_CLAIMED or REQUIREMENT_UNMET; never a failure); passing vectors
// are plain cases. Each Problem
// (suite input that could not be used) is one more case with <error> type
// INVALID, named by its path; each stale expected-failure entry is one
// with <error> type STALE; an interrupted run has one with <error> type
// INTERRUPTED; a preflight that failed outside the selection is a case of
// its own; and a run that exits non-zero with none of these gets one
// <error> case named "verdict". So failures + errors is non-zero exactly
// when the run's exit status is ([result.Report.ExitCode]).
//
// The suite's time is the run's wall time (Report.ElapsedMS, seconds with
// three decimals), its timestamp Report.Started (RFC 3339, UTC; absent
// when unknown); each case's time is its vector's.
func JUnit(w io.Writer, r *result.Report) error {
	s := junitSuiteOf(r)
	doc := junitSuites{Name: r.Suite.Name, Time: s.Time, Tests: s.Tests, Failures: s.Failures, Errors: s.Errors, Suites: []junitSuite{s}}
	return writeJUnit(w, doc)
}

// writeJUnit writes doc as an indented XML document with its header.
func writeJUnit(w io.Writer, doc junitSuites) error {
	if _, err := io.WriteString(w, xml.Header); err != nil {
		return err
	}
	enc := xml.NewEncoder(w)
	enc.Indent("", "  ")
	if err := enc.Encode(doc); err != nil {
		return err
	}
	_, err := io.WriteString(w, "\n")
	return err
}

// junitSuiteOf builds the testsuite element of one report.
func junitSuiteOf(r *result.Report) junitSuite {
	class := fmt.Sprintf("conform.v%d.%s", r.Suite.Version, r.Suite.Role)
	verdict := verdictOf(r)
	s := junitSuite{Name: r.Implementation.Name, Time: seconds(r.ElapsedMS),
		Properties: []junitProperty{
			{"suite", r.Suite.Name}, {"digest", r.Suite.Digest},
			{"command", sanitize(shellQuote(r.Implementation.Command))},
			{"verdict", verdict},
		}}
	if !r.Started.IsZero() {
		s.Timestamp = r.Started.UTC().Format(time.RFC3339)
	}
	if r.Kit.Version != "" {
		s.Properties = append(s.Properties, junitProperty{"kit", r.Kit.String()})
	}
	if r.Shard != nil {
		s.Properties = append(s.Properties, junitProperty{"shard", fmt.Sprintf("%d/%d", r.Shard.Index, r.Shard.Count)})
	}
	s.Properties = append(s.Properties, classProperties(r)...)
	add := func(c junitCase) {
		s.Tests++
		switch {
		case c.Failure != nil:
			s.Failures++
		case c.Error != nil:
			s.Errors++
		case c.Skipped != nil:
			s.Skipped++
		}
		s.Cases = append(s.Cases, c)
	}
	notRun := "not run: the run was interrupted"
	if r.Preflight != nil {
		notRun = fmt.Sprintf("not run: the IUT failed the preflight vector %s (%s)", r.Preflight.ID, r.Preflight.Status)
	}
	preflightShown := false
	for _, res := range r.Results {
		cls := class
		if res.Class != "" {
			cls += "." + sanitize(res.Class)
		}
		add(junitCaseOf(res, cls, notRun))
		if r.Preflight != nil && res.ID == r.Preflight.ID {
			preflightShown = true
		}
	}
	if r.Preflight != nil && !preflightShown {
		add(junitCaseOf(*r.Preflight, class, notRun))
	}
	// Suite input that could not be used (a vector file that does not load
	// or fails its digest) is an error case of its own, so a CI reading
	// only the JUnit file cannot mistake the run for green.
	for _, p := range r.Problems {
		name := p.Path
		if name == "" {
			name = p.Code
		}
		add(junitCase{Name: name, Classname: class, Time: seconds(0),
			Error: &junitMessage{Message: p.Code + ": " + sanitize(p.Message), Type: "INVALID", Body: sanitize(p.Message)}})
	}
	// Run-level outcomes that fail the run without failing a vector.
	for _, id := range r.Stale {
		add(junitCase{Name: "expected failure " + id, Classname: class + ".run", Time: seconds(0),
			Error: &junitMessage{Type: "STALE", Message: sanitize(fmt.Sprintf("stale expected-failure entry %q: it names no vector that can fail (unknown or informational); remove it from the list", id))}})
	}
	if r.Interrupted {
		add(junitCase{Name: "interrupted", Classname: class + ".run", Time: seconds(0),
			Error: &junitMessage{Type: result.VerdictInterrupted, Message: fmt.Sprintf("the run was interrupted (SIGINT, SIGTERM, SIGHUP or SIGQUIT): %d of %d vectors did not run", r.Summary.NotRun, r.Summary.Total)}})
	}
	if r.ExitCode() != 0 && s.Failures+s.Errors == 0 {
		add(junitCase{Name: "verdict", Classname: class + ".run", Time: seconds(0),
			Error: &junitMessage{Type: verdict, Message: sanitize(VerdictLine(r))}})
	}
	return s
}

// classProperties are the properties of a report with classes: what it
// certifies and how each class did ([ClassesLine]); none without classes.
func classProperties(r *result.Report) []junitProperty {
	if len(r.Classes) == 0 {
		return nil
	}
	props := []junitProperty{{"certifies", sanitize(strings.Join(r.Certifies, ", "))}}
	for _, c := range r.Classes {
		props = append(props, junitProperty{"class " + sanitize(c.Name), sanitize(ClassesLine([]result.ClassResult{c}))})
	}
	return props
}

// junitCaseOf maps one result to its test case; notRun is the text of a
// NOT_RUN result's <skipped>.
func junitCaseOf(res result.Result, class, notRun string) junitCase {
	c := junitCase{Name: res.ID, Classname: class, Time: seconds(res.DurationMS)}
	body := details(res)
	switch {
	case res.Status == result.Pass:
	case res.Status == result.XFail:
		c.Skipped = &junitText{Body: sanitize("expected failure: " + res.Reason)}
		c.SystemOut = body
	case res.Status == result.NotRun:
		c.Skipped = &junitText{Body: notRun}
	case res.Status == result.Skipped:
		c.Skipped = &junitText{Body: skipReason(res)}
	case !res.Failed():
		c.Skipped = &junitText{Body: fmt.Sprintf("informational: %s", res.Status)}
		c.SystemOut = body
	case res.Status == result.Crash || res.Status == result.Timeout || res.Status == result.Invalid:
		c.Error = &junitMessage{Message: summaryLine(res), Type: string(res.Status), Body: body}
	default:
		c.Failure = &junitMessage{Message: summaryLine(res), Type: string(res.Status), Body: body}
	}
	if res.Stderr != "" && res.Failed() {
		c.SystemErr = sanitize(res.Stderr)
	}
	return c
}

// skipReason is the <skipped> text of a SKIPPED result: its level and the
// note that says why it was not run.
func skipReason(res result.Result) string {
	code, _, _, msg := result.Cause(res.Status, res.Findings, nil)
	why := code
	if msg != "" {
		why += ": " + msg
	}
	if code == string(result.Skipped) {
		why = "it does not apply to this implementation"
	}
	return sanitize(fmt.Sprintf("skipped, %s: %s", res.Level, why))
}

// summaryLine is a failure's headline: the first finding that carries the
// result's status (the cause), else the first that carries any status, else
// the status itself; notes such as HOST_SENT never head a failure.
func summaryLine(res result.Result) string {
	f := headline(res)
	if f == nil {
		return string(res.Status)
	}
	return sanitize(f.Code + ": " + f.Message)
}

func headline(res result.Result) *result.Finding {
	var any *result.Finding
	for i := range res.Findings {
		f := &res.Findings[i]
		if f.Status == res.Status {
			return f
		}
		if f.Status != "" && any == nil {
			any = f
		}
	}
	if any == nil && len(res.Findings) > 0 && res.Status == result.XFail {
		return &res.Findings[len(res.Findings)-1]
	}
	return any
}

func details(res result.Result) string {
	var b strings.Builder
	for _, f := range res.Findings {
		fmt.Fprintf(&b, "%s: %s\n", f.Code, f.Message)
	}
	if res.Expected != "" || res.Actual != "" {
		fmt.Fprintf(&b, "expected: %s\nactual:   %s\n", res.Expected, res.Actual)
	}
	for _, d := range res.Differences {
		fmt.Fprintf(&b, "%s\n", compare.Render(d))
	}
	return sanitize(b.String())
}

func seconds(ms int64) string { return fmt.Sprintf("%.3f", float64(ms)/1000) }
