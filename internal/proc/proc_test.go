package proc_test

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"os/signal"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/conform-kit/conform/internal/frame"
	"github.com/conform-kit/conform/internal/proc"
)

// The test binary doubles as the fake IUT (protobuf-go's conformance
// pattern): with PROC_TEST_CHILD set it runs one behaviour instead of tests.
const childEnv = "PROC_TEST_CHILD"

func TestMain(m *testing.M) {
	if b := os.Getenv(childEnv); b != "" {
		os.Exit(child(b))
	}
	// As cmd/conform does (Linux): orphans of IUTs come back here, to the
	// sweep. Elsewhere this is unsupported and changes nothing.
	_ = proc.BecomeSubreaper()
	os.Exit(m.Run())
}

func envInt(name string) int {
	n, err := strconv.Atoi(os.Getenv(name))
	if err != nil {
		panic(name + ": " + err.Error())
	}
	return n
}

func sleepForever() {
	for {
		time.Sleep(time.Hour)
	}
}

func child(behaviour string) int {
	switch behaviour {
	case "echo": // copy stdin lines to stdout until EOF
		sc := bufio.NewScanner(os.Stdin)
		for sc.Scan() {
			fmt.Printf("%s\n", sc.Text())
		}
		return 0
	case "write": // write $PROC_TEST_OUT verbatim (Go-quoted) to stdout
		s, err := strconv.Unquote(os.Getenv("PROC_TEST_OUT"))
		if err != nil {
			panic(err)
		}
		os.Stdout.WriteString(s)
		return 0
	case "long": // a line of $PROC_TEST_N bytes, then "after"
		w := bufio.NewWriter(os.Stdout)
		w.WriteString(strings.Repeat("x", envInt("PROC_TEST_N")))
		w.WriteString("\nafter\n")
		w.Flush()
		return 0
	case "stderr": // $PROC_TEST_N bytes of a known pattern to stderr
		n := envInt("PROC_TEST_N")
		os.Stderr.Write(pattern(n))
		return 0
	case "env":
		for _, e := range os.Environ() {
			fmt.Println(e)
		}
		wd, _ := os.Getwd()
		fmt.Println("PWD-IS=" + wd)
		return 0
	case "exit":
		return envInt("PROC_TEST_N")
	case "ignoreterm": // survives SIGTERM and stdin EOF
		signal.Ignore(syscall.SIGTERM)
		fmt.Println("ready")
		sleepForever()
	case "sleeper": // default SIGTERM, ignores stdin
		fmt.Println("ready")
		sleepForever()
	case "exitoneof": // exits 3 once stdin closes
		fmt.Println("ready")
		io.Copy(io.Discard, os.Stdin)
		return 3
	case "grandchild": // leaves a grandchild holding stdout, then exits
		gc := exec.Command(os.Args[0])
		gc.Env = []string{childEnv + "=" + os.Getenv("PROC_TEST_GRANDCHILD")}
		gc.Stdout = os.Stdout
		gc.Stderr = os.Stderr
		if os.Getenv("PROC_TEST_SETSID") != "" {
			detach(gc)
		}
		if err := gc.Start(); err != nil {
			panic(err)
		}
		fmt.Printf("grandchild %d\n", gc.Process.Pid)
		return 0
	}
	if code, ok := platformChild(behaviour); ok {
		return code
	}
	fmt.Fprintf(os.Stderr, "unknown behaviour %q\n", behaviour)
	return 100
}

// pattern returns n bytes that differ at every offset modulo 251.
func pattern(n int) []byte {
	b := make([]byte, n)
	for i := range b {
		b[i] = byte('!' + i%251%90)
	}
	return b
}

func self(t *testing.T) string {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	return exe
}

// start runs behaviour as the IUT and stops it at test end.
func start(t *testing.T, cfg proc.Config, behaviour string, extraEnv []string, input ...string) *proc.Proc {
	t.Helper()
	cfg.Argv = []string{self(t)}
	cfg.Env = append([]string{childEnv + "=" + behaviour}, extraEnv...)
	var in [][]byte
	for _, s := range input {
		in = append(in, []byte(s))
	}
	p, err := proc.Start(t.Context(), cfg, in)
	if err != nil {
		t.Fatalf("Start: %v", err)
	}
	t.Cleanup(func() { p.Stop(100*time.Millisecond, 100*time.Millisecond) })
	return p
}

// hangGuard bounds every wait so that a regression fails instead of hanging.
const hangGuard = 20 * time.Second

func nextLine(t *testing.T, p *proc.Proc) (proc.Line, bool) {
	t.Helper()
	select {
	case ln, ok := <-p.Lines():
		return ln, ok
	case <-time.After(hangGuard):
		t.Fatalf("no stdout line within %v", hangGuard)
	}
	return proc.Line{}, false
}

// allLines reads until Lines is closed.
func allLines(t *testing.T, p *proc.Proc) []proc.Line {
	t.Helper()
	var out []proc.Line
	for {
		ln, ok := nextLine(t, p)
		if !ok {
			return out
		}
		out = append(out, ln)
	}
}

func waitExit(t *testing.T, p *proc.Proc) proc.Exit {
	t.Helper()
	select {
	case <-p.Exited():
		return p.Exit()
	case <-time.After(hangGuard):
		t.Fatalf("IUT did not exit within %v", hangGuard)
	}
	return proc.Exit{}
}

// ignoreAt drops the timing field from comparisons.
var ignoreAt = cmpopts.IgnoreFields(proc.Line{}, "At")

func TestEcho(t *testing.T) {
	t.Parallel()
	p := start(t, proc.Config{}, "echo", nil, "one\n", "two\n", "", "{\"a\":1}\n")
	p.CloseStdin()
	p.CloseStdin() // safe twice
	got := allLines(t, p)
	want := []proc.Line{
		{Data: []byte("one"), Size: 3},
		{Data: []byte("two"), Size: 3},
		{Data: []byte(`{"a":1}`), Size: 7},
	}
	if diff := cmp.Diff(want, got, ignoreAt); diff != "" {
		t.Errorf("lines (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(proc.Exit{Code: 0}, waitExit(t, p)); diff != "" {
		t.Errorf("Exit (-want +got):\n%s", diff)
	}
	for i := 1; i < len(got); i++ {
		if got[i].At < got[i-1].At {
			t.Errorf("At not monotonic: %v then %v", got[i-1].At, got[i].At)
		}
	}
}

func TestLineSplitting(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		out     string
		maxLine int
		want    []proc.Line
	}{
		{
			name: "partial last line",
			out:  "a\nlast",
			want: []proc.Line{{Data: []byte("a"), Size: 1}, {Data: []byte("last"), Size: 4, Partial: true}},
		},
		{
			name: "empty lines and CR kept",
			out:  "\n\r\nx\r\n",
			want: []proc.Line{{Data: []byte{}, Size: 0}, {Data: []byte("\r"), Size: 1}, {Data: []byte("x\r"), Size: 2}},
		},
		{
			name: "no output",
			out:  "",
			want: nil,
		},
		{
			name:    "line of exactly MaxLine is delivered",
			out:     "12345\nabc\n",
			maxLine: 5,
			want:    []proc.Line{{Data: []byte("12345"), Size: 5}, {Data: []byte("abc"), Size: 3}},
		},
		{
			name:    "line of MaxLine+1 is too long, next still delivered",
			out:     "123456\nabc\n",
			maxLine: 5,
			want:    []proc.Line{{Size: 6, Err: proc.ErrLineTooLong}, {Data: []byte("abc"), Size: 3}},
		},
		{
			name:    "partial line within MaxLine",
			out:     "ok\n12345",
			maxLine: 5,
			want:    []proc.Line{{Data: []byte("ok"), Size: 2}, {Data: []byte("12345"), Size: 5, Partial: true}},
		},
		{
			name: "non UTF-8 bytes passed through",
			out:  "\xff\xfe\n",
			want: []proc.Line{{Data: []byte("\xff\xfe"), Size: 2}},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			p := start(t, proc.Config{MaxLine: tc.maxLine}, "write", []string{"PROC_TEST_OUT=" + strconv.Quote(tc.out)})
			got := allLines(t, p)
			if diff := cmp.Diff(tc.want, got, ignoreAt, cmpopts.EquateErrors()); diff != "" {
				t.Errorf("lines (-want +got):\n%s", diff)
			}
			for _, ln := range got {
				if ln.Err != nil && ln.Data != nil {
					t.Errorf("too-long line carries Data (%d bytes)", len(ln.Data))
				}
			}
			waitExit(t, p)
		})
	}
}

// TestFramedLines: with content-length framing, each body is a Line, a
// body over MaxLine is ErrLineTooLong, and a break of the framing is a
// Line with a *frame.Error; the lines after it still come.
func TestFramedLines(t *testing.T) {
	t.Parallel()
	msg := func(b string) string { return string(frame.Encode(frame.ContentLength, []byte(b))) }
	out := msg(`{"a":1}`) + msg("123456789") + "{\"bare\":1}\n" + msg("{\n}") + "Content-Length: 7\r\n\r\n{}"
	p := start(t, proc.Config{MaxLine: 8, Framing: frame.ContentLength}, "write", []string{"PROC_TEST_OUT=" + strconv.Quote(out)})
	got := allLines(t, p)
	var codes []string
	for i := range got {
		var fe *frame.Error
		if errors.As(got[i].Err, &fe) {
			codes = append(codes, fe.Code)
			got[i].Err = nil
		}
	}
	want := []proc.Line{
		{Data: []byte(`{"a":1}`), Size: 7}, {Size: 9, Err: proc.ErrLineTooLong}, {Size: 11},
		{Data: []byte("{\n}"), Size: 3}, {Size: 23, Partial: true},
	}
	if diff := cmp.Diff(want, got, ignoreAt, cmpopts.EquateErrors()); diff != "" {
		t.Errorf("lines (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{frame.Unframed, frame.Truncated}, codes); diff != "" {
		t.Errorf("codes (-want +got):\n%s", diff)
	}
	waitExit(t, p)
}

// TestPartialLineOverMaxLine: "MaxLine is the largest stdout line
// delivered"; a partial last line is a line too.
func TestPartialLineOverMaxLine(t *testing.T) {
	t.Parallel()
	p := start(t, proc.Config{MaxLine: 5}, "write", []string{"PROC_TEST_OUT=" + strconv.Quote("123456")})
	got := allLines(t, p)
	want := []proc.Line{{Size: 6, Partial: true, Err: proc.ErrLineTooLong}}
	if diff := cmp.Diff(want, got, ignoreAt, cmpopts.EquateErrors()); diff != "" {
		t.Errorf("lines (-want +got):\n%s", diff)
	}
}

func TestLongLines(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		n       int
		maxLine int
		tooLong bool
	}{
		{"beyond bufio buffer but within MaxLine", 200 << 10, 256 << 10, false},
		{"far beyond MaxLine", 3 << 20, 1000, true},
		{"beyond default MaxLine (1 MiB)", 1<<20 + 1, 0, true},
		{"exactly default MaxLine", 1 << 20, 0, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			p := start(t, proc.Config{MaxLine: tc.maxLine}, "long", []string{"PROC_TEST_N=" + strconv.Itoa(tc.n)})
			got := allLines(t, p)
			if len(got) != 2 {
				t.Fatalf("got %d lines, want 2", len(got))
			}
			first := got[0]
			if first.Size != tc.n {
				t.Errorf("Size = %d, want %d", first.Size, tc.n)
			}
			if tc.tooLong {
				if !errors.Is(first.Err, proc.ErrLineTooLong) || first.Data != nil {
					t.Errorf("first line: Err = %v, len(Data) = %d; want ErrLineTooLong and no data", first.Err, len(first.Data))
				}
			} else if first.Err != nil || len(first.Data) != tc.n || !bytes.Equal(first.Data, bytes.Repeat([]byte("x"), tc.n)) {
				t.Errorf("first line: Err = %v, len(Data) = %d; want all %d bytes", first.Err, len(first.Data), tc.n)
			}
			if diff := cmp.Diff(proc.Line{Data: []byte("after"), Size: 5}, got[1], ignoreAt); diff != "" {
				t.Errorf("line after (-want +got):\n%s", diff)
			}
		})
	}
}

func TestStderrTail(t *testing.T) {
	t.Parallel()
	const n = 1 << 20
	tests := []struct {
		name      string
		stderrMax int
		keep      int
	}{
		{"custom", 1000, 1000},
		{"default 64 KiB", 0, 64 << 10},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			p := start(t, proc.Config{StderrMax: tc.stderrMax}, "stderr", []string{"PROC_TEST_N=" + strconv.Itoa(n)})
			allLines(t, p)
			if e := waitExit(t, p); e.Code != 0 {
				t.Fatalf("Exit = %+v", e)
			}
			// stderr is copied by its own goroutine: poll until it is drained.
			deadline := time.Now().Add(hangGuard)
			var last []byte
			var total int64
			for {
				last, total = p.Stderr()
				if total >= n || time.Now().After(deadline) {
					break
				}
				time.Sleep(10 * time.Millisecond)
			}
			if total != n {
				t.Errorf("total = %d, want %d", total, n)
			}
			want := pattern(n)[n-tc.keep:]
			if !bytes.Equal(last, want) {
				t.Errorf("tail: got %d bytes, want the last %d bytes written", len(last), tc.keep)
			}
		})
	}
}

func TestEnvAndDir(t *testing.T) {
	t.Parallel()
	dir := testDir(t)
	p := start(t, proc.Config{Dir: dir}, "env", []string{"FOO=bar baz", "EMPTY="})
	var got []string
	for _, ln := range allLines(t, p) {
		if !systemAdded(string(ln.Data)) {
			got = append(got, string(ln.Data))
		}
	}
	slices.Sort(got)
	want := []string{"EMPTY=", "FOO=bar baz", "PROC_TEST_CHILD=env", "PWD-IS=" + dir}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("child environment (-want +got):\n%s", diff)
	}
}

func TestStartErrors(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		argv []string
	}{
		{"empty argv", nil},
		{"not found", []string{"/nonexistent/conform-iut"}},
		{"not executable", []string{"/etc/hostname"}},
		{"directory", []string{os.TempDir()}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			p, err := proc.Start(t.Context(), proc.Config{Argv: tc.argv}, nil)
			if err == nil {
				p.Stop(time.Second, time.Second)
				t.Fatalf("Start(%q) succeeded, want error", tc.argv)
			}
		})
	}
}

func TestExitStatus(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name      string
		behaviour string
		env       []string
		want      proc.Exit
	}{
		{"exit 0", "exit", []string{"PROC_TEST_N=0"}, proc.Exit{Code: 0}},
		{"exit 7", "exit", []string{"PROC_TEST_N=7"}, proc.Exit{Code: 7}},
		{"exit 255", "exit", []string{"PROC_TEST_N=255"}, proc.Exit{Code: 255}},
	}
	tests = append(tests, signalExits...)
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			p := start(t, proc.Config{}, tc.behaviour, tc.env)
			if diff := cmp.Diff(tc.want, waitExit(t, p)); diff != "" {
				t.Errorf("Exit (-want +got):\n%s", diff)
			}
		})
	}
}

// stopWithin calls Stop and fails (instead of hanging) after hangGuard.
func stopWithin(t *testing.T, p *proc.Proc, grace, killAfter time.Duration) proc.Exit {
	t.Helper()
	done := make(chan proc.Exit, 1)
	go func() { done <- p.Stop(grace, killAfter) }()
	select {
	case e := <-done:
		return e
	case <-time.After(hangGuard):
		t.Fatalf("Stop did not return within %v", hangGuard)
	}
	return proc.Exit{}
}

func TestInputToDeadChildDoesNotBlock(t *testing.T) {
	t.Parallel()
	// 8 MiB of input to a child that never reads it and exits at once.
	big := strings.Repeat("x", 8<<20) + "\n"
	p := start(t, proc.Config{}, "exit", []string{"PROC_TEST_N=0"}, big, big)
	waitExit(t, p)
	if diff := cmp.Diff(proc.Exit{Code: 0}, stopWithin(t, p, time.Second, time.Second)); diff != "" {
		t.Errorf("Stop (-want +got):\n%s", diff)
	}
}

// TestStderrCompleteAfterStop: after Stop has reaped the IUT, Stderr should
// report everything it wrote.
func TestStderrCompleteAfterStop(t *testing.T) {
	t.Parallel()
	const n = 4 << 20
	for range 20 {
		p := start(t, proc.Config{}, "stderr", []string{"PROC_TEST_N=" + strconv.Itoa(n)})
		stopWithin(t, p, 5*time.Second, 5*time.Second)
		if _, total := p.Stderr(); total != n {
			t.Fatalf("Stderr total right after Stop = %d, want %d", total, n)
		}
	}
}
