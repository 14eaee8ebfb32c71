package runner

import (
	"io/fs"
	"slices"
	"strings"

	"github.com/conform-kit/conform/internal/canon"
	"github.com/conform-kit/conform/internal/envelope"
	"github.com/conform-kit/conform/internal/kiterr"
	"github.com/conform-kit/conform/internal/schema"
	"github.com/conform-kit/conform/internal/suite"
)

// MessageResult is the outcome of one message vector: the frame was
// validated against its definition and accepted or rejected as the vector
// says.
type MessageResult struct {
	ID         string             `json:"id"`
	Definition string             `json:"definition"`
	Valid      bool               `json:"valid"`
	Passed     bool               `json:"passed"`
	Violations []schema.Violation `json:"violations,omitempty"`
}

// Coverage lists which schema definitions valid message vectors exercise.
// A definition is covered when a valid message vector names it, or names a
// location inside it (#/$defs/Replies/properties/ping covers Replies and
// Replies/properties/ping).
type Coverage struct {
	Definitions []string `json:"definitions"`
	Uncovered   []string `json:"uncovered,omitempty"`
}

// CheckMessages validates every message vector of version n against the
// version's schema and computes definition coverage over its $defs and
// every member of its envelope's replyBody object (with the version's
// coverage roots, only those reachable from them: [reachableDefs]). Results are in id order. The
// error is a kit failure (VERSION_UNKNOWN, SCHEMA_INVALID); bad vector files
// are returned as load errors.
func CheckMessages(s *Suite, n int) ([]MessageResult, Coverage, []suite.LoadError, error) {
	ver, err := s.Version(n)
	if err != nil {
		return nil, Coverage{}, nil, err
	}
	vs, bad, err := s.Vectors(ver)
	if err != nil {
		return nil, Coverage{}, nil, err
	}
	defs, err := memberNames(s.FS, ver.Schema, "#/$defs")
	if err != nil {
		return nil, Coverage{}, nil, err
	}
	all := slices.Clone(defs)
	if body := ver.Env().ReplyBody(); body != "" {
		methods, err := memberNames(s.FS, ver.Schema, body)
		if err != nil {
			return nil, Coverage{}, nil, err
		}
		replyDef := strings.TrimPrefix(body, "#/$defs/")
		for _, m := range methods {
			all = append(all, replyDef+"/"+canon.EscapePointer(m))
		}
	}
	slices.Sort(all)
	if len(ver.Coverage) > 0 {
		reach, err := reachableDefs(s, ver.Schema, ver.Coverage)
		if err != nil {
			return nil, Coverage{}, nil, err
		}
		all = slices.DeleteFunc(all, func(d string) bool {
			name, _, _ := strings.Cut(d, "/")
			return !reach[canon.UnescapePointer(name)]
		})
	}
	covered := map[string]bool{}
	var out []MessageResult
	for _, v := range vs {
		if v.Kind != suite.KindMessage {
			continue
		}
		sch, err := s.Schemas.Compile(ver.Schema + v.Definition)
		if err != nil {
			bad = append(bad, suite.LoadError{Path: v.Path, Err: kiterr.Wrap(kiterr.VectorInvalid, err, "definition %s", v.Definition)})
			continue
		}
		viol := sch.Validate(v.Message)
		r := MessageResult{ID: v.ID, Definition: v.Definition, Valid: v.Valid, Violations: viol}
		r.Passed = (len(viol) == 0) == v.Valid
		out = append(out, r)
		if v.Valid && r.Passed {
			rest := strings.TrimPrefix(v.Definition, "#/$defs/")
			if rest == v.Definition {
				covered["#"] = true
				continue
			}
			for _, d := range all {
				if rest == d || strings.HasPrefix(rest, d+"/") {
					covered[d] = true
				}
			}
		}
	}
	cov := Coverage{Definitions: all}
	for _, d := range all {
		if !covered[d] {
			cov.Uncovered = append(cov.Uncovered, d)
		}
	}
	return out, cov, bad, nil
}

// reachableDefs returns the names of the $defs entries of the schema file
// reachable from roots (fragments into it: "#" is the document without
// its $defs, "#/$defs/X" entry X, any other pointer the value there)
// through the file's own "$ref"s to "#/$defs/..." (refs to other files
// are not followed). A root's own entry is reachable. Errors:
// SUITE_INVALID (a root that names nothing), SCHEMA_INVALID (the file
// does not parse).
func reachableDefs(s *Suite, file string, roots []string) (map[string]bool, error) {
	doc, ok := s.Schemas.Parsed(file)
	if !ok {
		data, err := fs.ReadFile(s.FS, file)
		if err != nil {
			return nil, kiterr.Wrap(kiterr.SuiteNotFound, err, "read %s", file)
		}
		if doc, err = canon.Parse(data); err != nil {
			return nil, kiterr.Wrap(kiterr.SchemaInvalid, err, "parse %s", file)
		}
	}
	defs, _ := doc.(map[string]any)["$defs"].(map[string]any)
	reach := map[string]bool{}
	var queue []any
	add := func(name string) {
		if def, ok := defs[name]; ok && !reach[name] {
			reach[name] = true
			queue = append(queue, def)
		}
	}
	for _, r := range roots {
		if r == "#" {
			top := map[string]any{}
			for k, v := range doc.(map[string]any) {
				if k != "$defs" {
					top[k] = v
				}
			}
			queue = append(queue, top)
			continue
		}
		toks, err := envelope.Tokens(strings.TrimPrefix(r, "#"))
		var v any
		if err == nil {
			v, ok = envelope.Lookup(doc, toks)
		}
		if err != nil || !ok {
			return nil, kiterr.New(kiterr.SuiteInvalid, "%s: coverage root %q names nothing in %s", suite.ManifestFile, r, file)
		}
		if len(toks) >= 2 && toks[0] == "$defs" {
			add(toks[1])
		}
		queue = append(queue, v)
	}
	for len(queue) > 0 {
		v := queue[0]
		queue = queue[1:]
		switch x := v.(type) {
		case map[string]any:
			if ref, ok := x["$ref"].(string); ok && strings.HasPrefix(ref, "#/$defs/") {
				name, _, _ := strings.Cut(strings.TrimPrefix(ref, "#/$defs/"), "/")
				add(canon.UnescapePointer(name))
			}
			for _, e := range x {
				queue = append(queue, e)
			}
		case []any:
			queue = append(queue, x...)
		}
	}
	return reach, nil
}

// CheckGolden reports whether data is a golden file in RFC 8785 canonical
// form (GOLDEN_INVALID otherwise).
func CheckGolden(data []byte) error {
	c, err := canon.CanonicalBytes(data)
	if err != nil {
		return kiterr.Wrap(kiterr.GoldenInvalid, err, "golden file")
	}
	if string(c) != string(data) {
		return kiterr.New(kiterr.GoldenInvalid, "golden file is not in RFC 8785 canonical form")
	}
	return nil
}

// VectorSchema compiles schemas/vector.schema.json of s.
func VectorSchema(s *Suite) (*schema.Schema, error) { return s.Meta.Compile(suite.VectorSchemaFile) }

// SuiteFS returns the suite's file system.
func SuiteFS(s *Suite) fs.FS { return s.FS }
