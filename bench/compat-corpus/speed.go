package main

import (
	"context"
	"fmt"
	"io"
	"regexp"
	"sort"
	"strings"

	"github.com/conform-kit/conform/internal/canon"
	"github.com/conform-kit/conform/internal/compat"
	"github.com/conform-kit/conform/internal/compat/refute"
)

// speed prints, per peer and corpus, the CPU time of conform (per pair,
// inside its one batch process) against the peer's (per call, inside its
// one Python process, from peers.py) on the pairs both answered, with
// the ratio and how many pairs conform took longer on.
func speed(w io.Writer, cases []Case, ours map[string]outcome, peerNames []string, peerOut map[string]map[string]outcome) {
	if len(peerNames) == 0 {
		return
	}
	fmt.Fprintln(w)
	fmt.Fprintln(w, "CPU time on the pairs both tools answered (conform: per pair in one `conform compat --pairs` process; peer: per call in one Python process)")
	fmt.Fprintln(w)
	fmt.Fprintln(w, "| peer | corpus | pairs | conform CPU ms | peer CPU ms | conform / peer | pairs where conform took longer |")
	fmt.Fprintln(w, "|---|---|---|---|---|---|---|")
	for _, p := range peerNames {
		byCorpus := map[string][3]float64{}
		longer := map[string]int{}
		var corpora []string
		for _, c := range cases {
			for _, d := range []string{dirReader, dirWriter} {
				if _, ok := c.Labels[d]; !ok {
					continue
				}
				k := key(c, d)
				o, po := ours[k], peerOut[p][k]
				if !o.hasCPU || !po.hasCPU || o.verdict == "error" || po.verdict == "error" {
					continue
				}
				t, seen := byCorpus[c.Corpus]
				if !seen {
					corpora = append(corpora, c.Corpus)
				}
				t[0]++
				t[1] += o.cpuMs
				t[2] += po.cpuMs
				byCorpus[c.Corpus] = t
				if o.cpuMs > po.cpuMs {
					longer[c.Corpus]++
				}
			}
		}
		sort.Strings(corpora)
		for _, cp := range corpora {
			t := byCorpus[cp]
			ratio := "-"
			if t[2] > 0 {
				ratio = fmt.Sprintf("%.2f", t[1]/t[2])
			}
			fmt.Fprintf(w, "| %s | %s | %d | %.1f | %.1f | %s | %d |\n", p, cp, int(t[0]), t[1], t[2], ratio, longer[cp])
		}
	}
}

var proofAt = regexp.MustCompile(`the (old|new) schema at (\S+) accepts every instance the (old|new) schema at (\S+) accepts`)

// refuteAll tries to refute every proof conform stated (root checks that
// hold by proof, findings proved harmless) with the independent generator
// of internal/compat/refute and the jsonschema v6 validator, and prints
// the count and each wrong proof.
func refuteAll(w io.Writer, cases []Case, ours map[string]outcome) {
	tried, wrong := map[string]int{}, map[string]int{}
	var lines []string
	var corpora []string
	for _, c := range cases {
		for _, d := range []string{dirReader, dirWriter} {
			if _, ok := c.Labels[d]; !ok {
				continue // a Karapace writer case is its own Case (swapped), with the same key
			}
			o := ours[key(c, d)]
			if o.rep == nil {
				continue
			}
			if _, ok := tried[c.Corpus]; !ok {
				corpora = append(corpora, c.Corpus)
				tried[c.Corpus] = 0
			}
			draft := ""
			if c.Corpus == "karapace" {
				draft = "draft-07"
			}
			doc := map[string]any{"old": c.Old, "new": c.New}
			seen := map[string]bool{}
			var proofs []string
			for _, ch := range o.rep.Checks {
				if ch.Holds && ch.Evidence == compat.EvidenceProof {
					proofs = append(proofs, ch.Proof)
				}
			}
			for _, f := range o.rep.Findings {
				if f.Evidence == compat.EvidenceProof {
					proofs = append(proofs, f.Proof)
				}
			}
			for _, pr := range proofs {
				for _, part := range strings.Split(pr, "; ") {
					m := proofAt.FindStringSubmatch(part)
					if m == nil || seen[part] {
						continue
					}
					seen[part] = true
					tried[c.Corpus]++
					res, err := refute.Search(context.Background(), doc[m[3]], ptr(m[4]), doc[m[1]], ptr(m[2]), refute.Options{Seed: 1, Budget: 3000, DefaultDraft: draft})
					if err != nil || !res.Found {
						continue
					}
					wrong[c.Corpus]++
					inst, _ := canon.Canonical(res.Instance)
					lines = append(lines, fmt.Sprintf("- [%s %s] %s (line %d): %s refuted by %s", c.Corpus, d, c.ID, c.Line, part, inst))
				}
			}
		}
	}
	fmt.Fprintln(w)
	fmt.Fprintln(w, "Proofs tried against the independent generator (internal/compat/refute, 3000 candidates each, jsonschema v6)")
	fmt.Fprintln(w)
	fmt.Fprintln(w, "| corpus | proofs | wrong proofs |")
	fmt.Fprintln(w, "|---|---|---|")
	for _, cp := range corpora {
		fmt.Fprintf(w, "| %s | %d | %d |\n", cp, tried[cp], wrong[cp])
	}
	for _, l := range lines {
		fmt.Fprintln(w, l)
	}
}

func ptr(s string) string {
	if s == "#" {
		return ""
	}
	return s
}
