package main

import (
	"strings"

	"github.com/conform-kit/conform/internal/compat"
)

// evidence turns a report into a verdict for one direction: breaking when a
// BREAKING finding breaks it. It is proven when the report's check of that
// direction carries a witness (breaking) or a proof (compatible).
func evidence(rep compat.Report, dir string) outcome {
	var ch *compat.Check
	for i := range rep.Checks {
		if rep.Checks[i].Direction == dir {
			ch = &rep.Checks[i]
		}
	}
	if ch == nil {
		return outcome{verdict: "error", evidence: "no check for " + dir}
	}
	var rules []string
	for _, f := range rep.Findings {
		if f.Verdict == compat.VerdictBreaking {
			rules = append(rules, f.Rule+" "+f.Pointer+" ("+f.Evidence+")")
		}
	}
	if ch.Holds {
		return outcome{verdict: "compatible", proven: ch.Evidence == compat.EvidenceProof, evidence: ch.Proof}
	}
	ev := "findings: " + strings.Join(rules, "; ")
	if ch.Witness != nil {
		ev = "witness " + jsonText(ch.Witness.Instance) + " (old accepts: " + yes(ch.Witness.OldAccepts) + ", new accepts: " + yes(ch.Witness.NewAccepts) + "); " + ev
	}
	return outcome{verdict: "breaking", proven: ch.Evidence == compat.EvidenceWitness, evidence: ev}
}

func yes(b bool) string {
	if b {
		return "yes"
	}
	return "no"
}
