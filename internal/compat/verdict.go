package compat

import (
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
)

// findingMeta is what the semantic check of a finding needs; it stays
// inside the package (Finding is data for users).
type findingMeta struct {
	rule Rule
	// soft: an option or the change's shape lowers the verdict (no check)
	soft bool
	// subj: the old and new schema locations the finding is about
	subj [2]string
	// own: the pair being compared when the finding was made (subj is a
	// parent of it when the meaning depends on the parent)
	own [2]string
	// inOld: Pointer addresses the old document (the subject was removed)
	inOld bool
	// byName: the change breaks by name, not by value (a definition
	// removed): it is never checked and stays BREAKING
	byName bool
	// lowered: an option or the change's shape made it ADDITIVE (soft as
	// add was asked), not a decision of checkOverlaps or checkRoots
	lowered bool
}

// add records a finding of rule at ptr about the current subject pair.
// soft lowers the verdict to ADDITIVE (an option makes it harmless).
func (c *comparer) add(rule, ptr string, soft bool, format string, args ...any) {
	r, ok := c.rules[rule]
	if !ok {
		panic("compat: unregistered rule " + rule)
	}
	c.findings = append(c.findings, Finding{
		Rule:      rule,
		Pointer:   ptr,
		Direction: r.Breaks.String(),
		Verdict:   VerdictAdditive,
		Message:   fmt.Sprintf(format, args...),
	})
	c.meta = append(c.meta, findingMeta{rule: r, soft: soft, lowered: soft && r.Option != "", subj: c.subj, own: c.cur, byName: rule == "DEFINITION_REMOVED" && !soft})
}

// addOld is add for a pointer into the old document.
func (c *comparer) addOld(rule, ptr string, soft bool, format string, args ...any) {
	c.add(rule, ptr, soft, format, args...)
	c.meta[len(c.meta)-1].inOld = true
}

// outcome of checking one subject pair in one direction.
type outcome struct {
	kind    string // evidenceProof, evidenceWitness or evidenceUnchecked
	proof   string
	witness *Witness
}

// scopeOf returns the top-level definition a location is in
// ("/$defs/Name" or "/definitions/Name"), or "" (the root).
func scopeOf(loc string) string {
	for _, kw := range []string{"/$defs/", "/definitions/"} {
		if strings.HasPrefix(loc, kw) {
			rest := loc[len(kw):]
			if i := strings.IndexByte(rest, '/'); i >= 0 {
				return loc[:len(kw)+i]
			}
			return loc
		}
	}
	return ""
}

func (c *comparer) srefOld(loc string) sref {
	v, _ := c.old.lookup(loc)
	return sref{d: c.old, v: v, loc: loc}
}

func (c *comparer) srefNew(loc string) sref {
	v, _ := c.new.lookup(loc)
	return sref{d: c.new, v: v, loc: loc}
}

// check decides whether the change from the old schema at subj[0] to the
// new one at subj[1] breaks direction d: a proof that it does not (at the
// subject, or at its scope: the definition or root holding it), else a
// witness checked by the real validator, else unchecked.
func (c *comparer) check(subj [2]string, d Breaks) outcome {
	key := fmt.Sprintf("%d\x00%s\x00%s", d, subj[0], subj[1])
	if o, ok := c.checked[key]; ok {
		return o
	}
	o, n := c.srefOld(subj[0]), c.srefNew(subj[1])
	x, y := o, n
	if d == BreaksWriter {
		x, y = n, o
	}
	var out outcome
	switch {
	case c.e.prove(conj{atoms: []sref{x}}, y):
		out = outcome{kind: evidenceProof, proof: c.subsumption(d, subj[0], subj[1])}
	default:
		so, sn := scopeOf(subj[0]), scopeOf(subj[1])
		if (so != subj[0] || sn != subj[1]) && c.scopeHolds(so, sn, d) {
			out = outcome{kind: evidenceProof, proof: c.subsumption(d, so, sn)}
			break
		}
		if w, ok := c.e.witness(x, y); ok {
			out = outcome{kind: evidenceWitness, witness: c.newWitness(w, d, subj)}
			break
		}
		out = outcome{kind: evidenceUnchecked}
	}
	if c.e.err == nil {
		c.checked[key] = out
	}
	return out
}

// localWitness searches a witness at the pair itself, out of the context
// that pinned the subject to a parent.
func (c *comparer) localWitness(pair [2]string, d Breaks) *Witness {
	x, y := c.srefOld(pair[0]), c.srefNew(pair[1])
	if d == BreaksWriter {
		x, y = y, x
	}
	if w, ok := c.e.witness(x, y); ok {
		return c.newWitness(w, d, pair)
	}
	return nil
}

func (c *comparer) scopeHolds(so, sn string, d Breaks) bool {
	x, y := c.srefOld(so), c.srefNew(sn)
	if d == BreaksWriter {
		x, y = y, x
	}
	return c.e.prove(conj{atoms: []sref{x}}, y)
}

// subsumption states a proof at the translated locations oLoc and nLoc,
// named as the documents are written.
func (c *comparer) subsumption(d Breaks, oLoc, nLoc string) string {
	oLoc, nLoc = c.old.tr.origPointer(oLoc), c.new.tr.origPointer(nLoc)
	if d == BreaksWriter {
		return fmt.Sprintf("proved: the old schema at %s accepts every instance the new schema at %s accepts", show(oLoc), show(nLoc))
	}
	return fmt.Sprintf("proved: the new schema at %s accepts every instance the old schema at %s accepts", show(nLoc), show(oLoc))
}

func (c *comparer) newWitness(v any, d Breaks, subj [2]string) *Witness {
	w := &Witness{Instance: v, Direction: d.String(),
		OldPointer: c.old.tr.origPointer(subj[0]), NewPointer: c.new.tr.origPointer(subj[1])}
	if d == BreaksReader {
		w.OldAccepts, w.NewAccepts = true, false
	} else {
		w.OldAccepts, w.NewAccepts = false, true
	}
	return w
}

// evaluate gives every finding its verdict: a finding whose rule breaks a
// selected direction (and no option lowers it) is checked in each such
// direction; it is BREAKING in the directions where a witness was found
// or nothing could be proved, ADDITIVE with the proof where every one was
// proved harmless.
func (c *comparer) evaluate() {
	for i := range c.findings {
		f := &c.findings[i]
		m := c.meta[i]
		dirs := m.rule.Breaks & c.filter
		if m.soft || dirs == 0 {
			continue
		}
		var broken Breaks
		var proofs []string
		for _, d := range []Breaks{BreaksReader, BreaksWriter} {
			if dirs&d == 0 {
				continue
			}
			if m.byName {
				broken |= d
				continue
			}
			o := c.check(m.subj, d)
			if o.kind == evidenceUnchecked && m.own != m.subj {
				if w := c.localWitness(m.own, d); w != nil {
					o = outcome{kind: evidenceWitness, witness: w}
				}
			}
			if c.e.err != nil {
				return
			}
			switch o.kind {
			case evidenceProof:
				proofs = append(proofs, o.proof)
			case evidenceWitness:
				broken |= d
				if f.Witness == nil {
					f.Witness = o.witness
				}
			default:
				broken |= d
			}
		}
		if broken == 0 {
			f.Evidence = evidenceProof
			f.Proof = strings.Join(proofs, "; ")
			continue
		}
		f.Verdict = VerdictBreaking
		f.Direction = broken.String()
		if f.Witness != nil {
			f.Evidence = evidenceWitness
		} else {
			f.Evidence = evidenceUnchecked
		}
	}
}

// rootChecks states, for each selected direction, whether the whole
// documents are compatible and with what evidence.
func (c *comparer) rootChecks(findings []Finding) []Check {
	var out []Check
	for _, d := range []Breaks{BreaksReader, BreaksWriter} {
		if c.filter&d == 0 {
			continue
		}
		ch := Check{Direction: d.String(), Holds: true}
		for _, f := range findings {
			if f.Verdict == VerdictBreaking && !f.Ignored && (f.Direction == d.String() || f.Direction == DirectionBoth) {
				ch.Holds = false
				break
			}
		}
		o, n := c.srefOld(""), c.srefNew("")
		x, y := o, n
		if d == BreaksWriter {
			x, y = n, o
		}
		if ch.Holds {
			if c.e.prove(conj{atoms: []sref{x}}, y) {
				ch.Evidence, ch.Proof = evidenceProof, c.subsumption(d, "", "")
			} else {
				ch.Evidence = evidenceUnchecked
			}
		} else if w := rootWitness(findings, d); w != nil {
			ch.Evidence, ch.Witness = evidenceWitness, w // a finding's witness checked at the roots
		} else if w, ok := c.e.witness(x, y); ok {
			ch.Evidence, ch.Witness = evidenceWitness, c.newWitness(w, d, [2]string{"", ""})
		} else {
			ch.Evidence = evidenceUnchecked
		}
		if c.e.err != nil {
			return nil
		}
		out = append(out, ch)
	}
	return out
}

// overlapCandidate is a oneOf (at pointer oneOf of the new document) whose
// branches changed, held by the schema pair subj.
type overlapCandidate struct {
	subj  [2]string
	oneOf string
}

// checkOverlaps adds an ONEOF_OVERLAP finding for each changed oneOf where
// an instance the old holder accepts matches two or more branches of the
// new oneOf and is rejected by the new holder (reader direction only).
func (c *comparer) checkOverlaps() {
	if c.filter&BreaksReader == 0 {
		return
	}
	done := map[string]bool{}
	for _, oc := range c.overlaps {
		if done[oc.oneOf] || c.e.stop() {
			continue
		}
		done[oc.oneOf] = true
		x, y := c.srefOld(oc.subj[0]), c.srefNew(oc.subj[1])
		if c.e.prove(conj{atoms: []sref{x}}, y) {
			continue // the new holder accepts every old instance: none is rejected for matching twice
		}
		list, _ := c.srefNew(oc.oneOf).v.([]any)
		if c.disjoint(oc.oneOf, list) {
			continue // no instance matches two branches
		}
		w, ok := c.e.witnessWhere(x, y, func(v any) bool {
			n := 0
			for i, b := range list {
				if ok, known := c.e.valid(sref{d: c.new, v: b, loc: child(oc.oneOf, strconv.Itoa(i))}, v); known && ok {
					n++
				}
			}
			return n >= 2
		})
		if !ok {
			continue
		}
		saved := c.subj
		c.subj = oc.subj
		c.add("ONEOF_OVERLAP", oc.oneOf, false, "a value the old schema accepted now matches %d or more branches of this oneOf, which rejects it", 2)
		c.subj = saved
		f := &c.findings[len(c.findings)-1]
		f.Verdict, f.Direction, f.Evidence = VerdictBreaking, DirectionReader, evidenceWitness
		f.Witness = c.newWitness(w, BreaksReader, oc.subj)
		c.meta[len(c.meta)-1].soft = true // decided here; evaluate leaves it
	}
}

// checkRoots is the safety net of the rules: for each selected direction
// that no BREAKING finding breaks and that the prover cannot prove at the
// roots, a witness searched at the roots (an instance the validator
// accepts in one document and rejects in the other) becomes an
// ACCEPTANCE_NARROWED (reader) or ACCEPTANCE_WIDENED (writer) finding, so
// a change no finer rule located (a member an unevaluatedProperties no
// longer sees, a keyword's meaning in another draft) is not passed in
// silence.
func (c *comparer) checkRoots() {
	for _, d := range []Breaks{BreaksReader, BreaksWriter} {
		if c.filter&d == 0 || c.e.stop() {
			continue
		}
		broken := false
		for i, f := range c.findings {
			if f.Verdict == VerdictBreaking && (f.Direction == d.String() || f.Direction == DirectionBoth) {
				broken = true
				break
			}
			if m := c.meta[i]; m.lowered && m.rule.Breaks&d != 0 {
				broken = true // an option made a change of this direction harmless: the roots differ by choice
				break
			}
		}
		if broken {
			continue
		}
		x, y := c.srefOld(""), c.srefNew("")
		if d == BreaksWriter {
			x, y = y, x
		}
		if c.e.prove(conj{atoms: []sref{x}}, y) {
			continue
		}
		w, ok := c.e.witness(x, y)
		if !ok {
			continue
		}
		rule, msg := "ACCEPTANCE_NARROWED", "the new schema rejects a value the old schema accepted, where no finer rule located the change"
		if d == BreaksWriter {
			rule, msg = "ACCEPTANCE_WIDENED", "the new schema accepts a value the old schema rejected, where no finer rule located the change"
		}
		saved := c.subj
		c.subj = [2]string{"", ""}
		c.add(rule, "", false, "%s", msg)
		c.subj = saved
		f := &c.findings[len(c.findings)-1]
		f.Verdict, f.Direction, f.Evidence = VerdictBreaking, d.String(), evidenceWitness
		f.Witness = c.newWitness(w, d, [2]string{"", ""})
		c.meta[len(c.meta)-1].soft = true // decided here
	}
}

// rootWitness returns the witness of a BREAKING finding of direction d
// that was checked at the roots of both documents, or nil.
func rootWitness(findings []Finding, d Breaks) *Witness {
	for _, f := range findings {
		if w := f.Witness; w != nil && !f.Ignored && f.Verdict == VerdictBreaking && w.Direction == d.String() && w.OldPointer == "" && w.NewPointer == "" {
			return w
		}
	}
	return nil
}

// disjoint reports whether no two branches of the oneOf list at loc (of
// the new document) can share an instance, by a cheap sufficient test: the
// type sets of their own keywords (allOf and $ref flattened) do not meet,
// a member both require has a different const in each, or their own
// const/enum values (strings, booleans, null; numbers are not compared) do
// not meet. Lists longer
// than 64 branches are not tried.
func (c *comparer) disjoint(loc string, list []any) bool {
	if len(list) > 64 {
		return false
	}
	type shape struct {
		types  tmask
		consts map[string]string // required member -> const text
		values map[string]bool   // const or enum of the branch itself, nil when none
	}
	shapes := make([]shape, len(list))
	for i, x := range list {
		atoms, _, _, empty := c.e.flatten(conj{atoms: []sref{{d: c.new, v: x, loc: child(loc, strconv.Itoa(i))}}})
		sh := shape{types: tAll, consts: map[string]string{}}
		if empty {
			sh.types = 0
		}
		req := map[string]bool{}
		for _, a := range atoms {
			m, _ := a.m()
			sh.types &= maskOf(m)
			if vs, ok := valueList(m); ok && sh.values == nil {
				sh.values = map[string]bool{}
				for _, v := range vs {
					sh.values[jsonText(v)] = true
				}
			}
			for r := range stringSet(m["required"]) {
				req[r] = true
			}
		}
		for _, a := range atoms {
			m, _ := a.m()
			props, _ := m["properties"].(map[string]any)
			for name := range req {
				p, _ := a.d.deref(props[name], child(a.loc, "properties", name))
				if pm, ok := p.(map[string]any); ok {
					if cv, ok := pm["const"]; ok {
						sh.consts[name] = jsonText(cv)
					}
				}
			}
		}
		shapes[i] = sh
	}
	for i := range shapes {
		for j := i + 1; j < len(shapes); j++ {
			a, b := shapes[i], shapes[j]
			if a.types&b.types == 0 {
				continue
			}
			apart := a.values != nil && b.values != nil
			for v := range a.values {
				if b.values[v] {
					apart = false // numbers written differently (1, 1.0) are not told apart here: conservative
					break
				}
			}
			if apart {
				for v := range a.values {
					if _, isNum := rat(json.Number(strings.Trim(v, `"`))); isNum && !strings.HasPrefix(v, `"`) {
						apart = false // 1 and 1.0 are one value
						break
					}
				}
			}
			for name, v := range a.consts {
				if w, ok := b.consts[name]; ok && w != v {
					apart = true
					break
				}
			}
			if !apart {
				return false
			}
		}
	}
	return true
}
