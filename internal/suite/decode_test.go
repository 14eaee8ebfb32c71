package suite

import (
	"bytes"
	"encoding/json"
	"io/fs"
	"os"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/conform-kit/conform/internal/canon"
)

// Decoding a parsed vector (fromValue) gives what encoding/json gives for
// its text, for every vector file of the suite; json.RawMessage members
// hold the same value (compared in RFC 8785 form, the form fromValue
// writes).
func TestFromValueAsDecoder(t *testing.T) {
	t.Parallel()
	if _, err := os.Stat("../../vectors"); err != nil {
		t.Fatalf("fixture directory missing: %v", err)
	}
	canonical := cmp.Transformer("canonical", func(r json.RawMessage) string {
		if r == nil {
			return "<nil>"
		}
		b, err := canon.CanonicalBytes(r)
		if err != nil {
			return "invalid " + string(r)
		}
		return string(b)
	})
	n := 0
	err := fs.WalkDir(os.DirFS("../.."), "vectors", func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(path, ".json") {
			return err
		}
		data, err := os.ReadFile("../../" + path)
		if err != nil {
			return err
		}
		var want Vector
		dec := json.NewDecoder(bytes.NewReader(data))
		dec.UseNumber()
		if err := dec.Decode(&want); err != nil {
			t.Errorf("%s: encoding/json: %v", path, err)
			return nil
		}
		raw, err := canon.Parse(data)
		if err != nil {
			t.Errorf("%s: %v", path, err)
			return nil
		}
		var got Vector
		if err := fromValue(raw, &got); err != nil {
			t.Errorf("%s: fromValue: %v", path, err)
			return nil
		}
		if diff := cmp.Diff(want, got, canonical); diff != "" {
			t.Errorf("%s (-encoding/json +fromValue):\n%s", path, diff)
		}
		n++
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if n < 300 {
		t.Fatalf("only %d vector files", n)
	}
}

// fromValue refuses what the decoder refuses, with its message: a value of
// another type, an integer with a fraction.
func TestFromValueErrors(t *testing.T) {
	t.Parallel()
	for _, in := range []string{`{"version": "1"}`, `{"version": 1.5}`, `{"version": 1.0}`, `{"send": {}}`, `{"tags": [1]}`, `{"expect": []}`, `{"env": {"a": 1}}`} {
		raw, err := canon.Parse([]byte(in))
		if err != nil {
			t.Fatal(err)
		}
		var v Vector
		ferr := fromValue(raw, &v)
		var w Vector
		dec := json.NewDecoder(strings.NewReader(in))
		dec.UseNumber()
		derr := dec.Decode(&w)
		if (ferr == nil) != (derr == nil) {
			t.Errorf("%s: fromValue %v, encoding/json %v", in, ferr, derr)
		}
		if ferr != nil && !strings.Contains(ferr.Error(), "cannot unmarshal") {
			t.Errorf("%s: %v, want a \"cannot unmarshal\" error", in, ferr)
		}
	}
}
