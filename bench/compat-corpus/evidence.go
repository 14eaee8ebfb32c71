package main

import (
	"strings"

	"github.com/conform-kit/conform/internal/compat"
)

// evidence turns a report into a verdict for one direction.
func evidence(rep compat.Report, dir string) outcome {
	if rep.Breaking == 0 {
		return outcome{verdict: "compatible"}
	}
	var rules []string
	for _, f := range rep.Findings {
		if f.Verdict == compat.VerdictBreaking {
			rules = append(rules, f.Rule+" "+f.Pointer)
		}
	}
	return outcome{verdict: "breaking", evidence: strings.Join(rules, "; ")}
}
