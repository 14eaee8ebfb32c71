package report

import (
	"encoding/xml"
	"fmt"
	"io"
	"strings"

	"github.com/conform-kit/conform/internal/compare"
	"github.com/conform-kit/conform/runner"
)

type junitSuites struct {
	XMLName  xml.Name     `xml:"testsuites"`
	Name     string       `xml:"name,attr"`
	Tests    int          `xml:"tests,attr"`
	Failures int          `xml:"failures,attr"`
	Errors   int          `xml:"errors,attr"`
	Skipped  int          `xml:"skipped,attr"`
	Suites   []junitSuite `xml:"testsuite"`
}

type junitSuite struct {
	Name       string          `xml:"name,attr"`
	Tests      int             `xml:"tests,attr"`
	Failures   int             `xml:"failures,attr"`
	Errors     int             `xml:"errors,attr"`
	Skipped    int             `xml:"skipped,attr"`
	Time       string          `xml:"time,attr"`
	Properties []junitProperty `xml:"properties>property"`
	Cases      []junitCase     `xml:"testcase"`
}

type junitProperty struct {
	Name  string `xml:"name,attr"`
	Value string `xml:"value,attr"`
}

type junitCase struct {
	Name      string        `xml:"name,attr"`
	Classname string        `xml:"classname,attr"`
	Time      string        `xml:"time,attr"`
	Failure   *junitMessage `xml:"failure,omitempty"`
	Error     *junitMessage `xml:"error,omitempty"`
	Skipped   *junitMessage `xml:"skipped,omitempty"`
	SystemOut string        `xml:"system-out,omitempty"`
	SystemErr string        `xml:"system-err,omitempty"`
}

type junitMessage struct {
	Message string `xml:"message,attr"`
	Type    string `xml:"type,attr,omitempty"`
	Body    string `xml:",chardata"`
}

// JUnit writes r as JUnit XML: one testsuite per run, one testcase per
// vector (classname "<suite>.v<N>.<role>"). Failing vectors get <failure>
// (FAIL, SCHEMA_VIOLATION, PROTOCOL_ERROR, XPASS) or <error> (CRASH,
// TIMEOUT, INVALID); XFAIL, NOT_RUN and informational vectors that did not
// pass are <skipped> (with what happened); passing vectors are plain cases.
// Each Problem (suite input that could not be used) is one more case with
// <error> type INVALID, named by its path.
func JUnit(w io.Writer, r *runner.Report) error {
	s := junitSuiteOf(r)
	doc := junitSuites{Name: r.Suite.Name, Tests: s.Tests, Failures: s.Failures, Errors: s.Errors, Skipped: s.Skipped, Suites: []junitSuite{s}}
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
func junitSuiteOf(r *runner.Report) junitSuite {
	class := fmt.Sprintf("conform.v%d.%s", r.Suite.Version, r.Suite.Role)
	s := junitSuite{Name: r.Implementation.Name, Tests: len(r.Results),
		Properties: []junitProperty{
			{"suite", r.Suite.Name}, {"digest", r.Suite.Digest},
			{"command", shellQuote(r.Implementation.Command)},
		}}
	var total int64
	for _, res := range r.Results {
		total += res.DurationMS
		c := junitCase{Name: res.ID, Classname: class, Time: seconds(res.DurationMS)}
		body := details(res)
		switch {
		case res.Status == runner.Pass:
		case res.Status == runner.XFail:
			c.Skipped = &junitMessage{Message: "expected failure: " + res.Reason}
			s.Skipped++
		case res.Status == runner.NotRun:
			c.Skipped = &junitMessage{Message: "not run: interrupted"}
			s.Skipped++
		case !res.Failed():
			c.Skipped = &junitMessage{Message: fmt.Sprintf("informational: %s", res.Status)}
			c.SystemOut = body
			s.Skipped++
		case res.Status == runner.Crash || res.Status == runner.Timeout || res.Status == runner.Invalid:
			c.Error = &junitMessage{Message: summaryLine(res), Type: string(res.Status), Body: body}
			s.Errors++
		default:
			c.Failure = &junitMessage{Message: summaryLine(res), Type: string(res.Status), Body: body}
			s.Failures++
		}
		if res.Stderr != "" && res.Failed() {
			c.SystemErr = sanitize(res.Stderr)
		}
		s.Cases = append(s.Cases, c)
	}
	// Suite input that could not be used (a vector file that does not load
	// or fails its digest) is an error case of its own, so a CI reading
	// only the JUnit file cannot mistake the run for green.
	for _, p := range r.Problems {
		name := p.Path
		if name == "" {
			name = p.Code
		}
		s.Cases = append(s.Cases, junitCase{Name: name, Classname: class, Time: seconds(0),
			Error: &junitMessage{Message: p.Code + ": " + sanitize(p.Message), Type: "INVALID", Body: sanitize(p.Message)}})
		s.Tests++
		s.Errors++
	}
	s.Time = seconds(total)
	return s
}

// summaryLine is a failure's headline: the first finding that carries the
// result's status (the cause), else the first that carries any status, else
// the status itself; notes such as HOST_SENT never head a failure.
func summaryLine(res runner.Result) string {
	f := headline(res)
	if f == nil {
		return string(res.Status)
	}
	return sanitize(f.Code + ": " + f.Message)
}

func headline(res runner.Result) *runner.Finding {
	var any *runner.Finding
	for i := range res.Findings {
		f := &res.Findings[i]
		if f.Status == res.Status {
			return f
		}
		if f.Status != "" && any == nil {
			any = f
		}
	}
	if any == nil && len(res.Findings) > 0 && res.Status == runner.XFail {
		return &res.Findings[len(res.Findings)-1]
	}
	return any
}

func details(res runner.Result) string {
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
