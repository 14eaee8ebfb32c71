package frozen_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/conform-kit/conform/internal/frozen"
	"github.com/conform-kit/conform/internal/kiterr"
	"github.com/conform-kit/conform/internal/kiterr/kiterrtest"
)

// repoFile reads a file of the repository (two levels up).
func repoFile(t *testing.T, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("..", "..", name))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// edit decodes the published v1 schema, applies fn to its $defs and
// returns the result.
func edit(t *testing.T, fn func(defs map[string]any)) []byte {
	t.Helper()
	var doc map[string]any
	if err := json.Unmarshal(repoFile(t, "published/control.v1.json"), &doc); err != nil {
		t.Fatal(err)
	}
	fn(doc["$defs"].(map[string]any))
	b, err := json.Marshal(doc)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func def(defs map[string]any, name string) map[string]any { return defs[name].(map[string]any) }

const changelog = `# Compatibility

## Additive changelog

- **2026-12-02** — ` + "`CanUseToolRequest`" + ` gains the optional member ` + "`x_new_member`" + `,
  seen from the CLI 2.1.332.
- **2026-11-01** — ` + "`HookCallbackRequest`" + ` before the publication: does not count.

## Other
- **2026-12-03** — ` + "`HookCallbackRequest`" + ` outside the section: does not count.
`

func TestGate(t *testing.T) {
	t.Parallel()
	published := repoFile(t, "published/control.v1.json")
	addMember := func(name string) func(map[string]any) {
		return func(defs map[string]any) {
			props := def(defs, name)["properties"].(map[string]any)
			props["x_new_member"] = map[string]any{"type": "string"}
		}
	}
	tests := []struct {
		name         string
		working      []byte
		ok           bool
		notAdditive  int
		undocumented int
		entry        string
	}{
		{name: "the working copy as published", working: repoFile(t, "schemas/control.v1.json"), ok: true},
		{name: "breaking: an enum value removed", working: edit(t, func(defs map[string]any) {
			d := def(defs, "PermissionMode")
			d["enum"] = d["enum"].([]any)[1:]
		}), notAdditive: 1},
		{name: "breaking: a member became required", working: edit(t, func(defs map[string]any) {
			d := def(defs, "CanUseToolRequest")
			d["required"] = append(d["required"].([]any), "tool_use_id")
		}), notAdditive: 1},
		{name: "breaking: a type narrowed", working: edit(t, func(defs map[string]any) {
			def(defs, "RequestId")["type"] = "integer"
		}), notAdditive: 1},
		{name: "additive with its changelog entry", working: edit(t, addMember("CanUseToolRequest")), ok: true, entry: "2026-12-02"},
		{name: "additive without an entry dated after the publication", working: edit(t, addMember("HookCallbackRequest")), undocumented: 1},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			res, err := frozen.Check(context.Background(), frozen.Input{Published: published, Working: tc.working, PublishedDate: "2026-11-30", Changelog: []byte(changelog)})
			if err != nil {
				t.Fatal(err)
			}
			got := struct{ OK, Any bool }{res.OK(), len(res.Changes) > 0}
			want := struct{ OK, Any bool }{tc.ok, tc.name != "the working copy as published"}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("(-want +got):\n%s\n%s", diff, res.Summary())
			}
			if tc.notAdditive > 0 && res.NotAdditive == 0 || tc.notAdditive == 0 && res.NotAdditive > 0 {
				t.Errorf("not additive = %d, want %d: %+v", res.NotAdditive, tc.notAdditive, res.Changes)
			}
			if res.Undocumented != tc.undocumented {
				t.Errorf("undocumented = %d, want %d: %+v", res.Undocumented, tc.undocumented, res.Changes)
			}
			if tc.entry != "" && (len(res.Changes) != 1 || res.Changes[0].Entry != tc.entry) {
				t.Errorf("changes %+v, want one with entry %s", res.Changes, tc.entry)
			}
		})
	}
}

func TestEntries(t *testing.T) {
	t.Parallel()
	got, err := frozen.Entries([]byte(changelog))
	if err != nil {
		t.Fatal(err)
	}
	want := []frozen.Entry{
		{Date: "2026-12-02", Text: "- **2026-12-02** — `CanUseToolRequest` gains the optional member `x_new_member`,\n  seen from the CLI 2.1.332."},
		{Date: "2026-11-01", Text: "- **2026-11-01** — `HookCallbackRequest` before the publication: does not count."},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
	_, err = frozen.Entries([]byte("# Compatibility\n\n## Changes\n"))
	kiterrtest.WantCode(t, err, kiterr.SuiteInvalid, "Additive changelog")
	_, err = frozen.Entries([]byte("## Additive changelog\n- **2026-13-40** — x\n"))
	kiterrtest.WantCode(t, err, kiterr.SuiteInvalid, "not a calendar date")
	// The repository's own changelog parses.
	if _, err := frozen.Entries(repoFile(t, "COMPATIBILITY.md")); err != nil {
		t.Fatal(err)
	}
}

func TestCheckErrors(t *testing.T) {
	t.Parallel()
	pub := repoFile(t, "published/control.v1.json")
	_, err := frozen.Check(context.Background(), frozen.Input{Published: pub, Working: pub, PublishedDate: "30.11.2026", Changelog: []byte(changelog)})
	kiterrtest.WantCode(t, err, kiterr.Usage)
	_, err = frozen.Check(context.Background(), frozen.Input{Published: pub, Working: []byte("{"), PublishedDate: "2026-11-30", Changelog: []byte(changelog)})
	kiterrtest.WantCode(t, err, kiterr.SchemaInvalid)
}
