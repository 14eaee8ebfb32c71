package suite_test

import (
	"encoding/json"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/google/go-cmp/cmp"

	"github.com/conform-kit/conform/internal/kiterr"
	"github.com/conform-kit/conform/internal/kiterr/kiterrtest"
	"github.com/conform-kit/conform/internal/suite"
)

func TestExpandValue(t *testing.T) {
	t.Parallel()
	vars := map[string]any{
		"lang": "go", "line": json.Number("3"), "pos": map[string]any{"line": json.Number("1")},
		"uri": "file://${work}/doc.txt",
	}
	tests := []struct {
		name, work string
		in, want   any
		code       kiterr.Code
	}{
		{"whole string takes the value's type", "", map[string]any{"l": "${var:line}", "p": "${var:pos}"},
			map[string]any{"l": json.Number("3"), "p": map[string]any{"line": json.Number("1")}}, ""},
		{"inside a longer string", "", []any{"lang=${var:lang}!", "${var:lang}${var:lang}"}, []any{"lang=go!", "gogo"}, ""},
		{"keys are never substituted", "", map[string]any{"${var:lang}": "${var:lang}"}, map[string]any{"${var:lang}": "go"}, ""},
		{"work in a frame and in a var", "/tmp/w", map[string]any{"a": "file://${work}", "b": "${var:uri}"},
			map[string]any{"a": "file:///tmp/w", "b": "file:///tmp/w/doc.txt"}, ""},
		{"work left for later", "", map[string]any{"b": "${var:uri}"}, map[string]any{"b": "file://${work}/doc.txt"}, ""},
		{"no placeholder", "", map[string]any{"a": []any{"x", json.Number("1")}}, map[string]any{"a": []any{"x", json.Number("1")}}, ""},
		{"unknown var", "", map[string]any{"a": "${var:nope}"}, nil, kiterr.VectorVarUnknown},
		{"unknown var inside a string", "", "x ${var:nope}", nil, kiterr.VectorVarUnknown},
		{"a number inside a string", "", "line ${var:line}", nil, kiterr.VectorInvalid},
		{"no closing brace", "", "x ${var:lang", nil, kiterr.VectorInvalid},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got, err := suite.ExpandValue(tt.in, vars, tt.work)
			if tt.code != "" {
				if kiterr.CodeOf(err) != tt.code {
					t.Fatalf("err = %v, want code %s", err, tt.code)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if d := cmp.Diff(tt.want, got); d != "" {
				t.Errorf("(-want +got)\n%s", d)
			}
		})
	}
	// The input is not modified.
	in := map[string]any{"a": "${var:lang}"}
	if _, err := suite.ExpandValue(in, vars, ""); err != nil || in["a"] != "${var:lang}" {
		t.Errorf("ExpandValue modified its input: %v (%v)", in, err)
	}
}

func TestExpandString(t *testing.T) {
	t.Parallel()
	vars := map[string]any{"lang": "go", "line": json.Number("3"), "pos": map[string]any{"b": true, "a": json.Number("1")}}
	for in, want := range map[string]string{
		"${var:lang}":           "go",
		"--line=${var:line}":    "--line=3",
		"${var:pos}":            `{"a":1,"b":true}`,
		"${work}/x ${var:lang}": "/w/x go",
	} {
		got, err := suite.ExpandString(in, vars, "/w")
		if err != nil || got != want {
			t.Errorf("ExpandString(%q) = %q, %v; want %q", in, got, err, want)
		}
	}
	if _, err := suite.ExpandString("${var:nope}", vars, "/w"); kiterr.CodeOf(err) != kiterr.VectorVarUnknown {
		t.Errorf("unknown var: err = %v, want VECTOR_VAR_UNKNOWN", err)
	}
}

// TestSuiteVars: a suite declares vars; a vector that names one loads,
// and ResolveVars takes a profile's values over the defaults and refuses
// a name the suite does not declare.
func TestSuiteVars(t *testing.T) {
	t.Parallel()
	fsys := tinyFS(t)
	fsys["suite.json"].Data = []byte(strings.Replace(tinyManifest, `"name": "tiny",`,
		`"name": "tiny", "vars": {"lang": {"default": "plaintext", "description": "d"}, "line": {"default": 0, "description": "d"}},`, 1))
	fsys["vectors/v1/agent/var.json"] = &fstest.MapFile{Data: []byte(strings.NewReplacer(`"ping"`, `"var"`,
		`"request": {"subtype": "interrupt"}`, `"request": {"subtype": "interrupt", "x": "${var:lang}", "n": "${var:line}"}`).Replace(sessionVector))}
	seal(t, fsys)
	s := mustLoad(t, fsys)
	vs, bad, err := s.Vectors(&s.Manifest.Versions[0])
	if err != nil || len(bad) > 0 {
		t.Fatalf("Vectors: %v %v", bad, err)
	}
	if len(vs) != 3 {
		t.Fatalf("loaded %d vectors, want 3", len(vs))
	}
	got, err := s.ResolveVars(map[string]any{"lang": "go"})
	if err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff(map[string]any{"lang": "go", "line": json.Number("0")}, got); d != "" {
		t.Errorf("ResolveVars (-want +got)\n%s", d)
	}
	_, err = s.ResolveVars(map[string]any{"langauge": "go"})
	kiterrtest.WantCode(t, err, kiterr.VectorVarUnknown, `var "langauge" is not declared by suite "tiny" (it declares lang, line)`)
}
