// Command equaldriver is the driver of equal work that bench/run.sh
// compares `conform run` with (issue 31 item 5: runner CPU within 1.10x
// of it). Per vector it does what a certification of that vector needs and
// nothing of the runner's plan:
//
//   - reads the vector from the suite (suite.Load, digests checked;
//     Suite.Reload) and its golden summary (Suite.ReadGolden);
//   - makes a temporary directory that is the IUT's working directory and
//     HOME, and removes it after;
//   - starts the IUT with the kit's own containment (internal/proc: the
//     same Pool, process group, cgroup where one can be made, token, line
//     reader and stop sequence), writes the vector's frames;
//   - strictly parses every stdout line (internal/canon), classifies it by
//     the version's envelope, validates it against the version's schema
//     and a reply's body against its method's reply schema
//     (internal/schema), correlates a reply with the request it answers;
//   - normalizes and canonicalizes each frame (internal/normalize, RFC
//     8785), builds the summary and compares it with the golden summary
//     (internal/compare: bytes, then the conformance rules when they
//     differ);
//   - closes stdin once every expected reply came, then stops the IUT.
//
// What it leaves out is the runner's plan: the preflight and its cache,
// conformance classes, expected failures, the start gate, the quiet bound,
// progress lines, findings and the report. Sessions with await items or a
// scripted peer are outside what it drives (bench/gen's suites have none);
// it refuses such a vector rather than drive it differently. A vector that
// expects the IUT to exit keeps stdin open until it does, and its summary
// has the exit class, as the runner's.
//
//	equaldriver [-j N] [-role R] [-version V] SUITE-DIR -- COMMAND [ARG...]
//
// It prints "<vectors> <frames> <schema violations> <differing summaries>"
// and exits 1 when a summary differs from its golden one (then it did not
// do the work the runner's PASS stands for) or a vector timed out. Schema
// violations are counted, not failures: the informational vectors of
// bench/gen's suites send what the schema refuses on purpose.
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"runtime/pprof"
	"slices"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/conform-kit/conform/internal/canon"
	"github.com/conform-kit/conform/internal/compare"
	"github.com/conform-kit/conform/internal/envelope"
	"github.com/conform-kit/conform/internal/normalize"
	"github.com/conform-kit/conform/internal/proc"
	"github.com/conform-kit/conform/internal/schema"
	"github.com/conform-kit/conform/internal/suite"
)

// plan is what every vector shares: the suite, the version's envelope,
// compiled schemas, normalizers and conformance rules.
type plan struct {
	s        *suite.Suite
	ver      *suite.Version
	role     string
	env      *envelope.Envelope
	root     *schema.Schema
	bodyBase string // <schema><replyBody>/, "" when the envelope has none
	rules    []normalize.Rule
	conf     *compare.Rules
	argv     []string
	pool     *proc.Pool
	timeout  time.Duration
	grace    time.Duration

	mu     sync.Mutex
	bodies map[string]*schema.Schema // by method; nil entry: none declared
}

func main() {
	jobs := flag.Int("j", 2, "vectors run at once")
	role := flag.String("role", "agent", "the suite role the IUT plays")
	version := flag.Int("version", 1, "protocol version")
	timeout := flag.Duration("timeout", 10*time.Second, "per-vector bound")
	grace := flag.Duration("grace", 3*time.Second, "how long the IUT may take to exit once stdin closes")
	cpuprofile := flag.String("cpuprofile", "", "write a CPU profile of the driver itself to `file`")
	flag.Parse()
	if *cpuprofile != "" {
		f, err := os.Create(*cpuprofile)
		if err == nil && pprof.StartCPUProfile(f) == nil {
			defer pprof.StopCPUProfile()
		}
	}
	args := flag.Args()
	if len(args) < 3 || args[1] != "--" {
		fmt.Fprintln(os.Stderr, "usage: equaldriver [-j N] [-role R] [-version V] SUITE-DIR -- COMMAND [ARG...]")
		os.Exit(2)
	}
	p, refs, err := load(args[0], *role, *version)
	if err != nil {
		fmt.Fprintln(os.Stderr, "equaldriver:", err)
		os.Exit(2)
	}
	p.argv, p.timeout, p.grace = args[2:], *timeout, *grace
	p.pool = proc.NewPool()
	defer p.pool.Close()

	work := make(chan int)
	var frames, violations, differ, failed atomic.Int64
	var wg sync.WaitGroup
	for range *jobs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range work {
				n, bad, same, err := p.drive(context.Background(), refs[i], i)
				frames.Add(int64(n))
				violations.Add(int64(bad))
				switch {
				case err != nil:
					failed.Add(1)
					fmt.Fprintln(os.Stderr, "equaldriver:", refs[i].Path, err)
				case !same:
					differ.Add(1)
					fmt.Fprintln(os.Stderr, "equaldriver: summary differs from its golden one:", refs[i].Path)
				}
			}
		}()
	}
	for i := range refs {
		work <- i
	}
	close(work)
	wg.Wait()
	fmt.Println(len(refs), frames.Load(), violations.Load(), differ.Load())
	if differ.Load() > 0 || failed.Load() > 0 {
		os.Exit(1)
	}
}

// load opens the suite at dir and compiles what every vector of role and
// version shares.
func load(dir, role string, version int) (*plan, []suite.Ref, error) {
	s, err := suite.Load(os.DirFS(dir), suite.Options{})
	if err != nil {
		return nil, nil, err
	}
	ver, err := s.Version(version)
	if err != nil {
		return nil, nil, err
	}
	p := &plan{s: s, ver: ver, role: role, env: ver.Env(), bodies: map[string]*schema.Schema{}}
	if p.root, err = s.Schemas.Compile(ver.Schema); err != nil {
		return nil, nil, err
	}
	p.root = p.root.WithDiscriminators(p.env.Discriminators())
	if body := p.env.ReplyBody(); body != "" {
		p.bodyBase = ver.Schema + body + "/"
	}
	if p.rules, err = normalize.Compile(ver.Normalize); err != nil {
		return nil, nil, err
	}
	if p.conf, err = compare.Compile(&ver.Conformance); err != nil {
		return nil, nil, err
	}
	refs, bad, err := s.VectorIndex(ver, role)
	if err != nil {
		return nil, nil, err
	}
	if len(bad) > 0 {
		return nil, nil, fmt.Errorf("%d invalid vectors, the first: %v", len(bad), bad[0])
	}
	if len(refs) == 0 {
		return nil, nil, fmt.Errorf("no %s vectors of version %d in %s", role, version, dir)
	}
	return p, refs, nil
}

// body returns the reply-body schema of method (nil when the version
// declares none), compiled on first use as the runner does.
func (p *plan) body(method string) *schema.Schema {
	if p.bodyBase == "" {
		return nil
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	sch, ok := p.bodies[method]
	if !ok {
		sch, _ = p.s.Schemas.Compile(p.bodyBase + canon.EscapePointer(method))
		p.bodies[method] = sch
	}
	return sch
}

// drive runs vector ref (the n-th) once and reports the frames it kept,
// the schema violations it found and whether its summary equals the golden
// one under the conformance rules.
func (p *plan) drive(ctx context.Context, ref suite.Ref, n int) (frames, violations int, same bool, err error) {
	v, err := p.s.Reload(p.ver, ref.Path)
	if err != nil {
		return 0, 0, false, err
	}
	if v.Kind != "" && v.Kind != suite.KindSession || len(v.Peer) > 0 {
		return 0, 0, false, fmt.Errorf("not a plain session vector (a scripted peer): outside what this driver does")
	}
	golden, err := p.s.ReadGolden(p.ver, p.role, v.ID)
	if err != nil {
		return 0, 0, false, err
	}
	rules, conf := p.rules, p.conf
	if len(v.Normalize) > 0 {
		own, err := normalize.Compile(v.Normalize)
		if err != nil {
			return 0, 0, false, err
		}
		rules = append(slices.Clip(rules), own...)
	}
	if v.Conformance != nil {
		if conf, err = compare.Compile(&p.ver.Conformance, v.Conformance); err != nil {
			return 0, 0, false, err
		}
	}
	methods := map[string]string{} // request key -> method
	var input [][]byte
	for _, it := range v.Send {
		if _, await := it.AwaitKey(); await {
			return 0, 0, false, fmt.Errorf("an await item: outside what this driver does")
		}
		b, err := it.Bytes()
		if err != nil {
			return 0, 0, false, err
		}
		input = append(input, b)
		if f, err := canon.Parse(b); err == nil {
			if c := p.env.Classify(f); c != nil && c.Kind == envelope.Request {
				if id, ok := c.ID(f); ok {
					methods[envelope.Key(id)] = c.Method(f)
				}
			}
		}
	}
	want, mustExit := len(v.Expect.Replies), v.Expect.Exit != ""

	dir, err := os.MkdirTemp("", "equaldriver-")
	if err != nil {
		return 0, 0, false, err
	}
	defer os.RemoveAll(dir)
	ctx, cancel := context.WithTimeout(ctx, p.timeout)
	defer cancel()
	iut, err := proc.Start(ctx, proc.Config{
		Argv: p.argv, Dir: dir, Home: dir, Pool: p.pool, Token: "equaldriver-" + strconv.Itoa(n),
		Env:     []string{"PATH=" + os.Getenv("PATH"), "HOME=" + dir, "LANG=C.UTF-8"},
		Framing: p.s.Framing.Or(),
	}, input)
	if err != nil {
		return 0, 0, false, err
	}
	if want == 0 && !mustExit {
		iut.CloseStdin()
	}
	scope := normalize.Scope{UserData: conf.UserDataPatterns(), General: len(p.ver.Normalize)}
	var kept []string
	replies := 0
	timedOut := false
lines:
	for {
		select {
		case ln, ok := <-iut.Lines():
			if !ok {
				break lines
			}
			if ln.Err != nil || ln.Partial {
				violations++
				continue
			}
			f, err := canon.Parse(ln.Data)
			if err != nil {
				violations++
				continue
			}
			if _, ok := f.(map[string]any); !ok {
				violations++
				continue
			}
			violations += len(p.root.Validate(f))
			if c := p.env.Classify(f); c != nil && c.Kind == envelope.Reply {
				if id, ok := c.ID(f); ok {
					if method, sent := methods[envelope.Key(id)]; sent {
						replies++
						if c.Outcome(f) == envelope.Success {
							if sch := p.body(method); sch != nil {
								violations += len(sch.Validate(f))
							}
						}
					}
				}
			}
			nr := normalize.ApplyScoped(f, rules, scope)
			b, err := canon.Canonical(nr.Value)
			if err != nil {
				violations++
				continue
			}
			kept = append(kept, string(b))
			if replies == want && !mustExit {
				iut.CloseStdin()
			}
		case <-ctx.Done():
			timedOut = true
			break lines
		}
	}
	ex := iut.Stop(p.grace, time.Second)
	if timedOut {
		return len(kept), violations, false, fmt.Errorf("timed out after %v", p.timeout)
	}
	exit := ""
	if mustExit {
		switch {
		case ex.Signal != "":
			exit = "signal"
		case ex.Code == 0:
			exit = "zero"
		default:
			exit = "nonzero"
		}
	}
	sum, err := summary(v.ID, exit, kept)
	if err != nil {
		return len(kept), violations, false, err
	}
	if compare.Equal(golden, sum) {
		return len(kept), violations, true, nil
	}
	ds, err := compare.Differences(golden, sum, conf, nil, nil)
	if err != nil {
		return len(kept), violations, false, err
	}
	for _, d := range ds {
		if d.Normative {
			return len(kept), violations, false, nil
		}
	}
	return len(kept), violations, true, nil
}

// summary is the RFC 8785 form of a golden summary: {"exit": exit,
// "frames": [<frames, sorted by their canonical bytes>], "vector": id},
// without exit when it is "" (docs/vector-format.md "Golden files").
// The frames are canonical already: RFC 8785 orders the members exit,
// frames, vector, and a list of canonical texts sorted as strings is the
// list sorted by canonical bytes, so it is built without decoding them.
func summary(id, exit string, frames []string) ([]byte, error) {
	slices.Sort(frames)
	idJSON, err := canon.Canonical(id)
	if err != nil {
		return nil, err
	}
	b := []byte{'{'}
	if exit != "" {
		e, err := canon.Canonical(exit)
		if err != nil {
			return nil, err
		}
		b = append(append(append(b, `"exit":`...), e...), ',')
	}
	b = append(b, `"frames":[`...)
	for i, f := range frames {
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, f...)
	}
	b = append(append(b, `],"vector":`...), idJSON...)
	return append(b, '}'), nil
}
