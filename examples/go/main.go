// Command agent is a minimal agent for the control protocol v1, the Go twin
// of examples/python/agent.py (docs/first-implementation.md): it answers
// every control_request on stdin with one control_response line on stdout.
package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"slices"
	"strings"
)

type object = map[string]any

// refused turns a reply into an error: a message for people, an optional
// code for programs, and any other members.
type refused object

var fixed = map[string]object{ // request subtype -> its success payload, always the same
	"initialize": {"commands": []any{}, "agents": []any{}, "output_style": "default",
		"available_output_styles": []any{"default"}, "models": []any{}, "account": object{}},
	"interrupt":          {"still_queued": []any{}},
	"get_binary_version": {"version": "0.1.0", "buildTime": "2026-01-01T00:00:00Z"},
	"get_context_usage":  {"categories": []any{}, "totalTokens": 0, "maxTokens": 200000},
	"mcp_status":         {"mcpServers": []any{}},
	"stop_task":          {},
}

var modes = []string{"acceptEdits", "auto", "bypassPermissions", "default", "dontAsk", "plan"}

// handlers answer the other subtypes with a payload (nil: a success
// without one) or a refusal.
var handlers = map[string]func(req object, model *string) (object, refused){
	"set_permission_mode": func(req object, _ *string) (object, refused) {
		mode, _ := req["mode"].(string)
		switch {
		case mode == "bypassPermissions":
			return nil, refused{"error": "the session was not launched to allow it", "error_code": "bypass_not_launched"}
		case !slices.Contains(modes, mode):
			return nil, refused{"error": "mode must be one of " + strings.Join(modes, ", "), "error_code": "invalid_mode"}
		}
		return object{"mode": mode}, nil
	},
	"set_model": func(req object, model *string) (object, refused) {
		family := "default"
		if name, present := req["model"]; present && name != nil {
			s, ok := name.(string)
			if !ok {
				return nil, refused{"error": "model must be a string", "error_code": "invalid_request", "model": *model}
			}
			family, _, _ = strings.Cut(s, "[") // "sonnet[1m]": a sonnet
		}
		switch family {
		case "default":
			family = "opus"
		case "opus", "sonnet", "haiku":
		default:
			return nil, refused{"error": "not a model this agent knows", "error_code": "catalog_unknown", "model": *model}
		}
		*model = "claude-" + family + "-5-5"
		return object{"model": *model}, nil
	},
	"set_max_thinking_tokens": func(req object, _ *string) (object, refused) {
		whole := req["max_thinking_tokens"] == nil // an integer (2.0 is one) or null
		if n, ok := req["max_thinking_tokens"].(json.Number); ok {
			f, err := n.Float64()
			whole = err == nil && f == math.Trunc(f) && !math.IsInf(f, 0)
		}
		switch req["thinking_display"] {
		case nil, "summarized", "omitted", "highlights":
			if whole {
				return nil, nil // a success without a payload
			}
		}
		return nil, refused{"error": "max_thinking_tokens must be an integer or null"}
	},
	"mcp_reconnect": unknownServer,
	"mcp_toggle":    unknownServer,
	"rewind_files": func(req object, _ *string) (object, refused) {
		if req["dry_run"] == true {
			return object{"canRewind": false, "error": "File rewinding is not enabled."}, nil
		}
		return nil, refused{"error": "File rewinding is not enabled."}
	},
}

func unknownServer(req object, _ *string) (object, refused) {
	return nil, refused{"error": fmt.Sprintf("Server not found: %v", req["serverName"])}
}

// answer returns the success payload for one request, or a refusal.
func answer(req object, model *string) (object, refused) {
	subtype := fmt.Sprint(req["subtype"])
	if payload, ok := fixed[subtype]; ok {
		return payload, nil
	}
	if handle, ok := handlers[subtype]; ok {
		return handle(req, model)
	}
	return nil, refused{"error": "Unsupported control request subtype: " + subtype, "error_code": "unsupported_request"}
}

func main() {
	model := "claude-opus-5-5"
	in := bufio.NewReader(os.Stdin)   // ReadBytes, not bufio.Scanner: a line may be longer than 64 KiB
	out := json.NewEncoder(os.Stdout) // os.Stdout is unbuffered: each reply leaves at once
	for {
		line, err := in.ReadBytes('\n')
		var frame object
		dec := json.NewDecoder(bytes.NewReader(line))
		dec.UseNumber() // keep numbers as written: 2.0, and request ids such as 1e3
		if dec.Decode(&frame) == nil && frame["type"] == "control_request" {
			req, _ := frame["request"].(object)
			reply := object{"subtype": "success", "request_id": frame["request_id"]}
			payload, refusal := answer(req, &model)
			if refusal != nil {
				reply["subtype"] = "error"
				for k, v := range refusal {
					reply[k] = v
				}
			} else if payload != nil {
				reply["response"] = payload
			}
			out.Encode(object{"type": "control_response", "response": reply})
		}
		if err != nil {
			return // end of input: the session is over
		}
	}
}
