package compat_test

import (
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/conform-kit/conform/internal/canon"
	"github.com/conform-kit/conform/internal/compat"
	"github.com/conform-kit/conform/internal/compat/refute"
	"github.com/conform-kit/conform/internal/testtool"
)

// proofAt reads the locations of a stated subsumption ("proved: the new
// schema at P accepts every instance the old schema at Q accepts").
var proofAt = regexp.MustCompile(`the (old|new) schema at (\S+) accepts every instance the (old|new) schema at (\S+) accepts`)

// claim is one inclusion conform proved: every instance of the schema at
// subPtr of doc sub is accepted by the schema at supPtr of doc sup.
type claim struct {
	sub, sup       any
	subPtr, supPtr string
	what           string
}

func ptrOf(s string) string {
	if s == "#" {
		return ""
	}
	return s
}

// claims lists every proof a report states: the root checks that hold by
// proof and each finding proved harmless.
func claims(old, nw any, rep compat.Report) []claim {
	doc := map[string]any{"old": old, "new": nw}
	var out []claim
	seen := map[string]bool{}
	add := func(proof, what string) {
		for _, part := range strings.Split(proof, "; ") {
			m := proofAt.FindStringSubmatch(part)
			if m == nil {
				continue
			}
			// "the Y schema at P accepts every instance the X schema at Q accepts": X ⊆ Y
			c := claim{sup: doc[m[1]], supPtr: ptrOf(m[2]), sub: doc[m[3]], subPtr: ptrOf(m[4]), what: what + ": " + part}
			k := m[1] + m[2] + "|" + m[3] + m[4]
			if !seen[k] {
				seen[k] = true
				out = append(out, c)
			}
		}
	}
	for _, ch := range rep.Checks {
		if ch.Holds && ch.Evidence == compat.EvidenceProof {
			add(ch.Proof, "root check "+ch.Direction)
		}
	}
	for _, f := range rep.Findings {
		if f.Evidence == compat.EvidenceProof {
			add(f.Proof, f.Rule+" "+f.Pointer)
		}
	}
	return out
}

// differentialCatalog is the catalog every comparison of differential
// reads, built once, as a batch (compat --pairs) builds it: the rules and
// the compiled meta-schemas, which no comparison changes. The tests that
// give Compare no catalog still check that path.
var differentialCatalog = sync.OnceValue(compat.NewCatalog)

// differential compares old and new in both directions (StrictOpen, as the
// corpora label set inclusion) and tries to refute every proof with the
// independent generator of package refute, checked by jsonschema v6. It
// returns the number of proofs tried.
func differential(t *testing.T, name string, old, nw any, seed uint64, budget int) int {
	t.Helper()
	n := 0
	for _, dir := range []string{compat.DirectionReader, compat.DirectionWriter} {
		rep, err := compat.Compare(context.Background(), old, nw, compat.Options{Direction: dir, StrictOpen: true, Catalog: differentialCatalog()})
		if err != nil {
			continue // refused: nothing claimed
		}
		for _, c := range claims(old, nw, rep) {
			n++
			res, err := refute.Search(context.Background(), c.sub, c.subPtr, c.sup, c.supPtr, refute.Options{Seed: seed, Budget: budget})
			if err != nil {
				continue // a location the validator cannot compile claims nothing it could check
			}
			if res.Found {
				inst, _ := canon.Canonical(res.Instance)
				t.Errorf("%s (%s): wrong proof %s: %s is accepted at %q of the subset and rejected at %q\nold: %s\nnew: %s",
					name, dir, c.what, inst, c.subPtr, c.supPtr, text(old), text(nw))
			}
		}
	}
	return n
}

func text(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}

func loadDir(t *testing.T, dir string) map[string]map[string]any {
	t.Helper()
	files, err := filepath.Glob(filepath.Join(dir, "*.json"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no fixtures in %s (%v)", dir, err)
	}
	out := map[string]map[string]any{}
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		v, err := canon.Parse(data)
		if err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		out[strings.TrimSuffix(filepath.Base(f), ".json")] = v.(map[string]any)
	}
	return out
}

// TestDifferentialFixtures: no proof conform states on a fixture (issue 12's
// and the soundness ones) is refuted by the independent generator.
func TestDifferentialFixtures(t *testing.T) {
	t.Parallel()
	total := 0
	for _, dir := range []string{"testdata/compat", "testdata/soundness"} {
		fx := loadDir(t, dir)
		for _, name := range sortedNames(fx) {
			m := fx[name]
			if _, isErr := m["error"]; isErr {
				continue
			}
			total += differential(t, dir+"/"+name, m["old"], m["new"], 1, 3000)
			total += differential(t, dir+"/"+name+" (swapped)", m["new"], m["old"], 2, 3000)
		}
	}
	t.Logf("%d proofs tried, none refuted", total)
	if total == 0 {
		t.Fatal("no proof to refute: the test checks nothing")
	}
}

// TestDifferentialRandom: pairs of small schemas drawn from a grammar of
// the keywords whose semantics are easy to get wrong (additionalProperties
// beside applicators, unevaluated*, oneOf, draft-04 integers, $ref), each
// against a mutation of itself; no proof is refuted.
func TestDifferentialRandom(t *testing.T) {
	t.Parallel()
	pairs := 300
	if testing.Short() || !testtool.Deep() {
		pairs = 60 // the full sample: CONFORM_TEST_DEEP=1 (CI stages 62 and 80)
	}
	if s := os.Getenv("CONFORM_DIFFERENTIAL_PAIRS"); s != "" {
		pairs, _ = strconv.Atoi(s)
	}
	total := 0
	for i := range pairs {
		r := rand.New(rand.NewPCG(uint64(i), 7))
		sg := &schemaGen{r: r}
		old := sg.doc()
		nw := sg.mutateDoc(old)
		total += differential(t, fmt.Sprintf("random pair %d", i), old, nw, uint64(i), 800)
	}
	t.Logf("%d pairs, %d proofs tried, none refuted", pairs, total)
	if total == 0 {
		t.Fatal("no proof to refute: the test checks nothing")
	}
}

// TestSoundness: each fixture of testdata/soundness (the false proofs and
// missed breaks of issue 23) gets its verdict per direction: "breaking"
// with a witness the validator confirms, "compatible" by proof, "holds"
// (no break found, proved or not), or "unproved" (never proved at the
// roots: the validator's draft-04 integer accepts 1.0, so no witness can
// be confirmed either).
func TestSoundness(t *testing.T) {
	t.Parallel()
	fx := loadDir(t, "testdata/soundness")
	for _, name := range sortedNames(fx) {
		m := fx[name]
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			about, _ := m["about"].(string)
			for _, dir := range []string{"reader", "writer"} {
				want, _ := m[dir].(string)
				rep, err := compat.Compare(context.Background(), m["old"], m["new"], compat.Options{Direction: dir, StrictOpen: true})
				if err != nil {
					t.Fatalf("%s: %v", dir, err)
				}
				ch := rep.Checks[0]
				switch want {
				case "compatible":
					if !ch.Holds || ch.Evidence != compat.EvidenceProof {
						t.Errorf("%s (%s): want compatible by proof, got %+v; findings %+v", about, dir, ch, rep.Findings)
					}
				case "holds":
					if !ch.Holds {
						t.Errorf("%s (%s): want compatible, got %+v; findings %+v", about, dir, ch, rep.Findings)
					}
				case "unproved":
					if ch.Evidence == compat.EvidenceProof {
						t.Errorf("%s (%s): want no proof, got %+v", about, dir, ch)
					}
					for _, f := range rep.Findings {
						if f.Evidence == compat.EvidenceProof && proofAt.MatchString(f.Proof) && strings.Contains(f.Proof, "at # accepts every instance") {
							t.Errorf("%s (%s): proved at the roots: %+v", about, dir, f)
						}
					}
				case "breaking":
					if ch.Holds {
						t.Errorf("%s (%s): want breaking, got %+v; findings %+v", about, dir, ch, rep.Findings)
						continue
					}
					fxt := fixture{About: about, Old: m["old"], New: m["new"]}
					witnessed := false
					for _, f := range rep.Findings {
						if f.Verdict == compat.VerdictBreaking && f.Evidence == compat.EvidenceWitness {
							confirm(t, fxt, f.Witness)
							witnessed = true
						}
					}
					if !witnessed {
						t.Errorf("%s (%s): breaking without a witness: %+v", about, dir, rep.Findings)
					}
				default:
					t.Fatalf("%s: %s verdict %q", name, dir, want)
				}
			}
		})
	}
}

func sortedNames[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// schemaGen draws small schemas.
type schemaGen struct {
	r     *rand.Rand
	draft string
}

var genNames = []string{"a", "b", "c"}

func (g *schemaGen) doc() any {
	d := map[string]any{}
	switch g.r.IntN(6) {
	case 0:
		g.draft = "http://json-schema.org/draft-04/schema#"
	case 1:
		g.draft = "http://json-schema.org/draft-07/schema#"
	default:
		g.draft = ""
	}
	s, _ := g.schema(0).(map[string]any)
	for k, v := range s {
		d[k] = v
	}
	if g.draft != "" {
		d["$schema"] = g.draft
	}
	defsKw := "$defs"
	if g.draft != "" {
		defsKw = "definitions"
	}
	d[defsKw] = map[string]any{"D": g.schema(2)}
	return d
}

func (g *schemaGen) ref() any {
	if g.draft != "" {
		return map[string]any{"$ref": "#/definitions/D"}
	}
	return map[string]any{"$ref": "#/$defs/D"}
}

func (g *schemaGen) num() any {
	return json.Number(strconv.Itoa(g.r.IntN(5) - 1))
}

func (g *schemaGen) schema(depth int) any {
	if depth > 2 {
		switch g.r.IntN(5) {
		case 0:
			return map[string]any{"type": "integer"}
		case 1:
			return map[string]any{"type": "string", "maxLength": g.num()}
		case 2:
			return map[string]any{"const": genNames[g.r.IntN(3)]}
		case 3:
			return map[string]any{"type": []any{"string", "null"}}
		}
		return map[string]any{"type": "number", "multipleOf": json.Number("1")}
	}
	m := map[string]any{}
	switch g.r.IntN(13) {
	case 9:
		m["type"] = "array"
		m["uniqueItems"] = true
		if g.r.IntN(2) == 0 && g.draft == "" {
			m["contains"] = g.schema(depth + 1)
			m["minContains"] = json.Number(strconv.Itoa(g.r.IntN(3)))
			if g.r.IntN(2) == 0 {
				m["maxContains"] = json.Number("1")
			}
		}
		return m
	case 10:
		m["type"] = "object"
		if g.draft != "http://json-schema.org/draft-04/schema#" {
			m["propertyNames"] = map[string]any{"maxLength": json.Number("1")}
		}
		m["patternProperties"] = map[string]any{"^[ab]$": g.schema(depth + 1)}
		if g.r.IntN(2) == 0 {
			m["additionalProperties"] = false
		}
		return m
	case 11:
		m["enum"] = []any{"a", json.Number("1"), nil, []any{"a"}, map[string]any{"a": json.Number("1")}}[:1+g.r.IntN(5)]
		if g.r.IntN(2) == 0 {
			m["type"] = []any{"string", "integer", "null"}[g.r.IntN(3)]
		}
		return m
	case 12:
		m["type"] = "object"
		if g.draft == "" {
			m["dependentRequired"] = map[string]any{"a": []any{"b"}}
			m["dependentSchemas"] = map[string]any{"b": map[string]any{"required": []any{"c"}}}
		} else {
			m["dependencies"] = map[string]any{"a": []any{"b"}, "b": map[string]any{"required": []any{"c"}}}
		}
		m["properties"] = map[string]any{"a": g.schema(depth + 1)}
		return m
	}
	switch g.r.IntN(9) {
	case 0, 1, 2: // object
		m["type"] = "object"
		props := map[string]any{}
		for _, n := range genNames {
			if g.r.IntN(2) == 0 {
				props[n] = g.schema(depth + 1)
			}
		}
		m["properties"] = props
		if g.r.IntN(2) == 0 {
			m["required"] = []any{genNames[g.r.IntN(3)]}
		}
		switch g.r.IntN(5) {
		case 0:
			m["additionalProperties"] = false
		case 1:
			m["additionalProperties"] = g.schema(depth + 1)
		case 2:
			if g.draft == "" {
				m["unevaluatedProperties"] = false
			}
		}
		switch g.r.IntN(4) {
		case 0:
			m["allOf"] = []any{map[string]any{"properties": map[string]any{genNames[g.r.IntN(3)]: g.schema(depth + 1)}}}
		case 1:
			m["anyOf"] = []any{map[string]any{"required": []any{"a"}}, map[string]any{"properties": map[string]any{"b": g.schema(depth + 1)}}}
		case 2:
			if g.draft == "" {
				m["$ref"] = "#/$defs/D"
			}
		}
		if g.r.IntN(6) == 0 {
			m["patternProperties"] = map[string]any{"^x": g.schema(depth + 1)}
		}
	case 3: // array
		m["type"] = "array"
		switch g.r.IntN(4) {
		case 0:
			m["items"] = g.schema(depth + 1)
		case 1:
			if g.draft == "" {
				m["prefixItems"] = []any{g.schema(depth + 1)}
				m["items"] = g.r.IntN(2) == 0
			} else {
				m["items"] = []any{g.schema(depth + 1)}
				m["additionalItems"] = g.r.IntN(2) == 0
			}
		case 2:
			m["contains"] = g.schema(depth + 1)
			if g.draft == "" && g.r.IntN(2) == 0 {
				m["unevaluatedItems"] = false
			}
		}
		if g.r.IntN(3) == 0 {
			m["maxItems"] = json.Number(strconv.Itoa(g.r.IntN(3)))
		}
	case 4:
		m["oneOf"] = []any{g.schema(depth + 1), g.schema(depth + 1)}
	case 5:
		m["anyOf"] = []any{g.schema(depth + 1), g.schema(depth + 1)}
	case 6:
		m["type"] = []any{"integer", "number", "string"}[g.r.IntN(3)]
		m["minimum"] = g.num()
		if g.r.IntN(2) == 0 {
			m["exclusiveMaximum"] = json.Number("3")
		}
	case 7:
		m["not"] = g.schema(depth + 1)
	default:
		m["if"] = map[string]any{"properties": map[string]any{"a": map[string]any{"const": "a"}}}
		m["then"] = g.schema(depth + 1)
		if g.r.IntN(2) == 0 {
			m["else"] = g.ref()
		}
	}
	return m
}

// mutateDoc copies a document with one or two local changes.
func (g *schemaGen) mutateDoc(d any) any {
	c := deepCopy(d)
	for range 1 + g.r.IntN(2) {
		g.mutateIn(c, 0)
	}
	return c
}

func (g *schemaGen) mutateIn(v any, depth int) {
	m, ok := v.(map[string]any)
	if !ok {
		return
	}
	keys := sortedNames(m)
	if len(keys) > 0 && depth < 4 && g.r.IntN(2) == 0 {
		k := keys[g.r.IntN(len(keys))]
		switch e := m[k].(type) {
		case map[string]any:
			if k == "properties" || k == "$defs" || k == "definitions" || k == "patternProperties" {
				names := sortedNames(e)
				if len(names) > 0 {
					g.mutateIn(e[names[g.r.IntN(len(names))]], depth+1)
					return
				}
			}
			g.mutateIn(e, depth+1)
			return
		case []any:
			if len(e) > 0 {
				g.mutateIn(e[g.r.IntN(len(e))], depth+1)
				return
			}
		}
	}
	switch g.r.IntN(12) {
	case 9:
		m["multipleOf"] = json.Number("0.5")
		return
	case 10:
		m["patternProperties"] = map[string]any{"^a": g.schema(2)}
		return
	case 11:
		m["minItems"] = json.Number("1")
		m["uniqueItems"] = true
		return
	case 0:
		if len(keys) > 0 {
			k := keys[g.r.IntN(len(keys))]
			if k != "$schema" && k != "$defs" && k != "definitions" {
				delete(m, k)
			}
		}
	case 1:
		m["additionalProperties"] = false
	case 2:
		m["required"] = []any{genNames[g.r.IntN(3)]}
	case 3:
		m["type"] = []any{"integer", "number", "object", []any{"string", "null"}}[g.r.IntN(4)]
	case 4:
		if s, ok := g.schema(2).(map[string]any); ok {
			w := map[string]any{}
			for k, e := range m {
				w[k] = e
			}
			for k := range m {
				if k != "$schema" && k != "$defs" && k != "definitions" {
					delete(m, k)
				}
			}
			delete(w, "$schema")
			delete(w, "$defs")
			delete(w, "definitions")
			m["oneOf"] = []any{s, w}
		}
	case 5:
		m["maximum"] = g.num()
	case 6:
		m["properties"] = map[string]any{genNames[g.r.IntN(3)]: g.schema(2)}
	case 7:
		m["allOf"] = []any{map[string]any{"properties": map[string]any{"a": g.schema(2)}}}
	default:
		m["multipleOf"] = json.Number("1")
	}
}

func deepCopy(v any) any {
	switch v := v.(type) {
	case map[string]any:
		out := make(map[string]any, len(v))
		for k, e := range v {
			out[k] = deepCopy(e)
		}
		return out
	case []any:
		out := make([]any, len(v))
		for i, e := range v {
			out[i] = deepCopy(e)
		}
		return out
	}
	return v
}

// mutualGen draws a document of n mutually recursive definitions: each an
// object, an array or a oneOf/anyOf of both, whose members and items
// refer to other definitions (every cycle goes through a member or an
// item, as the meta-schema check requires).
func mutualGen(r *rand.Rand, n int) any {
	defs := map[string]any{}
	ref := func() any { return map[string]any{"$ref": fmt.Sprintf("#/$defs/M%d", r.IntN(n))} }
	leaf := func() any {
		return []any{map[string]any{"type": "string"}, map[string]any{"type": "integer"}, map[string]any{"type": []any{"string", "null"}},
			map[string]any{"const": "m"}, map[string]any{"type": "number", "minimum": json.Number("0")}}[r.IntN(5)]
	}
	for i := range n {
		obj := map[string]any{"type": "object", "properties": map[string]any{"v": leaf(), "next": ref()}}
		if r.IntN(2) == 0 {
			obj["properties"].(map[string]any)["alt"] = map[string]any{"anyOf": []any{map[string]any{"type": "null"}, ref()}}
		}
		if r.IntN(3) == 0 {
			obj["required"] = []any{"v"}
		}
		if r.IntN(3) == 0 {
			obj["additionalProperties"] = false
		}
		arr := map[string]any{"type": "array", "items": ref()}
		var def any
		switch r.IntN(4) {
		case 0:
			def = obj
		case 1:
			def = map[string]any{"oneOf": []any{obj, arr}}
		case 2:
			def = map[string]any{"anyOf": []any{obj, arr, leaf()}}
		default:
			def = map[string]any{"oneOf": []any{map[string]any{"type": "null"}, obj}}
		}
		defs[fmt.Sprintf("M%d", i)] = def
	}
	return map[string]any{"$defs": defs, "$ref": "#/$defs/M0"}
}

// TestDifferentialMutual: mutually recursive definitions (provisional
// results reused across the definitions of a cycle, sem.go prove), each
// document against a mutation of itself and against a copy with one
// definition renamed into a chain (the same meaning through another
// cycle); no proof is refuted.
func TestDifferentialMutual(t *testing.T) {
	t.Parallel()
	pairs := 120
	if testing.Short() || !testtool.Deep() {
		pairs = 30 // the full sample: CONFORM_TEST_DEEP=1 (CI stages 62 and 80)
	}
	total := 0
	for i := range pairs {
		r := rand.New(rand.NewPCG(uint64(i), 33))
		old := mutualGen(r, 2+r.IntN(5))
		sg := &schemaGen{r: r}
		nw := sg.mutateDoc(old)
		total += differential(t, fmt.Sprintf("mutual pair %d", i), old, nw, uint64(i), 800)
	}
	t.Logf("%d pairs, %d proofs tried, none refuted", pairs, total)
	if total == 0 {
		t.Fatal("no proof to refute: the test checks nothing")
	}
}

// TestMutualRecursionProved: issue 33's additive pairs on mutually
// recursive definitions are proved at the roots, up to its 500
// definitions (before, the prover gave up at 20: its depth bound and
// unmemoized provisional results), and the near-misses stay breaking
// with a witness the validator confirms (up to 40 definitions): one
// definition of the cycle narrowed, or a member of one definition made
// required.
func TestMutualRecursionProved(t *testing.T) {
	t.Parallel()
	narrowed := func(n, at int) any {
		d := mutualDefs(n, true).(map[string]any)
		m := d["$defs"].(map[string]any)[fmt.Sprintf("M%d", at)].(map[string]any)
		obj := m["oneOf"].([]any)[0].(map[string]any)
		obj["properties"].(map[string]any)["v"] = map[string]any{"type": "integer"}
		return d
	}
	required := func(n, at int) any {
		d := mutualDefs(n, true).(map[string]any)
		m := d["$defs"].(map[string]any)[fmt.Sprintf("M%d", at)].(map[string]any)
		obj := m["oneOf"].([]any)[0].(map[string]any)
		obj["required"] = []any{"k", "skip"}
		return d
	}
	for _, n := range []int{2, 5, 20, 40, 500} {
		t.Run(fmt.Sprint(n), func(t *testing.T) {
			t.Parallel()
			old, nw := mutualDefs(n, false), mutualDefs(n, true)
			for _, tc := range []struct {
				name     string
				old, new any
				dir      string
				proved   bool
			}{
				{"widened, reader", old, nw, compat.DirectionReader, true},
				{"widened, writer", old, nw, compat.DirectionWriter, false},
				{"the same, writer", nw, nw, compat.DirectionWriter, true},
				{"one definition narrowed, reader", old, narrowed(n, n-1), compat.DirectionReader, false},
				{"a member made required, reader", old, required(n, n/2), compat.DirectionReader, false},
			} {
				if n > 40 && !tc.proved {
					continue // confirming a witness with the validator costs too much here
				}
				rep, err := compat.Compare(context.Background(), tc.old, tc.new, compat.Options{Direction: tc.dir, StrictOpen: true, Catalog: differentialCatalog()})
				if err != nil {
					t.Fatalf("%s: %v", tc.name, err)
				}
				ch := rep.Checks[0]
				if tc.proved {
					if !ch.Holds || ch.Evidence != compat.EvidenceProof {
						t.Errorf("%s: want compatible by proof, got %+v", tc.name, ch)
					}
					continue
				}
				if ch.Holds || ch.Evidence == compat.EvidenceProof {
					t.Errorf("%s: want breaking, got %+v", tc.name, ch)
					continue
				}
				witnessed := false
				for _, f := range rep.Findings {
					if f.Verdict == compat.VerdictBreaking && f.Evidence == compat.EvidenceWitness {
						confirm(t, fixture{About: tc.name, Old: tc.old, New: tc.new}, f.Witness)
						witnessed = true
					}
				}
				if !witnessed && ch.Evidence != compat.EvidenceWitness {
					t.Errorf("%s: breaking without a witness: %+v %+v", tc.name, ch, rep.Findings)
				}
			}
			if n <= 5 {
				differential(t, fmt.Sprintf("mutualDefs(%d)", n), old, nw, uint64(n), 1500)
				differential(t, fmt.Sprintf("mutualDefs(%d) narrowed", n), old, narrowed(n, n-1), uint64(n), 1500)
			}
		})
	}
}
