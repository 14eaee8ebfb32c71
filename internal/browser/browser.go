// Package browser drives a headless Chromium over the DevTools protocol on
// a pipe (--remote-debugging-pipe: commands on the browser's fd 3, replies
// and events on its fd 4, each message a JSON text ended by a NUL byte), so
// tests can load a page in a real browser, query its rendered DOM and take a
// screenshot without a WebDriver, a WebSocket library or a network port.
//
// It implements the few commands the kit's page tests need (Target,
// Page.navigate, Runtime.evaluate, Emulation, Page.captureScreenshot), and
// keeps what a page writes to its console (Runtime.consoleAPICalled,
// Runtime.exceptionThrown, Log.entryAdded: errors, failed loads, blocked
// content) for [Page.Console]; other events are read and dropped. Chromium comes from the system (Debian's
// package chromium, scripts/install-chromium.sh); nothing is downloaded.
package browser

import (
	"bufio"
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"sync"
	"time"
)

// Find returns the path of a Chromium on PATH (chromium, chromium-browser
// or google-chrome, in that order), or an error naming them.
func Find() (string, error) {
	names := []string{"chromium", "chromium-browser", "google-chrome"}
	for _, n := range names {
		if p, err := exec.LookPath(n); err == nil {
			return p, nil
		}
	}
	return "", fmt.Errorf("no Chromium on PATH (looked for %v; scripts/install-chromium.sh installs Debian's)", names)
}

// Flags returns the command-line flags every browser is started with:
// headless, no sandbox (tests run as root here), no GPU, and no background
// network traffic or updates (the machine has no network; without these
// Chromium retries connections at every start), DevTools on a pipe.
func Flags() []string {
	return []string{
		"--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
		"--disable-background-networking", "--disable-component-update", "--disable-sync",
		"--disable-extensions", "--disable-default-apps", "--mute-audio", "--hide-scrollbars",
		"--remote-debugging-pipe",
	}
}

// Browser is a running headless Chromium. Methods are safe for concurrent
// use.
type Browser struct {
	cmd  *exec.Cmd
	w    *os.File // commands: the browser's fd 3
	r    *os.File // replies and events: the browser's fd 4
	dir  string
	done chan struct{} // closed when the reader ends

	mu      sync.Mutex
	nextID  int64
	pending map[int64]chan reply
	readErr error
	// console holds each session's console entries, in arrival order.
	console map[string][]ConsoleEntry
}

// ConsoleEntry is one message a page wrote to its console: an uncaught
// exception, a console call, or a browser log entry (a resource that did
// not load, content a Content-Security-Policy blocked).
type ConsoleEntry struct {
	// Level is "error", "warning", "info", "log", "verbose" or "debug"
	// (an exception is "error").
	Level string
	// Source is where it came from: "exception", "console-api", or the
	// Log domain's source ("network", "security", "javascript", ...).
	Source string
	Text   string
	URL    string
}

type reply struct {
	Result json.RawMessage `json:"result"`
	Error  *struct {
		Code    int    `json:"code"`
		Message string `json:"message"`
	} `json:"error"`
}

// Start starts the Chromium at exe with [Flags] and a fresh user data
// directory inside tmp (removed by Close). Its stderr goes to stderr (nil:
// discarded).
func Start(exe, tmp string, stderr io.Writer) (*Browser, error) {
	dir, err := os.MkdirTemp(tmp, "chromium-profile-")
	if err != nil {
		return nil, err
	}
	cmdR, cmdW, err := os.Pipe()
	if err != nil {
		return nil, err
	}
	evR, evW, err := os.Pipe()
	if err != nil {
		cmdR.Close()
		cmdW.Close()
		return nil, err
	}
	args := append(Flags(), "--user-data-dir="+dir, "about:blank")
	cmd := exec.Command(exe, args...)
	cmd.ExtraFiles = []*os.File{cmdR, evW} // fd 3, fd 4
	cmd.Stdout, cmd.Stderr = stderr, stderr
	cmd.SysProcAttr = sysProcAttr()
	if err := cmd.Start(); err != nil {
		cmdR.Close()
		cmdW.Close()
		evR.Close()
		evW.Close()
		os.RemoveAll(dir)
		return nil, fmt.Errorf("start %s: %w", exe, err)
	}
	cmdR.Close()
	evW.Close()
	b := &Browser{cmd: cmd, w: cmdW, r: evR, dir: dir, done: make(chan struct{}), pending: map[int64]chan reply{}, console: map[string][]ConsoleEntry{}}
	go b.read()
	return b, nil
}

// read dispatches replies to their callers until the pipe closes.
func (b *Browser) read() {
	defer close(b.done)
	br := bufio.NewReaderSize(b.r, 1<<20)
	for {
		msg, err := br.ReadBytes(0)
		if err != nil {
			b.mu.Lock()
			b.readErr = fmt.Errorf("browser closed its DevTools pipe: %w", err)
			for id, ch := range b.pending {
				close(ch)
				delete(b.pending, id)
			}
			b.mu.Unlock()
			return
		}
		var head struct {
			ID *int64 `json:"id"`
		}
		if json.Unmarshal(msg[:len(msg)-1], &head) != nil {
			continue
		}
		if head.ID == nil {
			b.event(msg[:len(msg)-1])
			continue
		}
		var rep reply
		if err := json.Unmarshal(msg[:len(msg)-1], &rep); err != nil {
			continue
		}
		b.mu.Lock()
		ch := b.pending[*head.ID]
		delete(b.pending, *head.ID)
		b.mu.Unlock()
		if ch != nil {
			ch <- rep
		}
	}
}

// event keeps a console event of a page; other events are dropped.
func (b *Browser) event(msg []byte) {
	var ev struct {
		Method    string `json:"method"`
		SessionID string `json:"sessionId"`
		Params    struct {
			// Runtime.consoleAPICalled
			Type string `json:"type"`
			Args []struct {
				Value       any    `json:"value"`
				Description string `json:"description"`
			} `json:"args"`
			// Runtime.exceptionThrown
			ExceptionDetails struct {
				Text      string `json:"text"`
				URL       string `json:"url"`
				Exception struct {
					Description string `json:"description"`
				} `json:"exception"`
			} `json:"exceptionDetails"`
			// Log.entryAdded
			Entry struct {
				Source string `json:"source"`
				Level  string `json:"level"`
				Text   string `json:"text"`
				URL    string `json:"url"`
			} `json:"entry"`
		} `json:"params"`
	}
	if json.Unmarshal(msg, &ev) != nil {
		return
	}
	var e ConsoleEntry
	switch ev.Method {
	case "Runtime.consoleAPICalled":
		e = ConsoleEntry{Level: ev.Params.Type, Source: "console-api"}
		for _, a := range ev.Params.Args {
			if a.Description != "" {
				e.Text += a.Description + " "
			} else {
				e.Text += fmt.Sprint(a.Value) + " "
			}
		}
		if e.Level == "warn" {
			e.Level = "warning"
		}
	case "Runtime.exceptionThrown":
		d := ev.Params.ExceptionDetails
		e = ConsoleEntry{Level: "error", Source: "exception", Text: d.Text + " " + d.Exception.Description, URL: d.URL}
	case "Log.entryAdded":
		l := ev.Params.Entry
		e = ConsoleEntry{Level: l.Level, Source: l.Source, Text: l.Text, URL: l.URL}
	default:
		return
	}
	b.mu.Lock()
	b.console[ev.SessionID] = append(b.console[ev.SessionID], e)
	b.mu.Unlock()
}

// Call sends method with params (nil: none) to the browser, or to the page
// attached as session when session is not "", and decodes the result into
// result (nil: dropped). Errors: the protocol's error, a closed pipe, ctx.
func (b *Browser) Call(ctx context.Context, session, method string, params, result any) error {
	b.mu.Lock()
	if b.readErr != nil {
		err := b.readErr
		b.mu.Unlock()
		return err
	}
	b.nextID++
	id := b.nextID
	ch := make(chan reply, 1)
	b.pending[id] = ch
	b.mu.Unlock()
	msg := map[string]any{"id": id, "method": method}
	if params != nil {
		msg["params"] = params
	}
	if session != "" {
		msg["sessionId"] = session
	}
	data, err := json.Marshal(msg)
	if err != nil {
		return err
	}
	if _, err := b.w.Write(append(data, 0)); err != nil {
		return fmt.Errorf("%s: write: %w", method, err)
	}
	select {
	case rep, ok := <-ch:
		if !ok {
			b.mu.Lock()
			defer b.mu.Unlock()
			return fmt.Errorf("%s: %w", method, b.readErr)
		}
		if rep.Error != nil {
			return fmt.Errorf("%s: %s (%d)", method, rep.Error.Message, rep.Error.Code)
		}
		if result != nil {
			return json.Unmarshal(rep.Result, result)
		}
		return nil
	case <-ctx.Done():
		b.mu.Lock()
		delete(b.pending, id)
		b.mu.Unlock()
		return fmt.Errorf("%s: %w", method, ctx.Err())
	}
}

// Page is one tab, attached as a DevTools session.
type Page struct {
	b       *Browser
	session string
}

// NewPage opens a blank tab of width × height CSS pixels.
func (b *Browser) NewPage(ctx context.Context, width, height int) (*Page, error) {
	var target struct {
		TargetID string `json:"targetId"`
	}
	if err := b.Call(ctx, "", "Target.createTarget", map[string]any{"url": "about:blank"}, &target); err != nil {
		return nil, err
	}
	var att struct {
		SessionID string `json:"sessionId"`
	}
	if err := b.Call(ctx, "", "Target.attachToTarget", map[string]any{"targetId": target.TargetID, "flatten": true}, &att); err != nil {
		return nil, err
	}
	p := &Page{b: b, session: att.SessionID}
	if err := p.resize(ctx, width, height); err != nil {
		return nil, err
	}
	for _, domain := range []string{"Runtime.enable", "Log.enable"} {
		if err := b.Call(ctx, p.session, domain, nil, nil); err != nil {
			return nil, err
		}
	}
	return p, nil
}

// Console returns what the page wrote to its console so far, oldest
// first: uncaught exceptions, console calls and browser log entries
// (resources that did not load, content the page's policy blocked).
func (p *Page) Console() []ConsoleEntry {
	p.b.mu.Lock()
	defer p.b.mu.Unlock()
	return append([]ConsoleEntry(nil), p.b.console[p.session]...)
}

// Errors returns the entries of [Page.Console] of level "error".
func (p *Page) Errors() []ConsoleEntry {
	var out []ConsoleEntry
	for _, e := range p.Console() {
		if e.Level == "error" {
			out = append(out, e)
		}
	}
	return out
}

func (p *Page) resize(ctx context.Context, width, height int) error {
	return p.b.Call(ctx, p.session, "Emulation.setDeviceMetricsOverride",
		map[string]any{"width": width, "height": height, "deviceScaleFactor": 1, "mobile": false}, nil)
}

// Navigate loads url and waits until the document's readyState is
// "complete" (polled every 50 ms until ctx ends).
func (p *Page) Navigate(ctx context.Context, url string) error {
	var nav struct {
		ErrorText string `json:"errorText"`
	}
	if err := p.b.Call(ctx, p.session, "Page.navigate", map[string]any{"url": url}, &nav); err != nil {
		return err
	}
	if nav.ErrorText != "" {
		return fmt.Errorf("navigate to %s: %s", url, nav.ErrorText)
	}
	for {
		var state string
		if err := p.Eval(ctx, "document.location.href + ' ' + document.readyState", &state); err == nil && state == url+" complete" {
			return nil
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("navigate to %s: %w", url, ctx.Err())
		case <-time.After(50 * time.Millisecond):
		}
	}
}

// Eval evaluates a JavaScript expression in the page (the test's own code,
// not the page's) and decodes its value, returned by value, into result.
// Errors: an exception thrown by the expression, or of [Browser.Call].
func (p *Page) Eval(ctx context.Context, expr string, result any) error {
	var out struct {
		Result struct {
			Value json.RawMessage `json:"value"`
		} `json:"result"`
		ExceptionDetails *struct {
			Text      string `json:"text"`
			Exception struct {
				Description string `json:"description"`
			} `json:"exception"`
		} `json:"exceptionDetails"`
	}
	if err := p.b.Call(ctx, p.session, "Runtime.evaluate", map[string]any{"expression": expr, "returnByValue": true}, &out); err != nil {
		return err
	}
	if e := out.ExceptionDetails; e != nil {
		return fmt.Errorf("evaluate: %s %s", e.Text, e.Exception.Description)
	}
	if len(out.Result.Value) == 0 {
		return errors.New("evaluate: the expression has no JSON value")
	}
	return json.Unmarshal(out.Result.Value, result)
}

// Screenshot returns a PNG of the whole page, at most maxHeight CSS pixels
// tall (the viewport is grown to the page's height first).
func (p *Page) Screenshot(ctx context.Context, width, maxHeight int) ([]byte, error) {
	var height int
	if err := p.Eval(ctx, "Math.ceil(document.documentElement.scrollHeight)", &height); err != nil {
		return nil, err
	}
	height = max(1, min(height, maxHeight))
	if err := p.resize(ctx, width, height); err != nil {
		return nil, err
	}
	var shot struct {
		Data string `json:"data"`
	}
	if err := p.b.Call(ctx, p.session, "Page.captureScreenshot", map[string]any{"format": "png"}, &shot); err != nil {
		return nil, err
	}
	return base64.StdEncoding.DecodeString(shot.Data)
}

// Close asks the browser to quit, kills its process group if it has not
// ended within 5 s, and removes its user data directory.
func (b *Browser) Close() error {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	_ = b.Call(ctx, "", "Browser.close", nil, nil)
	cancel()
	exited := make(chan error, 1)
	go func() { exited <- b.cmd.Wait() }()
	select {
	case <-exited:
	case <-time.After(5 * time.Second):
		killGroup(b.cmd.Process)
		<-exited
	}
	// Helpers of the browser may outlive its main process.
	killGroup(b.cmd.Process)
	b.w.Close()
	b.r.Close()
	<-b.done
	return os.RemoveAll(b.dir)
}
