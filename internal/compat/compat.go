package compat

import (
	"cmp"
	"context"
	"errors"
	"slices"

	"github.com/conform-kit/conform/internal/kiterr"
	"github.com/conform-kit/conform/internal/schema"
)

// Severities written in [Finding].Severity.
const (
	SeverityError   = "error"
	SeverityWarning = "warning"
	SeverityInfo    = "info"
)

// Directions accepted by [Options].Direction and written in [Finding].Direction.
const (
	DirectionReader = "reader"
	DirectionWriter = "writer"
	DirectionBoth   = "both"
)

// Verdicts written in [Finding].Verdict.
const (
	VerdictAdditive = "ADDITIVE"
	VerdictBreaking = "BREAKING"
)

// Options tune [Compare]. The zero value is the documented default.
type Options struct {
	// Direction is the compatibility that must hold: "reader" (the new schema
	// reads every old message), "writer" (old consumers read every new
	// message) or "both". "" means "both". A finding whose rule breaks only
	// the other direction gets the verdict ADDITIVE.
	Direction string
	// StrictOpen makes PROPERTY_ADDED_OPEN and PROPERTY_REMOVED_OPEN BREAKING
	// when the property's schema constrains the value. Default false: they
	// are ADDITIVE (nobody is expected to send an undocumented member).
	StrictOpen bool
	// EnumAddedAdditive makes ENUM_VALUE_ADDED ADDITIVE. Default false: it is
	// BREAKING for writers, because readers with closed enums (generated
	// code, the old schema itself) reject the new value.
	EnumAddedAdditive bool
	// FormatAnnotation treats format as an annotation (the draft 2020-12
	// default vocabulary) and makes FORMAT_* findings ADDITIVE. Default
	// false: conform's validator asserts formats (internal/schema), so a
	// format change is BREAKING in the direction it narrows or widens.
	FormatAnnotation bool
	// RequiredDefaultAdditive makes REQUIRED_ADDED_WITH_DEFAULT ADDITIVE, for
	// readers that fill defaults before they validate. Default false:
	// default is an annotation and a validating reader rejects old messages.
	RequiredDefaultAdditive bool
	// NoMetaschema skips the validation of both documents against their
	// draft's meta-schema. Default false: a document the meta-schema
	// rejects ({"type": "strnig"}, "items": "oops", a boolean
	// exclusiveMinimum under 2020-12) is SCHEMA_INVALID with the pointer of
	// the violation, never compared.
	NoMetaschema bool
	// MemoryLimit bounds the process's memory while Compare runs, in
	// bytes: past it Compare returns COMPAT_MEMORY instead of growing
	// further. 0 means [DefaultMemoryLimit] (1 GiB), a negative value no
	// bound. The memory is the resident set (/proc/self/statm; where there
	// is none, what the Go runtime mapped less what it released: stacks
	// and free heap count, not only live objects), read every few hundred
	// steps of the prover and the witness search, so the bound holds
	// within a few megabytes of those steps (loading a document, its
	// meta-schema check included, is not polled).
	MemoryLimit int64
	// DefaultDraft is the draft of a document without $schema: "2020-12"
	// (also ""), "2019-09", "draft-07", "draft-06" or "draft-04".
	DefaultDraft string
	// Catalog, when not nil, is the rule registry and the compiled
	// meta-schemas Compare reads and never changes ([NewCatalog]): a batch
	// builds it once for all its pairs. nil builds what one call needs.
	Catalog *Catalog
}

// Catalog is what every comparison reads and none changes: the rule
// registry by id ([Rules]) and the drafts' compiled meta-schemas
// (schema.MetaSchemas). It is safe for concurrent use.
type Catalog struct {
	rules map[string]Rule
	meta  *schema.MetaSchemas
}

// NewCatalog builds a [Catalog] (a few milliseconds, most of it compiling
// the five meta-schemas).
func NewCatalog() *Catalog {
	return &Catalog{rules: indexRules(), meta: schema.NewMetaSchemas()}
}

// Evidence values of [Finding].Evidence and [Check].Evidence.
const (
	// EvidenceWitness: a concrete instance, checked by the real validator
	// (jsonschema v6) against both schemas, shows the break.
	evidenceWitness = "witness"
	// EvidenceProof: the prover showed that one schema accepts every
	// instance the other accepts, so the change breaks no one in that
	// direction (the finding is ADDITIVE despite its rule).
	evidenceProof = "proof"
	// EvidenceUnchecked: neither a witness nor a proof was found; the
	// finding is BREAKING by its rule alone.
	evidenceUnchecked = "unchecked"
)

// The values of [Finding].Evidence and [Check].Evidence.
const (
	EvidenceWitness   = evidenceWitness
	EvidenceProof     = evidenceProof
	EvidenceUnchecked = evidenceUnchecked
)

// Finding is one difference between two schemas. Findings are data, never
// errors.
type Finding struct {
	// Rule is the stable id of the [Rule] that produced the finding.
	Rule string `json:"rule"`
	// Pointer is a JSON Pointer (RFC 6901) into the new schema, or into the
	// old one when the subject was removed (In says which); "" is the root.
	// Below a local $ref it is the location of the resolved target. It
	// addresses the document as written, whatever its draft.
	Pointer string `json:"pointer"`
	// In is "new" or "old": the document Pointer addresses.
	In string `json:"in"`
	// Direction is the set of directions the finding breaks: for a BREAKING
	// finding, those in which a witness was found or nothing was proved
	// ("reader", "writer" or "both"); for an ADDITIVE one, the rule's
	// [Breaks] set ("both" also for rules that break no one).
	Direction string `json:"direction"`
	// Verdict is "BREAKING" when the change breaks a direction selected by
	// [Options].Direction (its rule says so, no option lowers it, and no
	// proof shows it harmless), else "ADDITIVE".
	Verdict string `json:"verdict"`
	// Message says what changed, in the past tense, names quoted.
	Message string `json:"message"`
	// Evidence is how the verdict was decided: "witness" (Witness holds a
	// checked instance), "proof" (Proof says why the change breaks no one)
	// or "unchecked" (a BREAKING finding with neither). Empty for a finding
	// no selected direction checks (its rule breaks none of them, or an
	// option lowers it).
	Evidence string `json:"evidence,omitempty"`
	// Witness, for a BREAKING finding, is an instance one schema accepts and
	// the other rejects, checked with the real validator at the locations
	// it names.
	Witness *Witness `json:"witness,omitempty"`
	// Proof, for a finding proved harmless, states the subsumption.
	Proof string `json:"proof,omitempty"`
	// Severity is "error", "warning" or "info": by default error for
	// BREAKING and info for ADDITIVE; a [Policy] may set it per rule.
	Severity string `json:"severity"`
	// Ignored is set when a [Policy] ignore entry matched the finding; it
	// is then counted in neither Breaking nor Additive.
	Ignored bool `json:"ignored,omitempty"`
}

// Witness is an instance that shows a change breaks a direction: for
// "reader", the old schema accepts it and the new one rejects it; for
// "writer", the reverse. Both verdicts come from the real validator
// (santhosh-tekuri/jsonschema/v6, drafts as their $schema says, formats
// asserted unless [Options].FormatAnnotation) at OldPointer and
// NewPointer of the documents as written.
type Witness struct {
	Instance   any    `json:"instance"`
	Direction  string `json:"direction"`
	OldPointer string `json:"old_pointer"`
	NewPointer string `json:"new_pointer"`
	OldAccepts bool   `json:"old_accepts"`
	NewAccepts bool   `json:"new_accepts"`
}

// Check is the verdict on the whole documents in one direction.
type Check struct {
	// Direction is "reader" or "writer".
	Direction string `json:"direction"`
	// Holds is true when no BREAKING finding (not ignored) breaks it.
	Holds bool `json:"holds"`
	// Evidence: "proof" (Holds, proved at the roots), "witness" (not Holds,
	// Witness found at the roots) or "unchecked".
	Evidence string   `json:"evidence"`
	Proof    string   `json:"proof,omitempty"`
	Witness  *Witness `json:"witness,omitempty"`
}

// Report is the result of [Compare].
type Report struct {
	// Findings are sorted by Pointer, then Rule, then Message; never nil.
	Findings []Finding `json:"findings"`
	// Breaking counts findings with the verdict BREAKING (not ignored).
	Breaking int `json:"breaking"`
	// Additive counts findings with the verdict ADDITIVE (not ignored).
	Additive int `json:"additive"`
	// Ignored counts findings a [Policy] ignored.
	Ignored int `json:"ignored,omitempty"`
	// Checks has one entry per selected direction, reader first.
	Checks []Check `json:"checks"`
	// Drafts are the drafts of the old and new documents ("draft-07",
	// "2020-12", ...).
	Drafts [2]string `json:"drafts"`
}

// Compare classifies the changes from the JSON Schema old to new (documents
// decoded by canon.Parse or encoding/json: nil, bool, string, json.Number or
// float64, []any, map[string]any).
//
// Drafts: each document is read in the draft its root $schema names
// (draft-04, -06, -07, 2019-09, 2020-12; 2020-12 when absent) and compared
// in 2020-12 terms: array-form items is prefixItems, dependencies is
// dependentRequired/dependentSchemas, draft-04 boolean exclusive bounds and
// id are read as such, keywords beside $ref are ignored before 2019-09.
//
// Local $ref (JSON Pointers, anchors, and the document's own $id URIs) are
// resolved inside each document, offline; each pair of locations is
// compared once, so recursive schemas terminate and a definition referenced
// from many places is reported once, at its own pointer.
//
// Every finding whose rule breaks a selected direction is checked by
// meaning (see doc.go): proved harmless (ADDITIVE, with Proof), or shown
// breaking by a witness instance that the real validator accepted in one
// schema and rejected in the other, or left BREAKING unchecked. The output
// is deterministic.
//
// Errors (kit failures, not findings): SCHEMA_REF_REMOTE for a $ref to any
// other URL; SCHEMA_INVALID for a root that is not an object or boolean, a
// $ref that is not a string or does not resolve, a $ref cycle with no schema
// in between, a document its draft's meta-schema rejects (unless
// NoMetaschema); SCHEMA_UNSUPPORTED for a $schema it does not know (draft-03
// and older) or $dynamicRef/$recursiveRef; USAGE for an unknown Direction;
// INTERRUPTED when ctx is cancelled, COMPAT_TIMEOUT when its deadline
// passes, COMPAT_MEMORY when the process's resident memory passes
// MemoryLimit.
func Compare(ctx context.Context, old, new any, opt Options) (Report, error) {
	rep, _, err := compare(ctx, old, new, opt)
	return rep, err
}

// work counts what one Compare did: calls of the real validator, prove
// calls not answered by a memo, conjunctions flattened by expand. The cost
// tests bound how they grow (export_test.go), never the time.
type work struct {
	validations, proofs, expansions int
	evaluations                     int64
}

func compare(ctx context.Context, old, new any, opt Options) (Report, work, error) {
	rep, e, err := compareEngine(ctx, old, new, opt)
	var w work
	if e != nil {
		w = work{validations: e.validations, proofs: e.proofs, expansions: e.expansions, evaluations: e.evaluations}
	}
	return rep, w, err
}

func compareEngine(ctx context.Context, old, new any, opt Options) (Report, *engine, error) {
	var filter Breaks
	switch opt.Direction {
	case DirectionReader:
		filter = BreaksReader
	case DirectionWriter:
		filter = BreaksWriter
	case DirectionBoth, "":
		filter = BreaksBoth
	default:
		return Report{}, nil, kiterr.New(kiterr.Usage, "direction %q: want reader, writer or both", opt.Direction)
	}
	def, ok := parseDialect(opt.DefaultDraft)
	if !ok {
		return Report{}, nil, kiterr.New(kiterr.Usage, "default draft %q: want 2020-12, 2019-09, draft-07, draft-06 or draft-04", opt.DefaultDraft)
	}
	// loading (meta-schema validation, translation, $ref checks) is not
	// interruptible; the context is read between its steps
	if err := ctx.Err(); err != nil {
		return Report{}, nil, ctxErr(err)
	}
	od, err := loadDoc("old", old, opt, def)
	if err != nil {
		return Report{}, nil, err
	}
	if err := ctx.Err(); err != nil {
		return Report{}, nil, ctxErr(err)
	}
	nd, err := loadDoc("new", new, opt, def)
	if err != nil {
		return Report{}, nil, err
	}
	if err := ctx.Err(); err != nil {
		return Report{}, nil, ctxErr(err)
	}
	rules := indexRules()
	if opt.Catalog != nil {
		rules = opt.Catalog.rules
	}
	c := &comparer{
		ctx:     ctx,
		opt:     opt,
		filter:  filter,
		rules:   rules,
		old:     od,
		new:     nd,
		seen:    make(map[string]bool),
		e:       newEngine(ctx, opt),
		checked: map[string]outcome{},
	}
	c.schema(od.root, "", nd.root, "", false)
	c.subj = [2]string{}
	c.defs(od.root, "", nd.root, "")
	if c.err == nil {
		c.evaluate()
		c.checkOverlaps()
		c.checkRoots()
	}
	if c.err == nil && c.e.err != nil {
		c.err = c.e.err
	}
	if c.err != nil {
		return Report{}, c.e, c.err
	}
	for i := range c.findings {
		f := &c.findings[i]
		f.In = "new"
		doc := nd
		if c.meta[i].inOld {
			f.In, doc = "old", od
		}
		f.Pointer = doc.tr.origPointer(f.Pointer)
		f.Severity = SeverityInfo
		if f.Verdict == VerdictBreaking {
			f.Severity = SeverityError
		}
	}
	rep := Report{Findings: c.findings, Drafts: [2]string{od.tr.dialect.String(), nd.tr.dialect.String()}}
	if rep.Findings == nil {
		rep.Findings = []Finding{}
	}
	sortFindings(rep.Findings)
	rep.Findings = slices.Compact(rep.Findings)
	rep.recount()
	rep.Checks = c.rootChecks(rep.Findings)
	if c.e.err != nil {
		return Report{}, c.e, c.e.err
	}
	return rep, c.e, nil
}

// indexRules is the registry by id. A batch of small comparisons spent a
// third of its allocations rebuilding it, so a batch builds it once, in
// its [Catalog].
func indexRules() map[string]Rule {
	rules := make(map[string]Rule)
	for _, r := range Rules() {
		rules[r.ID] = r
	}
	return rules
}

func sortFindings(fs []Finding) {
	slices.SortFunc(fs, func(a, b Finding) int {
		return cmp.Or(cmp.Compare(a.Pointer, b.Pointer), cmp.Compare(a.Rule, b.Rule),
			cmp.Compare(a.Message, b.Message), cmp.Compare(a.Direction, b.Direction))
	})
}

// recount sets Breaking, Additive and Ignored from the findings.
func (r *Report) recount() {
	r.Breaking, r.Additive, r.Ignored = 0, 0, 0
	for _, f := range r.Findings {
		switch {
		case f.Ignored:
			r.Ignored++
		case f.Verdict == VerdictBreaking:
			r.Breaking++
		default:
			r.Additive++
		}
	}
}

// loadDoc reads a document in its draft, translated to 2020-12, with its
// references checked and a validator for witnesses.
func loadDoc(name string, root any, opt Options, def dialect) (*doc, error) {
	switch root.(type) {
	case bool, map[string]any:
	default:
		return nil, kiterr.New(kiterr.SchemaInvalid, "%s schema: root is %s, want an object or a boolean", name, jsonKind(root))
	}
	if _, err := dialectOf(name, root, def); err != nil {
		return nil, err
	}
	std, err := schema.NewStandalone(name, root, !opt.FormatAnnotation, def.String())
	if err != nil {
		return nil, err
	}
	if !opt.NoMetaschema {
		var meta *schema.MetaSchemas
		if opt.Catalog != nil {
			meta = opt.Catalog.meta
		}
		if err := std.CheckMeta(meta); err != nil {
			var ke *kiterr.Error
			if errors.As(err, &ke) {
				return nil, &kiterr.Error{Code: ke.Code, Msg: name + " schema: " + ke.Msg, Err: ke.Err}
			}
			return nil, kiterr.Wrap(kiterr.SchemaInvalid, err, "%s schema", name)
		}
	}
	tr, err := translate(name, root, def)
	if err != nil {
		return nil, err
	}
	d, err := newDoc(name, tr.root)
	if err != nil {
		return nil, err
	}
	d.tr = tr
	d.std = std
	return d, nil
}
