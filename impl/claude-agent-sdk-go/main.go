// Command adapter certifies github.com/severity1/claude-agent-sdk-go as a
// host-role IUT in conform's spawned mode: the SDK starts "the Claude Code
// CLI", which is conform's agent double (claude on PATH), and this program
// answers the agent's requests through the SDK's own callbacks, following
// the vector's policy in CONFORM_POLICY (docs/host-role.md). It uses the
// SDK as its README shows: WithClient, Query, ReceiveMessages until the
// ResultMessage, WithCanUseTool, WithPreToolUseHook, WithSdkMcpServer.
// Everything on the wire is the SDK's doing.
package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"regexp"
	"strconv"
	"strings"

	claudecode "github.com/severity1/claude-agent-sdk-go"
)

const denied = "Denied by policy"

// rule is one can_use_tool rule of the policy.
type rule struct {
	Behavior           string                        `json:"behavior"`
	Message            *string                       `json:"message"`
	Interrupt          bool                          `json:"interrupt"`
	UpdatedInput       map[string]any                `json:"updatedInput"`
	UpdatedPermissions []claudecode.PermissionUpdate `json:"updatedPermissions"`
}

type policy struct {
	CanUseTool map[string]*rule                      `json:"can_use_tool"`
	Answers    map[string]any                        `json:"answers"`
	Hooks      map[string]claudecode.HookJSONOutput  `json:"hooks"`
	MCP        map[string]map[string]json.RawMessage `json:"mcp"`
}

func readPolicy() (*policy, error) {
	p := &policy{}
	if raw := os.Getenv("CONFORM_POLICY"); raw != "" {
		if err := json.Unmarshal([]byte(raw), p); err != nil {
			return nil, fmt.Errorf("CONFORM_POLICY: %w", err)
		}
	}
	return p, nil
}

func deny(r *rule) claudecode.PermissionResult {
	res := claudecode.NewPermissionResultDeny(denied)
	if r != nil && r.Message != nil {
		res.Message = *r.Message
	}
	if r != nil {
		res.Interrupt = r.Interrupt
	}
	return res
}

// canUseTool follows the policy's rule for the tool; AskUserQuestion gets
// the policy's answers (lists joined by ", ") in updatedInput.
func (p *policy) canUseTool(_ context.Context, tool string, input map[string]any, _ claudecode.ToolPermissionContext) (claudecode.PermissionResult, error) {
	r, ok := p.CanUseTool[tool]
	if !ok {
		r = p.CanUseTool["*"]
	}
	if r != nil && r.Behavior == "deny" {
		return deny(r), nil
	}
	questions, isAsk := input["questions"].([]any)
	if tool == "AskUserQuestion" && isAsk && (r == nil || r.UpdatedInput == nil) {
		answers := map[string]any{}
		for _, q := range questions {
			qm, _ := q.(map[string]any)
			text, _ := qm["question"].(string)
			a, ok := p.Answers[text]
			if !ok {
				return deny(nil), nil
			}
			if list, isList := a.([]any); isList {
				parts := make([]string, len(list))
				for i, s := range list {
					parts[i] = fmt.Sprint(s)
				}
				a = strings.Join(parts, ", ")
			}
			answers[text] = a
		}
		updated := map[string]any{}
		for k, v := range input {
			updated[k] = v
		}
		updated["answers"] = answers
		allow := claudecode.NewPermissionResultAllow()
		allow.UpdatedInput = updated
		return allow, nil
	}
	if r != nil && r.Behavior == "allow" {
		// A rule without updatedInput allows the tool with its input
		// unchanged: the SDK's plain allow.
		allow := claudecode.NewPermissionResultAllow()
		allow.UpdatedInput = r.UpdatedInput
		allow.UpdatedPermissions = r.UpdatedPermissions
		return allow, nil
	}
	return deny(nil), nil
}

var hookID = regexp.MustCompile(`^hook_(\d+)$`)

// hooks registers one PreToolUse hook per callback number up to the
// highest hook_N of the policy: the SDK numbers callbacks hook_0, hook_1,
// ... in registration order. Numbers the policy skips answer {}.
func (p *policy) hooks() []claudecode.Option {
	n := -1
	for k := range p.Hooks {
		if m := hookID.FindStringSubmatch(k); m != nil {
			i, _ := strconv.Atoi(m[1])
			n = max(n, i)
		}
	}
	var opts []claudecode.Option
	for i := 0; i <= n; i++ {
		out := p.Hooks["hook_"+strconv.Itoa(i)]
		opts = append(opts, claudecode.WithPreToolUseHook("", func(context.Context, any, *string, claudecode.HookContext) (claudecode.HookJSONOutput, error) {
			return out, nil
		}))
	}
	return opts
}

// policyServer is an in-process MCP server whose tools/list and tools/call
// results are the policy's (the SDK answers initialize itself).
type policyServer struct {
	name    string
	methods map[string]json.RawMessage
}

func (s *policyServer) Name() string    { return s.name }
func (s *policyServer) Version() string { return "1.0.0" }

func (s *policyServer) ListTools(context.Context) ([]claudecode.McpToolDefinition, error) {
	var res struct {
		Tools []claudecode.McpToolDefinition `json:"tools"`
	}
	if raw, ok := s.methods["tools/list"]; ok {
		if err := json.Unmarshal(raw, &res); err != nil {
			return nil, err
		}
	}
	return res.Tools, nil
}

func (s *policyServer) CallTool(_ context.Context, name string, _ map[string]any) (*claudecode.McpToolResult, error) {
	res := &claudecode.McpToolResult{}
	raw, ok := s.methods["tools/call"]
	if !ok {
		return res, nil
	}
	if err := json.Unmarshal(raw, res); err != nil {
		return nil, fmt.Errorf("tool %s: %w", name, err)
	}
	return res, nil
}

func (p *policy) mcpServers() []claudecode.Option {
	var opts []claudecode.Option
	for name, methods := range p.MCP {
		opts = append(opts, claudecode.WithSdkMcpServer(name, &claudecode.McpSdkServerConfig{
			Type: claudecode.McpServerTypeSdk, Name: name, Instance: &policyServer{name: name, methods: methods},
		}))
	}
	return opts
}

func run(ctx context.Context) error {
	p, err := readPolicy()
	if err != nil {
		return err
	}
	opts := []claudecode.Option{claudecode.WithCanUseTool(p.canUseTool)}
	opts = append(opts, p.hooks()...)
	opts = append(opts, p.mcpServers()...)
	return claudecode.WithClient(ctx, func(client claudecode.Client) error {
		if err := client.Query(ctx, "conform"); err != nil {
			return err
		}
		msgs := client.ReceiveMessages(ctx)
		for {
			select {
			case msg := <-msgs:
				if msg == nil {
					return nil
				}
				if _, done := msg.(*claudecode.ResultMessage); done {
					return nil
				}
			case <-ctx.Done():
				return ctx.Err()
			}
		}
	}, opts...)
}

func main() {
	if err := run(context.Background()); err != nil {
		fmt.Fprintln(os.Stderr, "adapter:", err)
		os.Exit(1)
	}
}
