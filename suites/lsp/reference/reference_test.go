package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// session runs the server on the given bodies (each framed) and returns
// the bodies it wrote, decoded, and its exit code.
func session(t *testing.T, bodies ...string) ([]map[string]any, int) {
	t.Helper()
	var in bytes.Buffer
	for _, b := range bodies {
		in.Write(encode([]byte(b)))
	}
	return sessionRaw(t, in.Bytes())
}

func sessionRaw(t *testing.T, in []byte) ([]map[string]any, int) {
	t.Helper()
	var out, stderr bytes.Buffer
	code := run(bytes.NewReader(in), &out, &stderr)
	r := newReader(&out)
	var got []map[string]any
	for {
		body, err := r.Body()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatalf("the server's output does not frame: %v", err)
		}
		var m map[string]any
		if err := json.Unmarshal(body, &m); err != nil {
			t.Fatalf("the server wrote a body that is not JSON: %q", body)
		}
		got = append(got, m)
	}
	return got, code
}

const (
	initReq   = `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"processId":null,"rootUri":null,"capabilities":{"textDocument":{"documentSymbol":{"hierarchicalDocumentSymbolSupport":true}}}}}`
	initDone  = `{"jsonrpc":"2.0","method":"initialized","params":{}}`
	shutdown  = `{"jsonrpc":"2.0","id":"down","method":"shutdown"}`
	exitNotif = `{"jsonrpc":"2.0","method":"exit"}`
	docURI    = "file:///work/doc.txt"
)

func openDoc(text string) string {
	b, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "method": "textDocument/didOpen",
		"params": map[string]any{"textDocument": map[string]any{"uri": docURI, "languageId": "conform", "version": 1, "text": text}}})
	return string(b)
}

func hoverReq(id, line, char int) string {
	b, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": id, "method": "textDocument/hover",
		"params": map[string]any{"textDocument": map[string]any{"uri": docURI}, "position": map[string]any{"line": line, "character": char}}})
	return string(b)
}

// replies picks the responses (no method) out of frames, by id text.
func replies(frames []map[string]any) map[string]map[string]any {
	out := map[string]map[string]any{}
	for _, f := range frames {
		if _, ok := f["method"]; ok {
			continue
		}
		b, _ := json.Marshal(f["id"])
		out[string(b)] = f
	}
	return out
}

func errCode(f map[string]any) float64 {
	e, _ := f["error"].(map[string]any)
	c, _ := e["code"].(float64)
	return c
}

func TestLifecycleExitCodes(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name   string
		bodies []string
		code   int
	}{
		{"shutdown then exit", []string{initReq, initDone, shutdown, exitNotif}, 0},
		{"exit without shutdown", []string{initReq, initDone, exitNotif}, 1},
		{"exit before initialize", []string{exitNotif}, 1},
		{"end of input after shutdown", []string{initReq, initDone, shutdown}, 0},
		{"end of input without shutdown", []string{initReq, initDone}, 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			if _, code := session(t, tc.bodies...); code != tc.code {
				t.Errorf("exit code %d, want %d", code, tc.code)
			}
		})
	}
}

func TestErrorCodes(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name   string
		bodies []string
		id     string
		code   float64
	}{
		{"request before initialize", []string{`{"jsonrpc":"2.0","id":7,"method":"textDocument/hover","params":{}}`}, "7", codeServerNotInitialized},
		{"parse error", []string{initReq, `{"jsonrpc":"2.0","id":2,"method":`}, "null", codeParseError},
		{"invalid request", []string{initReq, `{"jsonrpc":"2.0","method":1,"params":"bar"}`}, "null", codeInvalidRequest},
		{"wrong jsonrpc", []string{initReq, `{"jsonrpc":"1.0","id":2,"method":"shutdown"}`}, "2", codeInvalidRequest},
		{"array", []string{initReq, `[]`}, "null", codeInvalidRequest},
		{"method not found", []string{initReq, `{"jsonrpc":"2.0","id":"u","method":"conform/unknown"}`}, `"u"`, codeMethodNotFound},
		{"dollar request", []string{initReq, `{"jsonrpc":"2.0","id":"d","method":"$/conform/unknown"}`}, `"d"`, codeMethodNotFound},
		{"request after shutdown", []string{initReq, shutdown, `{"jsonrpc":"2.0","id":9,"method":"shutdown"}`}, "9", codeInvalidRequest},
		{"initialize twice", []string{initReq, strings.Replace(initReq, `"id":1`, `"id":2`, 1)}, "2", codeInvalidRequest},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			frames, _ := session(t, tc.bodies...)
			r, ok := replies(frames)[tc.id]
			if !ok {
				t.Fatalf("no reply with id %s in %v", tc.id, frames)
			}
			if got := errCode(r); got != tc.code {
				t.Errorf("error code %v, want %v (%v)", got, tc.code, r)
			}
		})
	}
}

func TestNotificationsNeverAnswered(t *testing.T) {
	t.Parallel()
	frames, _ := session(t, initReq, initDone, `{"jsonrpc":"2.0","method":"$/conform/unknown","params":{}}`,
		`{"jsonrpc":"2.0","method":"conform/unknown"}`, `{"jsonrpc":"2.0","method":"$/cancelRequest","params":{"id":99}}`, shutdown)
	if got := len(replies(frames)); got != 2 {
		t.Errorf("%d replies, want 2 (initialize, shutdown): %v", got, frames)
	}
}

func TestPositionEncoding(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		offered string
		want    string
	}{
		{`null`, "utf-16"},
		{`["utf-8","utf-16"]`, "utf-8"},
		{`["utf-32"]`, "utf-32"},
		{`["x-unknown"]`, "utf-16"},
	} {
		params := `{"processId":null,"rootUri":null,"capabilities":{"general":{"positionEncodings":` + tc.offered + `}}}`
		frames, _ := session(t, `{"jsonrpc":"2.0","id":1,"method":"initialize","params":`+params+`}`)
		caps := frames[0]["result"].(map[string]any)["capabilities"].(map[string]any)
		if got := caps["positionEncoding"]; got != tc.want {
			t.Errorf("offered %s: positionEncoding %v, want %s", tc.offered, got, tc.want)
		}
	}
}

func TestColumns(t *testing.T) {
	t.Parallel()
	// "a😀é b": a (1 byte), 😀 (4 bytes, 2 UTF-16 units), é (2 bytes), space, b.
	line := "a😀é b"
	for _, tc := range []struct {
		enc  string
		char int
		b    int
	}{
		{encUTF16, 0, 0}, {encUTF16, 1, 1}, {encUTF16, 2, 1}, {encUTF16, 3, 5}, {encUTF16, 5, 8}, {encUTF16, 99, len(line)},
		{encUTF8, 5, 5}, {encUTF8, 7, 7}, {encUTF8, 8, 8},
		{encUTF32, 2, 5}, {encUTF32, 4, 8},
	} {
		if got := byteCol(line, tc.char, tc.enc); got != tc.b {
			t.Errorf("byteCol(%q, %d, %s) = %d, want %d", line, tc.char, tc.enc, got, tc.b)
		}
	}
	if got := unitCol(line, 8, encUTF16); got != 5 {
		t.Errorf("unitCol UTF-16 = %d, want 5", got)
	}
	if got := unitCol(line, 8, encUTF8); got != 8 {
		t.Errorf("unitCol UTF-8 = %d, want 8", got)
	}
	if got := lineStarts("a\r\nb\rc\nd"); !cmp.Equal(got, []int{0, 3, 5, 7}) {
		t.Errorf("lineStarts = %v", got)
	}
}

// TestHoverUTF16: the word after an astral character is found at its
// UTF-16 column, and its range is given in UTF-16 units.
func TestHoverUTF16(t *testing.T) {
	t.Parallel()
	text := "# Grüße\n😀 wörld TODO\n"
	frames, _ := session(t, initReq, initDone, openDoc(text), hoverReq(2, 1, 4), hoverReq(3, 1, 1))
	r := replies(frames)
	want := map[string]any{
		"contents": map[string]any{"kind": "plaintext", "value": "wörld"},
		"range": map[string]any{"start": map[string]any{"line": float64(1), "character": float64(3)},
			"end": map[string]any{"line": float64(1), "character": float64(8)}},
	}
	if diff := cmp.Diff(want, r["2"]["result"]); diff != "" {
		t.Errorf("hover (-want +got):\n%s", diff)
	}
	if res, ok := r["3"]["result"]; !ok || res != nil {
		t.Errorf("hover on the emoji: result %v, want null", r["3"])
	}
}

func TestIncrementalChangeAndSymbols(t *testing.T) {
	t.Parallel()
	change := `{"jsonrpc":"2.0","method":"textDocument/didChange","params":{"textDocument":{"uri":"` + docURI + `","version":2},` +
		`"contentChanges":[{"range":{"start":{"line":0,"character":7},"end":{"line":0,"character":7}},"text":"!"},{"text":"# one\nx\n# two\n"},` +
		`{"range":{"start":{"line":2,"character":2},"end":{"line":2,"character":5}},"text":"zwei"}]}}`
	sym := `{"jsonrpc":"2.0","id":5,"method":"textDocument/documentSymbol","params":{"textDocument":{"uri":"` + docURI + `"}}}`
	frames, _ := session(t, initReq, initDone, openDoc("# Grüße\n"), change, sym)
	res, _ := replies(frames)["5"]["result"].([]any)
	var names []string
	for _, s := range res {
		names = append(names, s.(map[string]any)["name"].(string))
	}
	if want := []string{"one", "zwei"}; !cmp.Equal(want, names) {
		t.Errorf("symbols %v, want %v", names, want)
	}
}

func TestServerRequests(t *testing.T) {
	t.Parallel()
	init := `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"processId":null,"rootUri":null,"capabilities":` +
		`{"window":{"workDoneProgress":true},"workspace":{"configuration":true,"didChangeConfiguration":{"dynamicRegistration":true}}}}}`
	frames, _ := session(t, init, initDone, `{"jsonrpc":"2.0","id":1,"result":null}`)
	var methods []string
	for _, f := range frames {
		if m, ok := f["method"].(string); ok {
			methods = append(methods, m)
		}
	}
	want := []string{"window/workDoneProgress/create", "workspace/configuration", "client/registerCapability", "$/progress", "$/progress"}
	if !cmp.Equal(want, methods) {
		t.Errorf("server messages %v, want %v", methods, want)
	}
}

func TestBrokenHeader(t *testing.T) {
	t.Parallel()
	for _, in := range []string{"Content-Length: x\r\n\r\n{}", "{\"jsonrpc\":\"2.0\"}\n", "Content-Length: 10\r\n\r\n{}"} {
		if _, code := sessionRaw(t, []byte(in)); code != 1 {
			t.Errorf("%q: exit code %d, want 1", in, code)
		}
	}
}

// TestSuiteDefaults: the suite's default document vars (suite.json) give a
// hover position that the reference answers when it counts UTF-16 code
// units, and that a server counting bytes or code points would find no
// word at: the hover vector's golden rests on it.
func TestSuiteDefaults(t *testing.T) {
	t.Parallel()
	data, err := os.ReadFile(filepath.Join("..", "suite.json"))
	if err != nil {
		t.Fatal(err)
	}
	var s struct {
		Vars struct {
			Text           struct{ Default string }
			HoverLine      struct{ Default int } `json:"hoverLine"`
			HoverCharacter struct{ Default int } `json:"hoverCharacter"`
		}
	}
	if err := json.Unmarshal(data, &s); err != nil {
		t.Fatal(err)
	}
	text, line, char := s.Vars.Text.Default, s.Vars.HoverLine.Default, s.Vars.HoverCharacter.Default
	if text == "" {
		t.Fatal("suite.json declares no default text")
	}
	l, _, ok := lineAt(text, lineStarts(text), line)
	if !ok {
		t.Fatalf("hoverLine %d is past the default text", line)
	}
	for _, tc := range []struct {
		enc  string
		word bool
	}{{encUTF16, true}, {encUTF8, false}, {encUTF32, false}} {
		_, _, _, ok := wordAt(l, byteCol(l, char, tc.enc))
		if ok != tc.word {
			t.Errorf("a word at character %d of %q read as %s: %v, want %v", char, l, tc.enc, ok, tc.word)
		}
	}
	frames, _ := session(t, initReq, initDone, openDoc(text), hoverReq(2, line, char))
	if r := replies(frames)["2"]; r["result"] == nil {
		t.Errorf("the reference has no hover at the default position: %v", r)
	}
}

// TestHeaderFields: Content-Length is read wherever it is in the header
// part, and other fields are accepted ("Header Part").
func TestHeaderFields(t *testing.T) {
	t.Parallel()
	body := `{"jsonrpc":"2.0","id":1,"method":"shutdown"}`
	for _, header := range []string{
		"Content-Type: application/vscode-jsonrpc; charset=utf-8\r\nContent-Length: %d\r\n\r\n",
		"Content-Length: %d\r\nContent-Type: application/vscode-jsonrpc; charset=utf-8\r\n\r\n",
		"X-Conform: 1\r\ncontent-length:%d\r\n\r\n",
	} {
		in := []byte(fmt.Sprintf(header, len(body)) + body)
		frames, _ := sessionRaw(t, in)
		if len(frames) != 1 || errCode(frames[0]) != codeServerNotInitialized {
			t.Errorf("header %q: got %v, want one -32002 reply", header, frames)
		}
	}
}
