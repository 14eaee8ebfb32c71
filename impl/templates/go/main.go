// Command adapter is a template: a conform host-role adapter for your SDK,
// in Go.
//
// conform certifies a host (an SDK that drives the Claude Code CLI) in
// spawned mode: your adapter is started once per vector, with the vector's
// decisions in the environment variable CONFORM_POLICY (docs/host-role.md),
// and starts "the CLI" the way your SDK always does: the claude on PATH
// (also named by CONFORM_AGENT) is conform's agent double, which plays the
// vector and records what your SDK answers.
//
//	go build -o adapter . && conform run --role host --mode spawned -- ./adapter
//
// Part 1 (keep): the policy functions; each returns the reply body your
// SDK's callback should produce. Part 2 (replace): a stand-in for an SDK, so
// that this template runs as it is. In your adapter, delete Part 2, build
// your SDK's client as its README shows, register Part 1's functions as its
// callbacks (permission callback, hooks, an in-process MCP server, dialog and
// elicitation handlers), send one prompt and wait for the result. Never fix
// up what your SDK writes: the report should show its faults.
package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"strings"
)

type obj = map[string]any

const denied = "Denied by policy"

// policy is CONFORM_POLICY; numbers stay json.Number so ids echo exactly.
var policy = func() obj {
	p := obj{}
	if raw := os.Getenv("CONFORM_POLICY"); raw != "" {
		dec := json.NewDecoder(strings.NewReader(raw))
		dec.UseNumber()
		if err := dec.Decode(&p); err != nil {
			fmt.Fprintln(os.Stderr, "CONFORM_POLICY:", err)
			os.Exit(2)
		}
	}
	return p
}()

func member(m obj, k string) obj { v, _ := m[k].(obj); return v }

// ---- Part 1: the policy as callbacks ----

// canUseTool is the permission decision {"behavior": "allow"|"deny", ...};
// decided is false for "no decision yet" (the rule {"defer": true}: the user
// has not answered).
func canUseTool(tool string, input obj) (decision obj, decided bool) {
	rules := member(policy, "can_use_tool")
	rule, ok := rules[tool].(obj)
	if !ok {
		rule = member(rules, "*")
	}
	if rule["defer"] == true {
		return nil, false
	}
	if rule["behavior"] == "deny" {
		out := obj{"behavior": "deny", "message": denied}
		if m, ok := rule["message"]; ok {
			out["message"] = m
		}
		if rule["interrupt"] == true {
			out["interrupt"] = true
		}
		return out, true
	}
	_, ruleInput := rule["updatedInput"]
	if qs, isList := input["questions"].([]any); tool == "AskUserQuestion" && isList && !ruleInput {
		answers, out := member(policy, "answers"), obj{}
		for _, q := range qs {
			qm, _ := q.(obj)
			text, _ := qm["question"].(string)
			a, ok := answers[text]
			if qm == nil || !ok {
				return obj{"behavior": "deny", "message": denied}, true
			}
			if list, ok := a.([]any); ok {
				parts := make([]string, len(list))
				for i, s := range list {
					parts[i], _ = s.(string)
				}
				a = strings.Join(parts, ", ")
			}
			out[text] = a
		}
		updated := obj{"answers": out}
		for k, v := range input {
			if k != "answers" {
				updated[k] = v
			}
		}
		return obj{"behavior": "allow", "updatedInput": updated}, true
	}
	if rule["behavior"] == "allow" {
		out := obj{"behavior": "allow", "updatedInput": input}
		if ruleInput {
			out["updatedInput"] = rule["updatedInput"]
		}
		if p, ok := rule["updatedPermissions"]; ok {
			out["updatedPermissions"] = p
		}
		return out, true
	}
	return obj{"behavior": "deny", "message": denied}, true
}

// hook returns the hook output of a registered callback, nil for an unknown one.
func hook(callbackID string) obj { return member(member(policy, "hooks"), callbackID) }

// mcp is the JSON-RPC reply of your SDK's in-process MCP server.
func mcp(server string, msg obj) obj {
	_, hasMethod := msg["method"].(string)
	if !hasMethod || msg["id"] == nil {
		return obj{"jsonrpc": "2.0", "result": obj{}} // a notification: acknowledged
	}
	methods, ok := member(policy, "mcp")[server].(obj)
	if !ok {
		return obj{"jsonrpc": "2.0", "id": msg["id"], "error": obj{"code": -32601, "message": "Server '" + server + "' not found"}}
	}
	result, ok := methods[msg["method"].(string)]
	if !ok {
		result = obj{}
	}
	return obj{"jsonrpc": "2.0", "id": msg["id"], "result": result}
}

func orDefault(name string, def obj) any {
	if v, ok := policy[name]; ok {
		return v
	}
	return def
}

// ---- Part 2: a stand-in for your SDK (replace with your SDK's client) ----

// answer returns the control_response payload for one request, or nil: no
// reply (a permission the user has not decided yet).
func answer(body obj) obj {
	str := func(k string) string { s, _ := body[k].(string); return s }
	switch sub := str("subtype"); sub {
	case "can_use_tool":
		input, _ := body["input"].(obj)
		if input == nil {
			input = obj{}
		}
		decision, decided := canUseTool(str("tool_name"), input)
		if !decided {
			// No decision yet: a real SDK adapter's permission callback never
			// returns (it blocks, or its future/channel is never completed),
			// so the SDK writes nothing, even when the agent cancels it.
			return nil
		}
		return obj{"subtype": "success", "response": decision}
	case "hook_callback":
		if out := hook(str("callback_id")); out != nil {
			return obj{"subtype": "success", "response": out}
		}
		return obj{"subtype": "error", "error": "No hook callback found for ID: " + str("callback_id")}
	case "mcp_message":
		msg, _ := body["message"].(obj)
		return obj{"subtype": "success", "response": obj{"mcp_response": mcp(str("server_name"), msg)}}
	case "request_user_dialog":
		return obj{"subtype": "success", "response": orDefault("dialog", obj{"behavior": "cancelled"})}
	case "elicitation":
		return obj{"subtype": "success", "response": orDefault("elicitation", obj{"action": "decline"})}
	case "side_question":
		return obj{"subtype": "success", "response": orDefault("side_question", obj{"action": "decline"})}
	default:
		return obj{"subtype": "error", "error": "Unsupported control request subtype: " + sub}
	}
}

func main() {
	agent := exec.Command("claude", "--output-format", "stream-json", "--verbose", "--input-format", "stream-json", "--permission-prompt-tool", "stdio")
	agent.Stderr = os.Stderr
	in, _ := agent.StdinPipe()
	out, _ := agent.StdoutPipe()
	if err := agent.Start(); err != nil {
		fmt.Fprintln(os.Stderr, "adapter:", err)
		os.Exit(1)
	}
	send := func(frame obj) {
		b, _ := json.Marshal(frame)
		in.Write(append(b, '\n'))
	}
	send(obj{"type": "control_request", "request_id": "init-1", "request": obj{"subtype": "initialize"}})
	send(obj{"type": "user", "message": obj{"role": "user", "content": "conform"}, "parent_tool_use_id": nil})
	sc := bufio.NewScanner(out)
	sc.Buffer(nil, 4<<20)
	for sc.Scan() {
		var frame obj
		dec := json.NewDecoder(strings.NewReader(sc.Text()))
		dec.UseNumber()
		if err := dec.Decode(&frame); err != nil {
			continue
		}
		switch frame["type"] {
		case "result":
			in.Close()
		case "control_request":
			body, _ := frame["request"].(obj)
			reply := answer(body)
			if reply == nil {
				continue // pending: no reply, ever (v1)
			}
			if id, ok := frame["request_id"]; ok {
				reply["request_id"] = id
			}
			send(obj{"type": "control_response", "response": reply})
		}
	}
	if err := agent.Wait(); err != nil {
		fmt.Fprintln(os.Stderr, "adapter:", err)
		os.Exit(1)
	}
}
