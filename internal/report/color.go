package report

import "github.com/conform-kit/conform/internal/result"

// ANSI SGR sequences of the text and compact reports (TextOptions.Color).
const (
	green  = "\x1b[32m"
	yellow = "\x1b[33m"
	red    = "\x1b[31m"
	dim    = "\x1b[2m"
	reset  = "\x1b[0m"
)

// paint wraps s (the kit's own words, never IUT text) in the colour c when
// on is set and c is not "".
func paint(on bool, c, s string) string {
	if !on || c == "" {
		return s
	}
	return c + s + reset
}

// statusColor is the colour of a result's status: green PASS, yellow
// XFAIL, red for a failure of a required or recommended vector (and XPASS,
// INVALID), dim for NOT_RUN and for an informational vector that did not
// pass (never red: it decides nothing).
func statusColor(res result.Result) string {
	switch {
	case res.Status == result.Pass:
		return green
	case res.Status == result.XFail:
		return yellow
	case res.Status == result.NotRun:
		return dim
	case res.Failed():
		return red
	}
	return dim
}

// verdictColor is the colour of a verdict line.
func verdictColor(v string) string {
	switch v {
	case result.VerdictCertified:
		return green
	case result.VerdictExcused, result.VerdictPartial:
		return yellow
	case result.VerdictInterrupted:
		return ""
	}
	return red
}
