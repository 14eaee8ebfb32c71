package main

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"

	"github.com/conform-kit/conform/internal/canon"
)

// confluentDir is where Confluent Schema Registry keeps the labelled
// pairs of its JSON Schema diff tests (SchemaDiffTest reads them).
const confluentDir = "json-schema-provider/src/test/resources"

// confluentFiles are those files with the draft their schemas are read
// in when they name none: Confluent's JsonSchema defaults to draft-07;
// the -2020-12 files are run by SchemaDiffTest as 2020-12.
var confluentFiles = []struct{ file, draft string }{
	{"diff-schema-examples.json", "draft-07"},
	{"diff-combined-schema-examples.json", "draft-07"},
	{"diff-schema-examples-2020-12.json", "2020-12"},
	{"diff-combined-schema-examples-2020-12.json", "2020-12"},
}

// trailingComma matches a comma before a closing bracket: the files are
// read by org.json, which allows it; JSON does not.
var trailingComma = regexp.MustCompile(`,(\s*[}\]])`)

// loadConfluent reads Confluent Schema Registry's labelled pairs from a
// checkout (or from a directory holding the four files). Each entry is
// {description, original_schema, update_schema, changes, compatible};
// "compatible" is Confluent's BACKWARD check of original → update
// (SchemaDiff.compare: a consumer on the update reads what the original
// allowed), conform's reader direction. There is no writer label.
func loadConfluent(path string) ([]Case, error) {
	dir := path
	if _, err := os.Stat(filepath.Join(path, confluentDir)); err == nil {
		dir = filepath.Join(path, confluentDir)
	}
	var out []Case
	for _, cf := range confluentFiles {
		p := filepath.Join(dir, cf.file)
		data, err := os.ReadFile(p)
		if err != nil {
			return nil, err
		}
		v, err := canon.Parse(trailingComma.ReplaceAll(data, []byte("$1")))
		if err != nil {
			return nil, fmt.Errorf("%s: %w", p, err)
		}
		list, ok := v.([]any)
		if !ok {
			return nil, fmt.Errorf("%s: not an array", p)
		}
		for i, e := range list {
			m, _ := e.(map[string]any)
			label, ok := m["compatible"].(bool)
			if !ok {
				return nil, fmt.Errorf("%s: entry %d: no boolean \"compatible\"", p, i)
			}
			desc, _ := m["description"].(string)
			out = append(out, Case{Corpus: "confluent", ID: cf.file + ": " + desc, Line: i, Old: m["original_schema"], New: m["update_schema"],
				Labels: map[string]bool{dirReader: label}, Draft: cf.draft})
		}
	}
	return out, nil
}
