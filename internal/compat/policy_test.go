package compat_test

import (
	"context"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/conform-kit/conform/internal/compat"
)

func TestLocate(t *testing.T) {
	t.Parallel()
	data := []byte("{\n  \"a\": {\"b/c\": [1, {\"d\": 2}]},\n  \"e\": \"x\"\n}")
	tests := []struct {
		ptr       string
		line, col int
		exact     bool
	}{
		{"", 1, 1, true},
		{"/a", 2, 3, true},
		{"/a/b~1c", 2, 9, true},
		{"/a/b~1c/1", 2, 20, true},
		{"/a/b~1c/1/d", 2, 21, true},
		{"/e", 3, 3, true},
		{"/a/missing", 2, 3, false},
		{"/a/b~1c/5", 2, 9, false},
	}
	for _, tc := range tests {
		line, col, exact := compat.Locate(data, tc.ptr)
		if line != tc.line || col != tc.col || exact != tc.exact {
			t.Errorf("Locate(%q) = %d:%d %v, want %d:%d %v", tc.ptr, line, col, exact, tc.line, tc.col, tc.exact)
		}
	}
}

func TestPolicy(t *testing.T) {
	t.Parallel()
	ign, err := compat.ParseIgnore(strings.NewReader("# comment\nREQUIRED_ADDED /required\n/properties/a  # below a\nCONST_ADDED\n"))
	if err != nil {
		t.Fatal(err)
	}
	want := []compat.IgnoreEntry{{Rule: "REQUIRED_ADDED", Pointer: "/required", Line: 2}, {Pointer: "/properties/a", Line: 3}, {Rule: "CONST_ADDED", Line: 4}}
	if diff := cmp.Diff(want, ign); diff != "" {
		t.Fatalf("ParseIgnore (-want +got):\n%s", diff)
	}
	for _, bad := range []string{"NO_SUCH_RULE", "a b c", "REQUIRED_ADDED notapointer"} {
		if _, err := compat.ParseIgnore(strings.NewReader(bad)); err == nil {
			t.Errorf("ParseIgnore(%q): no error", bad)
		}
	}
	sev, err := compat.ParseSeverities(strings.NewReader("TYPE_CHANGED warning\n"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := compat.ParseSeverities(strings.NewReader("TYPE_CHANGED loud\n")); err == nil {
		t.Error("ParseSeverities accepted level loud")
	}
	old := parse(t, `{"type":"object","properties":{"a":{"type":"string"},"b":{"type":"string"}}}`)
	nw := parse(t, `{"type":"object","properties":{"a":{"type":"integer"},"b":{"type":"integer"}},"required":["a"]}`)
	rep, err := compat.Compare(context.Background(), old, nw, compat.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if rep.Breaking != 3 {
		t.Fatalf("Breaking = %d, want 3: %+v", rep.Breaking, rep.Findings)
	}
	unused := compat.Policy{Ignore: ign, Severity: sev}.Apply(&rep)
	if diff := cmp.Diff([]compat.IgnoreEntry{{Rule: "CONST_ADDED", Line: 4}}, unused); diff != "" {
		t.Errorf("unused entries (-want +got):\n%s", diff)
	}
	var got []string
	for _, f := range rep.Findings {
		got = append(got, f.Rule+" "+f.Pointer+" "+f.Severity+" "+map[bool]string{true: "ignored", false: "kept"}[f.Ignored])
	}
	wantF := []string{"TYPE_CHANGED /properties/a warning ignored", "TYPE_CHANGED /properties/b warning kept", "REQUIRED_ADDED /required error ignored"}
	if diff := cmp.Diff(wantF, got); diff != "" {
		t.Errorf("findings (-want +got):\n%s", diff)
	}
	if rep.Breaking != 1 || rep.Ignored != 2 {
		t.Errorf("Breaking, Ignored = %d, %d, want 1, 2", rep.Breaking, rep.Ignored)
	}
	if rep.Fails("error") || !rep.Fails("warning") {
		t.Errorf("Fails(error), Fails(warning) = %v, %v, want false, true", rep.Fails("error"), rep.Fails("warning"))
	}
}
