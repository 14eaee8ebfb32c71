package levels

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
)

func TestDerive(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name, source, level, keyword string
	}{
		{"must", `Basic / Utilities, 'Ping': "The receiver MUST respond promptly"`, Required, "MUST"},
		{"must not", `'Notifications': "The receiver MUST NOT send a response"`, Required, "MUST NOT"},
		{"should", `'Error Handling': "Invalid cursors SHOULD result in an error"`, Recommended, "SHOULD"},
		{"strongest wins", `"X SHOULD be ignored"; "The Server MUST NOT reply"`, Required, "MUST NOT"},
		{"may", `'stdio': "The server MAY initiate shutdown"`, Informational, "MAY"},
		{"no quote", `'Resources' / 'Resource Templates'`, Informational, ""},
		{"unquoted keyword does not count", `'Ping' (the receiver MUST respond)`, Informational, ""},
		{"lower case does not count", `"should be reported as an MCP error response"`, Informational, ""},
		{"no word inside a word", `"URL_ELICITATION_REQUIRED is -32042"`, Informational, ""},
		{"marker lowers", `"the ID MUST NOT be null"; level: informational because that MUST binds the sender`, Informational, "MUST NOT"},
		{"marker raises", `'Tools'; level: required because the server declared tools and JSON-RPC answers every request`, Required, ""},
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
		`'Ping': "The receiver MUST respond promptly`,
		`level: required because x`,
		`level: required because the server declared it; level: recommended because it is only asked by a tool`,
	} {
		if b, err := Derive(source); err == nil {
			t.Errorf("Derive(%q) = %+v, want an error", source, b)
		}
	}
}

// TestVectorLevels holds every vector of suites/mcp (both roles) to the
// rule: its level is the one its source's quoted keyword or marker gives.
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
			if v.Source == "" {
				t.Fatalf("%s: no source", f)
			}
			b, err := Derive(v.Source)
			if err != nil {
				t.Fatalf("%s: %v", f, err)
			}
			if b.Level != v.Level {
				why := "no quoted keyword and no marker"
				if b.Keyword != "" {
					why = "its strongest quoted keyword is " + b.Keyword + " in " + `"` + b.Quote + `"`
				}
				t.Errorf("%s: level %q, but its source rests on %q: %s; quote the sentence the level rests on, or give a marker \"level: %s because ...\"",
					f, v.Level, b.Level, why, v.Level)
			}
		})
	}
}
