package double

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
)

// Exit statuses of [Main].
const (
	exitPass   = 0
	exitFail   = 1
	exitUsage  = 2
	exitBroken = 3
)

// doubleFlags are the agent double's own flags, written by the runner's
// wrapper before the host's argv.
type doubleFlags struct {
	plan, transcript, observed, argv, end string
	maxLine                               int
	// host is the host's argv after the program name.
	host []string
}

// parseDoubleFlags takes the double's own flags off the front of args; the
// first argument that is not one of them starts the host's argv (the
// wrapper ends the double's flags with "--", which is dropped).
func parseDoubleFlags(args []string) (*doubleFlags, error) {
	f := &doubleFlags{maxLine: DefaultMaxLine}
	for i := 0; i < len(args); i++ {
		var dst *string
		switch args[i] {
		case "--plan":
			dst = &f.plan
		case "--transcript":
			dst = &f.transcript
		case "--observed":
			dst = &f.observed
		case "--argv":
			dst = &f.argv
		case "--end":
			dst = &f.end
		case "--max-line":
			if i+1 >= len(args) {
				return nil, errors.New("--max-line needs a value")
			}
			if _, err := fmt.Sscan(args[i+1], &f.maxLine); err != nil || f.maxLine <= 0 {
				return nil, fmt.Errorf("bad --max-line %q", args[i+1])
			}
			i++
			continue
		case "--":
			f.host = args[i+1:]
			return f, nil
		default:
			f.host = args[i:]
			return f, nil
		}
		if i+1 >= len(args) {
			return nil, fmt.Errorf("%s needs a value", args[i])
		}
		*dst = args[i+1]
		i++
	}
	return f, nil
}

// Main is the hidden "conform agent-double" command: the stand-in for
// the Claude Code CLI that a spawned host starts through the runner's
// wrapper (claude on its PATH, CONFORM_AGENT). It appends the host's argv
// to the --argv file; answers --version, -v and -V as CLI 2.1.332 does;
// otherwise plays the plan over stdin/stdout ([Run]) and writes the
// end record ([Stats]) to the --end file. Only the first session of
// a vector plays the plan; a later one (the host started the agent again)
// plays nothing and its lines go to the observed file. Exit status: 0, or
// 1 when the host wrote a malformed line (the CLI exits 1 on a line it
// cannot parse); 2 for a bad plan or missing flags, 3 when a record file
// cannot be written.
func Main(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	f, err := parseDoubleFlags(args)
	if err != nil {
		fmt.Fprintf(stderr, "conform agent-double: USAGE: %v\n", err)
		return exitUsage
	}
	if f.plan == "" || f.transcript == "" || f.observed == "" || f.argv == "" || f.end == "" {
		fmt.Fprintln(stderr, "usage: conform agent-double --plan FILE --transcript FILE --observed FILE --argv FILE --end FILE [--max-line BYTES] [--] [host's argv...]")
		return exitUsage
	}
	if err := appendJSONLine(f.argv, f.host); err != nil {
		fmt.Fprintf(stderr, "conform agent-double: %v\n", err)
		return exitBroken
	}
	if IsVersionProbe(f.host) {
		io.WriteString(stdout, VersionLine)
		return exitPass
	}
	pl, err := ReadPlan(f.plan)
	if err != nil {
		fmt.Fprintf(stderr, "conform agent-double: %v\n", err)
		return exitUsage
	}
	transcript, endPath := f.transcript, f.end
	// The first session claims the plan; a later one records into the
	// observed file and plays nothing.
	claim, err := os.OpenFile(f.end+".claim", os.O_CREATE|os.O_EXCL|os.O_WRONLY, 0o600)
	switch {
	case err == nil:
		claim.Close()
	case errors.Is(err, fs.ErrExist):
		pl = &Plan{TimeoutMS: pl.TimeoutMS}
		transcript, endPath = f.observed, ""
	default:
		fmt.Fprintf(stderr, "conform agent-double: %v\n", err)
		return exitBroken
	}
	open := func(p string) (*os.File, error) {
		return os.OpenFile(p, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o600)
	}
	tf, err := open(transcript)
	if err != nil {
		fmt.Fprintf(stderr, "conform agent-double: %v\n", err)
		return exitBroken
	}
	defer tf.Close()
	of, err := open(f.observed)
	if err != nil {
		fmt.Fprintf(stderr, "conform agent-double: %v\n", err)
		return exitBroken
	}
	defer of.Close()
	opt := Options{Plan: pl, Transcript: tf, Observed: of, MaxLine: f.maxLine, HostArgs: f.host}
	if endPath != "" {
		// The outcome is on disk before the host can end the session: a
		// host that kills the agent right after closing its stdin leaves
		// this record, if not the end record (see DecidedSuffix).
		opt.Decided = func(st *Stats) error { return writeEnd(endPath+DecidedSuffix, st) }
	}
	st, err := Run(ctx, opt, stdin, stdout)
	if err != nil {
		fmt.Fprintf(stderr, "conform agent-double: %v\n", err)
		return exitBroken
	}
	if endPath != "" {
		if err := writeEnd(endPath, st); err != nil {
			fmt.Fprintf(stderr, "conform agent-double: %v\n", err)
			return exitBroken
		}
	}
	switch {
	case st.End == EndMalformed:
		fmt.Fprintf(stderr, "conform agent-double: %s: session ended\n", st.Detail)
		return exitFail
	case len(st.Pending) > 0:
		fmt.Fprintf(stderr, "conform agent-double: no control_response to %v\n", st.Pending)
	}
	return exitPass
}

// DecidedSuffix is added to the --end path for the record the double
// writes as soon as a session's outcome is decided ([Options.Decided]):
// the same [Stats] as the end record, but written before the result frame,
// so a host that kills the agent right after closing its stdin cannot take
// it away. The end record, written when the session is over, is the one
// the runner polls for; it reads the decided record when there is no end
// record.
const DecidedSuffix = ".decided"

// RecordArgv appends the argv a host started the agent with to the --argv
// record file at path (one JSON array a line), as the double does; the
// runner reports each line as a HOST_ARGV note.
func RecordArgv(path string, argv []string) error { return appendJSONLine(path, argv) }

// WriteEnd writes the --end record the runner polls for (see [Stats]), as
// the double does at the end of a session: another agent that stands in for
// the double (the real CLI's tap of conform run --agent) writes it too.
func WriteEnd(path string, st *Stats) error { return writeEnd(path, st) }

// appendJSONLine appends v as one JSON line to the file at path.
func appendJSONLine(path string, v any) error {
	b, err := json.Marshal(v)
	if err != nil {
		return err
	}
	fh, err := os.OpenFile(path, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o600)
	if err != nil {
		return err
	}
	if _, err := fh.Write(append(b, '\n')); err != nil {
		fh.Close()
		return err
	}
	return fh.Close()
}

// writeEnd writes the end record atomically (a temporary file renamed), so
// the runner, which polls for it, never reads half of it.
func writeEnd(path string, st *Stats) error {
	b, err := json.Marshal(st)
	if err != nil {
		return err
	}
	tmp := path + ".tmp"
	if err := os.WriteFile(tmp, b, 0o600); err != nil {
		return err
	}
	return os.Rename(tmp, path)
}
