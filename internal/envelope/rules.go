package envelope

import (
	"encoding/json"
	"fmt"

	"github.com/conform-kit/conform/internal/canon"
)

// RuleSpec is one passOver or tolerate rule of suite.json or a vector
// (docs/suite-format.md "Frames the runner skips or allows").
//
//	{"when": [{"path": "/method", "equals": "notifications/message"}],
//	 "max": 1, "before": 7, "reason": "..."}
//
// Max and Before are for tolerate rules only: at most Max such frames in
// one vector (0: any number), and each before the reply to the request
// with id Before.
type RuleSpec struct {
	When   []Predicate     `json:"when"`
	Max    int             `json:"max,omitempty"`
	Before json.RawMessage `json:"before,omitempty"`
	Reason string          `json:"reason"`
}

// Rule is a compiled [RuleSpec].
type Rule struct {
	Match  Match
	Max    int
	Reason string
	// Before is the RFC 8785 text of the id whose reply such frames must
	// precede ("" when unset).
	Before string
}

// CompileRules compiles rules; counted says whether max and before are
// allowed (tolerate rules) or not (passOver rules). Errors: plain, naming
// the rule (the caller wraps them with SUITE_INVALID or VECTOR_INVALID).
func CompileRules(kind string, specs []RuleSpec, counted bool) ([]Rule, error) {
	out := make([]Rule, 0, len(specs))
	for i, s := range specs {
		if len(s.When) == 0 {
			return nil, fmt.Errorf("%s[%d]: when has no predicate (it would match every frame)", kind, i)
		}
		m, err := CompileMatch(s.When)
		if err != nil {
			return nil, fmt.Errorf("%s[%d]: %w", kind, i, err)
		}
		r := Rule{Match: m, Max: s.Max, Reason: s.Reason}
		if !counted && (s.Max != 0 || s.Before != nil) {
			return nil, fmt.Errorf("%s[%d]: max and before are for tolerate rules", kind, i)
		}
		if s.Max < 0 {
			return nil, fmt.Errorf("%s[%d]: max %d is negative", kind, i, s.Max)
		}
		if s.Before != nil {
			k, err := canon.CanonicalBytes(s.Before)
			if err != nil {
				return nil, fmt.Errorf("%s[%d]: before: %w", kind, i, err)
			}
			r.Before = string(k)
		}
		out = append(out, r)
	}
	return out, nil
}

// First returns the index of the first rule that matches frame, or -1.
func First(rules []Rule, frame any) int {
	for i := range rules {
		if rules[i].Match.Holds(frame) {
			return i
		}
	}
	return -1
}
