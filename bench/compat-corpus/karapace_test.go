package main

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// A made-up file pair in the shape the loader reads (not Karapace's text).
const fakeSchemas = `
from somewhere import parse_jsonschema_definition
S_ONE = parse_jsonschema_definition('{"type":' '"string"}')
S_TWO = parse_jsonschema_definition(
    """
    {"type": "integer"}
    """
)
ALL = (S_ONE, S_TWO)
`

const fakeTests = `
def test_a() -> None:
    # schemas_are_compatible(reader=S_ONE, writer=S_TWO, msg="commented out")
    schemas_are_compatible(
        writer=S_ONE,
        reader=S_ONE,
        msg=f"x {1}",
    )
    for schema in ALL + (S_ONE,):
        if schema != S_TWO:
            not_schemas_are_compatible(reader=S_TWO, writer=schema, msg="m")
`

func TestLoadKarapace(t *testing.T) {
	dir := t.TempDir()
	for path, text := range map[string]string{karapaceSchemas: fakeSchemas, karapaceTests: fakeTests} {
		p := filepath.Join(dir, path)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	cases, err := loadKarapace(dir)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, c := range cases {
		for dir, ok := range c.Labels {
			got = append(got, c.ID+" "+dir+" "+jsonText(c.Old)+"->"+jsonText(c.New)+" "+map[bool]string{true: "compatible", false: "breaking"}[ok])
		}
	}
	want := []string{
		`test_a#1 reader=S_ONE writer=S_ONE reader {"type":"string"}->{"type":"string"} compatible`,
		`test_a#1 reader=S_ONE writer=S_ONE writer {"type":"string"}->{"type":"string"} compatible`,
		`test_a#2 reader=S_TWO writer=S_ONE reader {"type":"string"}->{"type":"integer"} breaking`,
		`test_a#2 reader=S_TWO writer=S_ONE writer {"type":"integer"}->{"type":"string"} breaking`,
		`test_a#3 reader=S_TWO writer=S_ONE reader {"type":"string"}->{"type":"integer"} breaking`,
		`test_a#3 reader=S_TWO writer=S_ONE writer {"type":"integer"}->{"type":"string"} breaking`,
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("cases (-want +got):\n%s", diff)
	}
}
