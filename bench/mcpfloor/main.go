// Command mcpfloor is the floor that bench/run.sh compares a certification
// of a real MCP server with (issue 31 item 5): it starts the same server
// once per vector, -j at once, and sends the vector's frames the way the
// runner does (the same bytes, [suite.SendItem.Bytes]; an await item waits
// for the reply or frame it names; a bind item takes its value from the
// reply; a request the server writes is answered by the vector's peer rules,
// then the version's), and does nothing else: no containment, validation,
// normalization, golden comparison or report.
//
// It never waits out a silence. A first pass (-learn FILE) runs every
// vector with generous waits (each ends after -learn-quiet of silence once
// the server has written its first line) and
// writes, per vector, how many stdout lines the server wrote with stdin
// open. The timed pass (-lines FILE) then waits for exactly that many
// lines, closes stdin and waits for the server to exit (at most -grace,
// then SIGKILL to its process group), so it knows ahead of time what a
// client can only learn by waiting: a request the server ignores, or a
// server that blocks, costs the floor nothing. That is why the floor is
// not flattering to conform: conform must wait for the quiet bound where
// the floor moves on at once. Like conform, it lets at most -starts servers
// start at once (the start gate, docs/running.md "Parallelism and starts"):
// on a loaded machine that is faster than starting -j at once.
//
//	mcpfloor [-j N] [-ids FILE] (-learn FILE | -lines FILE) SUITE-DIR -- COMMAND [ARG...]
//
// SUITE-DIR is an MCP suite folder (suites/mcp): its suite.json gives the
// version's peer rules and vectors/v1/server the vectors; -ids limits the
// run to the ids listed (one a line, in that order; conform's non-skipped
// vectors). It prints "<vectors> <lines read> <floor timeouts>" and exits 1
// when a vector of the timed pass hit -timeout (it waited for a line that
// never came: the server wrote fewer lines than when learned).
package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/conform-kit/conform/internal/canon"
	"github.com/conform-kit/conform/internal/envelope"
	"github.com/conform-kit/conform/internal/suite"
)

type rule struct {
	m     envelope.Match
	reply any
}

type vec struct {
	id    string
	send  []suite.SendItem
	rules []rule
}

func main() {
	jobs := flag.Int("j", 2, "vectors run at once")
	idsFile := flag.String("ids", "", "`file` of vector ids to run, one a line (default: every server vector)")
	learn := flag.String("learn", "", "first pass: write each vector's line count to `file`")
	linesFile := flag.String("lines", "", "timed pass: each vector's line count, from -learn `file`")
	learnQuiet := flag.Duration("learn-quiet", 3*time.Second, "first pass: silence that ends a wait")
	timeout := flag.Duration("timeout", 15*time.Second, "per-vector bound (the first pass: 4 times this)")
	starts := flag.Int("starts", runtime.NumCPU(), "servers starting at once (between their exec and their first line), as conform's --starts")
	grace := flag.Duration("grace", 3*time.Second, "after stdin closes, before SIGKILL")
	flag.Parse()
	args := flag.Args()
	if len(args) < 3 || args[1] != "--" || (*learn == "") == (*linesFile == "") {
		fmt.Fprintln(os.Stderr, "usage: mcpfloor [-j N] [-ids FILE] (-learn FILE | -lines FILE) SUITE-DIR -- COMMAND [ARG...]")
		os.Exit(2)
	}
	dir, argv := args[0], args[2:]
	vs, err := load(dir, *idsFile)
	if err != nil {
		fmt.Fprintln(os.Stderr, "mcpfloor:", err)
		os.Exit(2)
	}
	want := map[string]int{}
	if *linesFile != "" {
		b, err := os.ReadFile(*linesFile)
		if err == nil {
			err = json.Unmarshal(b, &want)
		}
		if err != nil {
			fmt.Fprintln(os.Stderr, "mcpfloor:", err)
			os.Exit(2)
		}
	}
	var mu sync.Mutex
	learned := map[string]int{}
	var total, timeouts atomic.Int64
	if *learn != "" {
		*timeout *= 4 // untimed: a slow start must not cut what is learned
	}
	gate := make(chan struct{}, max(1, *starts))
	work := make(chan *vec)
	var wg sync.WaitGroup
	for range *jobs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for v := range work {
				d := driver{argv: argv, v: v, timeout: *timeout, grace: *grace, gate: gate}
				if *learn != "" {
					d.quiet = *learnQuiet
				} else {
					n, ok := want[v.id]
					if !ok {
						fmt.Fprintln(os.Stderr, "mcpfloor: no line count for", v.id)
						os.Exit(2)
					}
					d.want = n
				}
				n, timedOut := d.run()
				total.Add(int64(n))
				if timedOut {
					timeouts.Add(1)
					fmt.Fprintln(os.Stderr, "mcpfloor: timeout:", v.id)
				}
				mu.Lock()
				learned[v.id] = n
				mu.Unlock()
			}
		}()
	}
	for _, v := range vs {
		work <- v
	}
	close(work)
	wg.Wait()
	if *learn != "" {
		b, _ := json.MarshalIndent(learned, "", " ")
		if err := os.WriteFile(*learn, b, 0o644); err != nil {
			fmt.Fprintln(os.Stderr, "mcpfloor:", err)
			os.Exit(2)
		}
	}
	fmt.Println(len(vs), total.Load(), timeouts.Load())
	if *linesFile != "" && timeouts.Load() > 0 {
		os.Exit(1)
	}
}

// load reads the version 1 peer rules of dir/suite.json and the server
// vectors (all, or those idsFile lists, in its order).
func load(dir, idsFile string) ([]*vec, error) {
	var s struct {
		Versions []struct {
			Version int              `json:"version"`
			Peer    []suite.PeerRule `json:"peer"`
		} `json:"versions"`
	}
	b, err := os.ReadFile(filepath.Join(dir, "suite.json"))
	if err != nil {
		return nil, err
	}
	if err := json.Unmarshal(b, &s); err != nil {
		return nil, err
	}
	var common []rule
	for _, ver := range s.Versions {
		if ver.Version != 1 {
			continue
		}
		if common, err = rules(ver.Peer); err != nil {
			return nil, err
		}
	}
	vdir := filepath.Join(dir, "vectors", "v1", "server")
	var ids []string
	if idsFile != "" {
		b, err := os.ReadFile(idsFile)
		if err != nil {
			return nil, err
		}
		ids = strings.Fields(string(b))
	} else {
		paths, _ := filepath.Glob(filepath.Join(vdir, "*.json"))
		for _, p := range paths {
			ids = append(ids, strings.TrimSuffix(filepath.Base(p), ".json"))
		}
	}
	var out []*vec
	for _, id := range ids {
		b, err := os.ReadFile(filepath.Join(vdir, id+".json"))
		if err != nil {
			return nil, err
		}
		dec := json.NewDecoder(bytes.NewReader(b))
		dec.UseNumber()
		var v suite.Vector
		if err := dec.Decode(&v); err != nil {
			return nil, fmt.Errorf("%s: %w", id, err)
		}
		own, err := rules(v.Peer)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", id, err)
		}
		out = append(out, &vec{id: id, send: v.Send, rules: append(own, common...)})
	}
	return out, nil
}

func rules(ps []suite.PeerRule) ([]rule, error) {
	var out []rule
	for _, p := range ps {
		m, err := envelope.CompileMatch(p.Match)
		if err != nil {
			return nil, err
		}
		out = append(out, rule{m: m, reply: p.Reply})
	}
	return out, nil
}

type driver struct {
	argv           []string
	v              *vec
	timeout, grace time.Duration
	quiet          time.Duration // learn pass: silence that ends a wait
	want           int           // timed pass: lines to wait for
	gate           chan struct{} // the start gate: held from exec to the first line

	mu      sync.Mutex
	cond    *sync.Cond
	frames  []any          // every line the server wrote, parsed (nil when not JSON)
	replies map[string]any // reply frames by the RFC 8785 form of their id
	last    time.Time      // last line read or written
	eof     bool
}

// run drives one vector; it returns the stdout lines read with stdin open
// and whether the timed pass hit the timeout.
func (d *driver) run() (int, bool) {
	d.cond = sync.NewCond(&d.mu)
	d.replies = map[string]any{}
	cmd := exec.Command(d.argv[0], d.argv[1:]...)
	ownGroup(cmd)
	cmd.Stderr = io.Discard
	stdin, _ := cmd.StdinPipe()
	stdout, _ := cmd.StdoutPipe()
	d.gate <- struct{}{}
	var gateOnce sync.Once
	open := func() { gateOnce.Do(func() { <-d.gate }) }
	defer open()
	if err := cmd.Start(); err != nil {
		fmt.Fprintln(os.Stderr, "mcpfloor:", err)
		os.Exit(3)
	}
	deadline := time.Now().Add(d.timeout)
	timedOut := false
	timer := time.AfterFunc(d.timeout, func() {
		d.mu.Lock()
		timedOut = true
		d.cond.Broadcast()
		d.mu.Unlock()
	})
	defer timer.Stop()
	d.last = time.Now()
	var w sync.Mutex
	write := func(b []byte) {
		w.Lock()
		stdin.Write(b)
		w.Unlock()
		d.mu.Lock()
		d.last = time.Now()
		d.mu.Unlock()
	}
	readDone := make(chan struct{})
	go func() {
		defer close(readDone)
		br := bufio.NewReaderSize(stdout, 64<<10)
		for {
			line, err := br.ReadBytes('\n')
			open() // the first line (or the end) ends the start
			if len(bytes.TrimSpace(line)) > 0 {
				f, _ := canon.Parse(bytes.TrimSpace(line))
				if ans := d.answer(f); ans != nil {
					write(ans)
				}
				d.mu.Lock()
				d.frames = append(d.frames, f)
				if m, ok := f.(map[string]any); ok {
					if id, ok := m["id"]; ok {
						if _, isReq := m["method"]; !isReq {
							if k, err := canon.Canonical(id); err == nil {
								d.replies[string(k)] = f
							}
						}
					}
				}
				d.last = time.Now()
				d.cond.Broadcast()
				d.mu.Unlock()
			}
			if err != nil {
				d.mu.Lock()
				d.eof = true
				d.cond.Broadcast()
				d.mu.Unlock()
				return
			}
		}
	}()
	// done reports (with d.mu held) that a wait is over: its condition
	// holds, or (learn) the server was silent for d.quiet, or (timed) it
	// wrote all the lines it will write, or it ended, or the timeout.
	wait := func(cond func() bool) {
		d.mu.Lock()
		defer d.mu.Unlock()
		for {
			if cond() || d.eof || timedOut {
				return
			}
			if d.quiet > 0 && len(d.frames) == 0 {
				d.cond.Wait() // starting: only the timeout counts, as in conform
				continue
			}
			if d.quiet > 0 {
				if time.Since(d.last) >= d.quiet {
					return
				}
				rest := d.quiet - time.Since(d.last)
				t := time.AfterFunc(rest, func() { d.mu.Lock(); d.cond.Broadcast(); d.mu.Unlock() })
				d.cond.Wait()
				t.Stop()
				continue
			}
			if len(d.frames) >= d.want {
				return
			}
			d.cond.Wait()
		}
	}
	for _, it := range d.v.send {
		if m, isMatch, _ := it.AwaitMatch(); isMatch {
			wait(func() bool {
				for _, f := range d.frames {
					if m.Holds(f) {
						return true
					}
				}
				return false
			})
			continue
		}
		if k, isAwait := it.AwaitKey(); isAwait {
			wait(func() bool { _, ok := d.replies[k]; return ok })
			continue
		}
		if len(it.Bind) > 0 {
			skip := false
			d.mu.Lock()
			frame := clone(it.Frame)
			for _, bd := range it.Bind {
				k, _ := canon.Canonical(bd.Reply)
				val, ok := pointer(d.replies[string(k)], bd.Path)
				if !ok && bd.WhenPresent {
					skip = true
				}
				setPointer(frame, bd.At, val)
			}
			d.mu.Unlock()
			if skip {
				continue
			}
			it = suite.SendItem{Frame: frame}
		}
		b, err := it.Bytes()
		if err != nil {
			fmt.Fprintln(os.Stderr, "mcpfloor:", d.v.id, err)
			os.Exit(2)
		}
		write(b)
	}
	// The end of the vector: every line (timed) or silence (learn).
	wait(func() bool { return d.quiet == 0 && len(d.frames) >= d.want })
	d.mu.Lock()
	n := len(d.frames)
	d.mu.Unlock()
	w.Lock()
	stdin.Close()
	w.Unlock()
	exited := make(chan struct{})
	go func() { <-readDone; cmd.Wait(); close(exited) }()
	select {
	case <-exited:
	case <-time.After(min(d.grace, max(time.Until(deadline), 0)+d.grace)):
		killGroup(cmd)
		<-exited
	}
	killGroup(cmd) // what is left of its group
	return n, timedOut
}

// answer returns the peer's reply line to f when f is a request a rule
// matches (the request's id set at /id), else nil.
func (d *driver) answer(f any) []byte {
	m, ok := f.(map[string]any)
	if !ok {
		return nil
	}
	id, hasID := m["id"]
	if _, isReq := m["method"]; !isReq || !hasID {
		return nil
	}
	for _, r := range d.v.rules {
		if r.m.Holds(f) {
			rep := clone(r.reply)
			if rm, ok := rep.(map[string]any); ok {
				rm["id"] = id
			}
			b, err := canon.Canonical(rep)
			if err != nil {
				return nil
			}
			return append(b, '\n')
		}
	}
	return nil
}

func clone(v any) any {
	switch t := v.(type) {
	case map[string]any:
		c := make(map[string]any, len(t))
		for k, x := range t {
			c[k] = clone(x)
		}
		return c
	case []any:
		c := make([]any, len(t))
		for i, x := range t {
			c[i] = clone(x)
		}
		return c
	}
	return v
}

// pointer resolves a JSON Pointer of object members only (what the MCP
// suite's binds use).
func pointer(v any, p string) (any, bool) {
	for _, tok := range strings.Split(strings.TrimPrefix(p, "/"), "/") {
		m, ok := v.(map[string]any)
		if !ok {
			return nil, false
		}
		if v, ok = m[tok]; !ok {
			return nil, false
		}
	}
	return v, true
}

func setPointer(v any, p string, val any) {
	toks := strings.Split(strings.TrimPrefix(p, "/"), "/")
	for i, tok := range toks {
		m, ok := v.(map[string]any)
		if !ok {
			return
		}
		if i == len(toks)-1 {
			m[tok] = val
			return
		}
		if _, ok := m[tok]; !ok {
			m[tok] = map[string]any{}
		}
		v = m[tok]
	}
}
