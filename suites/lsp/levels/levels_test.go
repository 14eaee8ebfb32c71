package levels

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestDerive(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name, source, level, keyword string
	}{
		{"lower-case must", `'$ Requests': "it must error the request with error code MethodNotFound"`, Required, "must"},
		{"should", `'Shutdown': "those requests should error with InvalidRequest"`, Recommended, "should"},
		{"capital MUST NOT", `JSON-RPC 2.0: "The Server MUST NOT reply to a Notification"`, Required, "must not"},
		{"strongest wins", `"Notifications should be dropped"; "The Server MUST NOT reply"`, Required, "must not"},
		{"may", `"The initialize request may only be sent once"`, Informational, "may"},
		{"no quote", `'Hover Request': result Hover | null`, Informational, ""},
		{"unquoted keyword does not count", `'Exit' (the server should exit with 0)`, Informational, ""},
		{"no word inside a word", `"the mayor's mustard"`, Informational, ""},
		{"marker lowers", `"the client must not send"; level: informational because that rule binds the client`, Informational, "must not"},
		{"marker raises", `'Hover'; level: required because the server declared hoverProvider`, Required, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			b, err := Derive(tc.source)
			if err != nil {
				t.Fatalf("Derive: %v", err)
			}
			if b.Level != tc.level || b.Keyword != tc.keyword {
				t.Errorf("Derive(%q) = level %q keyword %q, want %q %q", tc.source, b.Level, b.Keyword, tc.level, tc.keyword)
			}
		})
	}
}

func TestDeriveErrors(t *testing.T) {
	t.Parallel()
	for _, source := range []string{
		`'Exit': "The server should exit`,
		`level: required because x`,
		`level: required because the server declared it; level: recommended because it is only asked by a tool`,
	} {
		if b, err := Derive(source); err == nil {
			t.Errorf("Derive(%q) = %+v, want an error", source, b)
		}
	}
}

// TestVectorLevels holds every vector of suites/lsp (session and message)
// to the rule: its level is the one its source's quoted keyword or marker
// gives, and its source cites LSP 3.17 or JSON-RPC 2.0 with a URL.
func TestVectorLevels(t *testing.T) {
	t.Parallel()
	files, err := filepath.Glob(filepath.Join("..", "vectors", "v1", "*", "*.json"))
	if err != nil {
		t.Fatal(err)
	}
	if len(files) == 0 {
		t.Fatal("no vectors under ../vectors/v1")
	}
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		var v struct{ ID, Level, Source string }
		if err := json.Unmarshal(data, &v); err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		t.Run(v.ID, func(t *testing.T) {
			b, err := Derive(v.Source)
			if err != nil {
				t.Fatalf("%s: %v", f, err)
			}
			if b.Level != v.Level {
				t.Errorf("%s: level %q, but its source gives %q (keyword %q, marker %q)", f, v.Level, b.Level, b.Keyword, b.Marker)
			}
			if !containsAny(v.Source, "https://microsoft.github.io/language-server-protocol/specifications/lsp/3.17/specification/#", "https://www.jsonrpc.org/specification#") {
				t.Errorf("%s: source cites no LSP 3.17 or JSON-RPC 2.0 section URL", f)
			}
		})
	}
}

func containsAny(s string, subs ...string) bool {
	for _, sub := range subs {
		if strings.Contains(s, sub) {
			return true
		}
	}
	return false
}
