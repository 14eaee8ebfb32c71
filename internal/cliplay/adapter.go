package cliplay

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"io"
	"slices"
	"sync"
)

// AgentFlags are the flags a host gives the agent it starts, as the Agent
// SDKs give the CLI (@anthropic-ai/claude-agent-sdk 0.3.332, observed).
var AgentFlags = []string{"--output-format", "stream-json", "--verbose", "--input-format", "stream-json", "--permission-prompt-tool=stdio"}

// Prompt is the user turn the adapter sends (the TypeScript driver's).
const Prompt = "conform"

// AdapterConfig configures [Adapter].
type AdapterConfig struct {
	// Policy is CONFORM_POLICY's JSON (empty: {}); it says which hook
	// callbacks and SDK MCP servers to register in initialize.
	Policy []byte
	// FromAgent is what the agent writes; ToAgent its stdin (closed when
	// the agent ends the turn with a result frame, as the SDKs do).
	FromAgent io.Reader
	ToAgent   io.WriteCloser
	// FromHost is what the direct host writes; ToHost its stdin (closed
	// when the agent's output ends).
	FromHost io.Reader
	ToHost   io.WriteCloser
}

// Initialize returns the initialize request the adapter sends: every hook
// callback id of the policy registered for PreToolUse (as the conform SDK
// drivers register them) and every MCP server of the policy as an SDK
// server.
func Initialize(policyJSON []byte) ([]byte, error) {
	var pol policy
	if len(policyJSON) > 0 {
		if err := json.Unmarshal(policyJSON, &pol); err != nil {
			return nil, err
		}
	}
	req := map[string]any{"subtype": "initialize"}
	if len(pol.Hooks) > 0 {
		ids := make([]string, 0, len(pol.Hooks))
		for id := range pol.Hooks {
			ids = append(ids, id)
		}
		slices.Sort(ids)
		req["hooks"] = map[string]any{"PreToolUse": []any{map[string]any{"hookCallbackIds": ids}}}
	}
	if len(pol.MCP) > 0 {
		names := make([]string, 0, len(pol.MCP))
		for n := range pol.MCP {
			names = append(names, n)
		}
		slices.Sort(names)
		req["sdkMcpServers"] = names
	}
	return json.Marshal(map[string]any{"type": "control_request", "request_id": "conform-adapter-init", "request": req})
}

// Adapter drives an agent as an Agent SDK does, on behalf of a direct-mode
// host: it sends [Initialize] and a user turn, passes every control request
// of the agent to the host and every reply of the host to the agent, and
// ends the session when the agent writes its result frame (closing the
// agent's stdin) and stops writing (closing the host's). The agent's other
// frames and the reply to the adapter's initialize are not passed on. It
// returns when both sides are done; errors are the policy's or a write's.
func Adapter(ctx context.Context, cfg AdapterConfig) error {
	init, err := Initialize(cfg.Policy)
	if err != nil {
		return err
	}
	user, _ := json.Marshal(map[string]any{"type": "user", "session_id": "", "parent_tool_use_id": nil,
		"message": map[string]any{"role": "user", "content": []any{map[string]any{"type": "text", "text": Prompt}}}})
	var (
		mu     sync.Mutex
		closed bool
	)
	toAgent := func(b []byte) error {
		mu.Lock()
		defer mu.Unlock()
		if closed {
			return nil
		}
		_, err := cfg.ToAgent.Write(append(append([]byte{}, b...), '\n'))
		return err
	}
	closeAgent := func() {
		mu.Lock()
		defer mu.Unlock()
		if !closed {
			closed = true
			_ = cfg.ToAgent.Close()
		}
	}
	if err := toAgent(init); err != nil {
		return err
	}
	if err := toAgent(user); err != nil {
		return err
	}
	hostDone := make(chan error, 1)
	go func() {
		br := bufio.NewReaderSize(cfg.FromHost, 64<<10)
		var werr error
		for {
			line, err := readLine(br)
			if len(line) > 0 && werr == nil {
				werr = toAgent(line)
			}
			if err != nil {
				hostDone <- werr
				return
			}
		}
	}()
	br := bufio.NewReaderSize(cfg.FromAgent, 64<<10)
	var werr error
	for {
		line, err := readLine(br)
		if len(line) > 0 {
			frame, ok := decodeObject(line)
			switch {
			case !ok:
			case frame["type"] == "control_request":
				if _, err := cfg.ToHost.Write(append(append([]byte{}, line...), '\n')); err != nil && werr == nil {
					werr = err
				}
			case frame["type"] == "result":
				closeAgent()
			}
		}
		if err != nil {
			break
		}
		if ctx.Err() != nil {
			break
		}
	}
	closeAgent()
	_ = cfg.ToHost.Close()
	select {
	case err := <-hostDone:
		if werr == nil && err != nil && !errors.Is(err, io.ErrClosedPipe) {
			werr = err
		}
	case <-ctx.Done():
	}
	return werr
}
