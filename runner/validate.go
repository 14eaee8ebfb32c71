package runner

import (
	"io/fs"
	"slices"
	"strings"

	"github.com/conform-kit/conform/internal/canon"
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
// every member of its envelope's replyBody object. Results are in id order. The
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
