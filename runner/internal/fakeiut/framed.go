package fakeiut

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
)

// framed plays a server of the framed test suite (runner/testdata/framed):
// the rpc suite's requests, Content-Length framed both ways (the LSP base
// protocol). "framed-good" follows the framing; "framed-bad-header" writes
// its replies with a Content-Length that is not a number,
// "framed-wrong-length" with one 10 bytes longer than the body (and then
// waits for input, as a server does), "framed-bare" as bare JSON lines.
// Its reader is its own, not internal/frame's: the fake is checked against
// the kit, not with it.
func framed(behaviour string) (int, bool) {
	if !strings.HasPrefix(behaviour, "framed-") {
		return 0, false
	}
	in := bufio.NewReader(os.Stdin)
	out := bufio.NewWriter(os.Stdout)
	write := func(v any) {
		b, _ := json.Marshal(v)
		switch behaviour {
		case "framed-bad-header":
			fmt.Fprintf(out, "Content-Length: %dx\r\n\r\n", len(b))
		case "framed-wrong-length":
			fmt.Fprintf(out, "Content-Length: %d\r\n\r\n", len(b)+10)
		case "framed-bare":
			b = append(b, '\n')
		default:
			fmt.Fprintf(out, "Content-Length: %d\r\nContent-Type: application/vscode-jsonrpc; charset=utf-8\r\n\r\n", len(b))
		}
		out.Write(b)
		out.Flush()
	}
	reply := func(id, result any) { write(map[string]any{"jsonrpc": "2.0", "id": id, "result": result}) }
	for {
		body, err := readFramed(in)
		if err != nil {
			return 0, true
		}
		var m map[string]any
		if json.Unmarshal(body, &m) != nil {
			write(map[string]any{"jsonrpc": "2.0", "id": nil, "error": map[string]any{"code": -32700, "message": "Parse error"}})
			continue
		}
		id, hasID := m["id"]
		if !hasID {
			continue
		}
		p, _ := m["params"].(map[string]any)
		switch m["method"] {
		case "echo":
			reply(id, map[string]any{"text": p["text"]})
		case "len":
			s, _ := p["text"].(string)
			reply(id, map[string]any{"length": len(s)})
		case "ask":
			write(map[string]any{"jsonrpc": "2.0", "id": "s1", "method": "roots/list"})
			ans, err := readFramed(in)
			if err != nil {
				return 1, true
			}
			var a struct {
				ID     any `json:"id"`
				Result struct {
					Roots []any `json:"roots"`
				} `json:"result"`
			}
			_ = json.Unmarshal(ans, &a)
			n := len(a.Result.Roots)
			if a.ID != "s1" {
				n = -1
			}
			reply(id, map[string]any{"roots": n})
		default:
			write(map[string]any{"jsonrpc": "2.0", "id": id, "error": map[string]any{"code": -32601, "message": "Method not found"}})
		}
	}
}

// readFramed reads one message: header lines up to an empty one, then
// Content-Length bytes.
func readFramed(in *bufio.Reader) ([]byte, error) {
	n := -1
	for {
		line, err := in.ReadString('\n')
		if err != nil {
			return nil, err
		}
		line = strings.TrimRight(line, "\r\n")
		if line == "" {
			break
		}
		name, value, ok := strings.Cut(line, ":")
		if ok && strings.EqualFold(name, "Content-Length") {
			if n, err = strconv.Atoi(strings.TrimSpace(value)); err != nil {
				return nil, err
			}
		}
	}
	if n < 0 {
		return nil, fmt.Errorf("no Content-Length")
	}
	b := make([]byte, n)
	_, err := io.ReadFull(in, b)
	return b, err
}
