package main

import (
	"bytes"
	"io"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestSession plays a scripted server: each line the client writes must be
// in the table, and the table's lines are the server's answers.
func TestSession(t *testing.T) {
	t.Parallel()
	clientOut, serverIn := io.Pipe()
	serverOut, clientIn := io.Pipe()
	var stderr bytes.Buffer
	done := make(chan int, 1)
	go func() {
		done <- run([]string{"echo", `{"text":"hi"}`}, serverOut, serverIn, &stderr)
		serverIn.Close()
	}()
	answers := map[string][]string{
		`{"id":1,"jsonrpc":"2.0","method":"initialize","params":{"capabilities":{"elicitation":{"form":{}},"roots":{"listChanged":false},"sampling":{}},"clientInfo":{"name":"conform-mcp-reference-client","version":"0.1.0"},"protocolVersion":"2025-11-25"}}`: {
			`{"jsonrpc":"2.0","id":1,"result":{"protocolVersion":"2025-11-25","capabilities":{"tools":{}},"serverInfo":{"name":"s","version":"1"}}}`,
		},
		`{"jsonrpc":"2.0","method":"notifications/initialized"}`: nil,
		`{"id":2,"jsonrpc":"2.0","method":"tools/list"}`: {
			`{"jsonrpc":"2.0","method":"notifications/tools/list_changed"}`,
			`{"jsonrpc":"2.0","id":2,"result":{"tools":[],"nextCursor":"p2"}}`,
		},
		`{"id":3,"jsonrpc":"2.0","method":"tools/list","params":{"cursor":"p2"}}`: {
			`{"jsonrpc":"2.0","id":"srv-1","method":"roots/list"}`,
			`{"jsonrpc":"2.0","id":3,"result":{"tools":[{"name":"echo","inputSchema":{"type":"object"}}]}}`,
		},
		`{"id":"srv-1","jsonrpc":"2.0","result":{"roots":[{"name":"conform","uri":"file:///conform/root"}]}}`: nil,
		`{"id":4,"jsonrpc":"2.0","method":"tools/call","params":{"arguments":{"text":"hi"},"name":"echo"}}`: {
			`{"jsonrpc":"2.0","id":"srv-2","method":"no/such"}`,
			`{"jsonrpc":"2.0","id":4,"result":{"content":[{"type":"text","text":"hi"}]}}`,
		},
		`{"error":{"code":-32601,"message":"Method not found: no/such"},"id":"srv-2","jsonrpc":"2.0"}`: nil,
	}
	// One goroutine writes the server's lines, so that the client's own
	// writes never wait on ours (pipes have no buffer).
	toClient := make(chan string, 64)
	go func() {
		for l := range toClient {
			io.WriteString(clientIn, l+"\n")
		}
	}()
	defer close(toClient)
	var got []string
	buf := make([]byte, 0, 4096)
	tmp := make([]byte, 4096)
	for {
		n, err := clientOut.Read(tmp)
		buf = append(buf, tmp[:n]...)
		for {
			i := bytes.IndexByte(buf, '\n')
			if i < 0 {
				break
			}
			line := string(buf[:i])
			buf = buf[i+1:]
			got = append(got, line)
			reply, ok := answers[line]
			if !ok {
				t.Fatalf("unexpected client line %s", line)
			}
			for _, r := range reply {
				toClient <- r
			}
		}
		if err != nil {
			break
		}
	}
	if code := <-done; code != 0 {
		t.Fatalf("exit %d, stderr %s", code, stderr.String())
	}
	if len(got) != len(answers) {
		t.Errorf("client wrote %d lines, want %d:\n%s", len(got), len(answers), strings.Join(got, "\n"))
	}
	if diff := cmp.Diff("", stderr.String()); diff != "" {
		t.Errorf("stderr (-want +got):\n%s", diff)
	}
}

func TestRefusesUnknownVersion(t *testing.T) {
	t.Parallel()
	in := strings.NewReader(`{"jsonrpc":"2.0","id":1,"result":{"protocolVersion":"1999-01-01","capabilities":{},"serverInfo":{"name":"s","version":"1"}}}` + "\n")
	var out, stderr bytes.Buffer
	if code := run(nil, in, &out, &stderr); code != 1 {
		t.Fatalf("exit %d, want 1 (Lifecycle, Version Negotiation: SHOULD disconnect)", code)
	}
	if strings.Count(out.String(), "\n") != 1 {
		t.Errorf("wrote %q, want only the initialize request", out.String())
	}
}

// TestWait: with --wait the client stays connected once everything is
// answered, and exits 0 when its input ends (the server closed its output);
// input that ends before the answers came is exit 1 either way.
func TestWait(t *testing.T) {
	t.Parallel()
	answers := `{"jsonrpc":"2.0","id":1,"result":{"protocolVersion":"2025-11-25","capabilities":{"tools":{}},"serverInfo":{"name":"s","version":"1"}}}` + "\n" +
		`{"jsonrpc":"2.0","id":2,"result":{"tools":[]}}` + "\n"
	for _, tc := range []struct {
		name  string
		args  []string
		input string
		code  int
		lines int
	}{
		{"wait, then end of input", []string{"--wait"}, answers + `{"jsonrpc":"2.0","id":"p1","method":"ping"}` + "\n", 0, 4},
		{"no wait: exits once answered", nil, answers + `{"jsonrpc":"2.0","id":"p1","method":"ping"}` + "\n", 0, 3},
		{"wait, input ends early", []string{"--wait"}, answers[:strings.Index(answers, "\n")+1], 1, 3},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			var out, stderr bytes.Buffer
			if code := run(tc.args, strings.NewReader(tc.input), &out, &stderr); code != tc.code {
				t.Fatalf("exit %d, want %d (stderr %s)", code, tc.code, stderr.String())
			}
			if n := strings.Count(out.String(), "\n"); n != tc.lines {
				t.Errorf("wrote %d lines, want %d:\n%s", n, tc.lines, out.String())
			}
		})
	}
}
