package cliplay

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os/exec"
	"sync"
	"time"

	"github.com/conform-kit/conform/internal/canon"
	"github.com/conform-kit/conform/internal/standin"
)

// MaxLine bounds one line either way through the tap, in bytes (the CLI's
// initialize reply is about 100 KB).
const MaxLine = 16 << 20

// TapConfig configures [Tap].
type TapConfig struct {
	// Play is the vector's play ([Derive]).
	Play *Play
	// CLI is the CLI's argv (never run through a shell); Env its whole
	// environment, to which Tap adds ANTHROPIC_BASE_URL (the stand-in);
	// Dir its working directory ("" for the caller's).
	CLI []string
	Env []string
	Dir string
	// HostIn is what the host writes to the agent; HostOut what the agent
	// writes to the host.
	HostIn  io.Reader
	HostOut io.Writer
	// Transcript receives, one line each, the host's replies to the
	// requests that stand for the vector's items (with the vector's ids, as
	// the host wrote them) and every other host line that is neither its
	// own request, nor a user turn, nor a reply to another CLI request;
	// Observed receives the host's own requests and user turns. Either may
	// be nil.
	Transcript, Observed io.Writer
	// Stderr receives the CLI's stderr (nil: discarded).
	Stderr io.Writer
	// Timeout bounds the whole session (default 60 s); then the CLI is
	// killed.
	Timeout time.Duration
}

// Observation is what a [Tap] session saw.
type Observation struct {
	// Sent holds, per item of the play, the CLI's request that stood for
	// it, as the CLI wrote it (nil when the CLI never sent it).
	Sent []json.RawMessage `json:"sent"`
	// Replies holds, per item, the host's reply line (nil: none).
	Replies []json.RawMessage `json:"replies"`
	// Unmatched are the CLI's other requests (MCP handshakes, hooks and
	// permission requests the vector does not name), answered by the host
	// and not recorded in the transcript.
	Unmatched []json.RawMessage `json:"unmatched,omitempty"`
	// Requests names every request the CLI sent its host, in order:
	// "<subtype> <tool or server and method>".
	Requests []string `json:"requests"`
	// Results are the tool results the CLI sent the stand-in; Tools the
	// tools it offered the model.
	Results []standin.ToolResult `json:"results"`
	Tools   []string             `json:"tools,omitempty"`
	// Exit is the CLI's exit status (-1 when it was killed).
	Exit int `json:"exit"`
	// TimedOut is true when the session hit Timeout.
	TimedOut bool `json:"timed_out,omitempty"`
}

// mapping links a CLI request that stands for an item to the item's ids.
type mapping struct {
	item     int
	cliID    json.RawMessage
	cliRPCID json.RawMessage
}

type tap struct {
	cfg  TapConfig
	mu   sync.Mutex
	used []bool
	// byVector maps the canonical form of an item's request_id to its
	// mapping, once the CLI sent the request.
	byVector map[string]*mapping
	obs      *Observation
	toCLI    io.WriteCloser
	cliDone  bool
}

// Tap starts the stand-in with the play's script and the CLI with
// ANTHROPIC_BASE_URL pointing at it, and relays lines between the host and
// the CLI until the CLI exits: each CLI request that stands for an item of
// the play reaches the host with the item's request_id (and an MCP
// message's JSON-RPC id) in place of the CLI's, and the host's reply
// reaches the CLI with the CLI's ids back. Every other line passes
// unchanged. Errors: the stand-in or the CLI cannot be started.
func Tap(ctx context.Context, cfg TapConfig) (*Observation, error) {
	if cfg.Timeout <= 0 {
		cfg.Timeout = 60 * time.Second
	}
	srv, err := standin.Start(cfg.Play.Script)
	if err != nil {
		return nil, err
	}
	defer srv.Close()
	ctx, cancel := context.WithTimeout(ctx, cfg.Timeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, cfg.CLI[0], cfg.CLI[1:]...)
	cmd.Env = append(append([]string{}, cfg.Env...), "ANTHROPIC_BASE_URL="+srv.URL())
	cmd.Dir = cfg.Dir
	cmd.Stderr = cfg.Stderr
	cmd.WaitDelay = 2 * time.Second
	stdin, err := cmd.StdinPipe()
	if err != nil {
		return nil, err
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("start the CLI %s: %w", cfg.CLI[0], err)
	}
	n := len(cfg.Play.Items)
	t := &tap{cfg: cfg, used: make([]bool, n), byVector: map[string]*mapping{}, toCLI: stdin,
		obs: &Observation{Sent: make([]json.RawMessage, n), Replies: make([]json.RawMessage, n)}}

	// The host side ends when the host closes its end; the session ends
	// when the CLI does.
	go t.fromHost()
	t.fromCLI(stdout) // until the CLI closes stdout
	_ = cmd.Wait()    // the exit status is data
	t.mu.Lock()
	t.cliDone = true
	obs := *t.obs
	t.mu.Unlock()
	_ = stdin.Close()
	obs.Exit = cmd.ProcessState.ExitCode()
	obs.TimedOut = errors.Is(ctx.Err(), context.DeadlineExceeded)
	obs.Results = srv.Results()
	obs.Tools = srv.Tools()
	return &obs, nil
}

// fromCLI relays the CLI's lines to the host, mapping the requests that
// stand for the play's items.
func (t *tap) fromCLI(r io.Reader) {
	br := bufio.NewReaderSize(r, 64<<10)
	for {
		line, err := readLine(br)
		if len(line) > 0 {
			out := t.cliLine(line)
			_, _ = t.cfg.HostOut.Write(append(out, '\n'))
		}
		if err != nil {
			return
		}
	}
}

func (t *tap) cliLine(line []byte) []byte {
	frame, ok := decodeObject(line)
	if !ok || frame["type"] != "control_request" {
		return line
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	t.obs.Requests = append(t.obs.Requests, describeRequest(frame))
	i := t.cfg.Play.match(frame, t.used)
	if i < 0 {
		t.obs.Unmatched = append(t.obs.Unmatched, append(json.RawMessage(nil), line...))
		return line
	}
	if t.cliDone {
		return line
	}
	t.used[i] = true
	it := t.cfg.Play.Items[i]
	t.obs.Sent[i] = append(json.RawMessage(nil), line...)
	cliID, _ := rawMember(line, "request_id")
	m := &mapping{item: i, cliID: cliID}
	frame["request_id"] = it.RequestID
	if it.Subtype == "mcp_message" {
		if req, ok := frame["request"].(map[string]any); ok {
			if msg, ok := req["message"].(map[string]any); ok {
				if id, has := msg["id"]; has {
					m.cliRPCID, _ = json.Marshal(id)
					if it.RPCID != nil {
						msg["id"] = it.RPCID
					}
				}
			}
		}
	}
	t.byVector[key(it.RequestID)] = m
	out, err := json.Marshal(frame)
	if err != nil {
		return line
	}
	return out
}

// fromHost relays the host's lines to the CLI, mapping replies back, and
// records them.
func (t *tap) fromHost() {
	br := bufio.NewReaderSize(t.cfg.HostIn, 64<<10)
	for {
		line, err := readLine(br)
		if len(line) > 0 {
			out, rec, observed := t.hostLine(line)
			if rec && t.cfg.Transcript != nil {
				_, _ = t.cfg.Transcript.Write(append(append([]byte{}, line...), '\n'))
			}
			if observed && t.cfg.Observed != nil {
				_, _ = t.cfg.Observed.Write(append(append([]byte{}, line...), '\n'))
			}
			t.mu.Lock()
			done := t.cliDone
			t.mu.Unlock()
			if !done {
				_, _ = t.toCLI.Write(append(out, '\n'))
			}
		}
		if err != nil {
			_ = t.toCLI.Close()
			return
		}
	}
}

// hostLine returns the line to give the CLI, and whether to record the
// host's line in the transcript or in the observed file.
func (t *tap) hostLine(line []byte) (out []byte, transcript, observed bool) {
	frame, ok := decodeObject(line)
	if !ok {
		return line, true, false
	}
	switch frame["type"] {
	case "control_request", "user":
		return line, false, true
	case "control_response":
	default:
		return line, true, false
	}
	resp, _ := frame["response"].(map[string]any)
	id, has := resp["request_id"]
	if !has {
		return line, true, false
	}
	kb, err := canon.Canonical(id)
	if err != nil {
		return line, true, false
	}
	t.mu.Lock()
	m := t.byVector[string(kb)]
	if m != nil && !t.cliDone && t.obs.Replies[m.item] == nil {
		t.obs.Replies[m.item] = append(json.RawMessage(nil), line...)
	}
	t.mu.Unlock()
	if m == nil {
		// A reply to a CLI request the vector does not name (it carries the
		// CLI's own id), or to no request at all: the latter is the host's
		// fault and goes to the transcript for the runner to judge.
		t.mu.Lock()
		known := t.isCLIRequest(string(kb))
		t.mu.Unlock()
		return line, !known, false
	}
	resp["request_id"] = m.cliID
	if m.cliRPCID != nil {
		if body, ok := resp["response"].(map[string]any); ok {
			if mr, ok := body["mcp_response"].(map[string]any); ok {
				if _, has := mr["id"]; has {
					mr["id"] = m.cliRPCID
				}
			}
		}
	}
	b, err := json.Marshal(frame)
	if err != nil {
		return line, true, false
	}
	return b, true, false
}

// isCLIRequest reports whether k is the canonical id of an unmatched CLI
// request (t.mu held).
func (t *tap) isCLIRequest(k string) bool {
	for _, u := range t.obs.Unmatched {
		if id, ok := rawMember(u, "request_id"); ok && key(id) == k {
			return true
		}
	}
	return false
}

func key(raw json.RawMessage) string {
	b, err := canon.CanonicalBytes(raw)
	if err != nil {
		return string(raw)
	}
	return string(b)
}

func decodeObject(line []byte) (map[string]any, bool) {
	dec := json.NewDecoder(bytes.NewReader(line))
	dec.UseNumber()
	var m map[string]any
	if dec.Decode(&m) != nil || m == nil {
		return nil, false
	}
	return m, true
}

// readLine reads one line without its LF; a line over MaxLine is cut.
func readLine(br *bufio.Reader) ([]byte, error) {
	var buf []byte
	for {
		chunk, err := br.ReadSlice('\n')
		if len(buf)+len(chunk) <= MaxLine {
			buf = append(buf, chunk...)
		}
		if errors.Is(err, bufio.ErrBufferFull) {
			continue
		}
		return bytes.TrimSuffix(bytes.TrimSuffix(buf, []byte("\n")), []byte("\r")), err
	}
}

// match returns the first unused item that frame (a CLI control_request)
// stands for, or -1.
func (p *Play) match(frame map[string]any, used []bool) int {
	req, _ := frame["request"].(map[string]any)
	sub, _ := req["subtype"].(string)
	str := func(m map[string]any, k string) string { s, _ := m[k].(string); return s }
	for i, it := range p.Items {
		if used[i] || it.Subtype != sub {
			continue
		}
		switch sub {
		case "can_use_tool":
			if str(req, "tool_name") == it.ToolName && str(req, "tool_use_id") == it.ToolUseID {
				return i
			}
		case "hook_callback":
			in, _ := req["input"].(map[string]any)
			if str(req, "callback_id") == it.CallbackID && (str(req, "tool_use_id") == it.ToolUseID || str(in, "tool_use_id") == it.ToolUseID) {
				return i
			}
		case "mcp_message":
			msg, _ := req["message"].(map[string]any)
			params, _ := msg["params"].(map[string]any)
			if str(req, "server_name") == it.Server && str(msg, "method") == it.Method && (it.Call == "" || str(params, "name") == it.Call) {
				return i
			}
		}
	}
	return -1
}

// describeRequest names a CLI request: its subtype and what it is about.
func describeRequest(frame map[string]any) string {
	req, _ := frame["request"].(map[string]any)
	str := func(m map[string]any, k string) string { s, _ := m[k].(string); return s }
	sub := str(req, "subtype")
	switch sub {
	case "can_use_tool":
		return sub + " " + str(req, "tool_name")
	case "hook_callback":
		in, _ := req["input"].(map[string]any)
		return sub + " " + str(req, "callback_id") + " " + str(in, "hook_event_name") + " " + str(in, "tool_name")
	case "mcp_message":
		msg, _ := req["message"].(map[string]any)
		return sub + " " + str(req, "server_name") + " " + str(msg, "method")
	}
	return sub
}
