// Package compat classifies the changes between two JSON Schemas (draft
// 2020-12) as ADDITIVE or BREAKING, rule by rule, for the two directions a
// schema change can break:
//
//   - reader: the new schema must accept every message the old one accepted
//     (a consumer upgraded to the new schema still reads old messages). A
//     narrowing breaks readers.
//   - writer: consumers still on the old schema must accept every message the
//     new one allows. A widening breaks writers.
//
// [Compare] reads each document in the draft its $schema names (draft-04,
// -06, -07, 2019-09, 2020-12; [Options].DefaultDraft when absent, 2020-12 by
// default; anything else is SCHEMA_UNSUPPORTED, never misread) and rewrites
// it into 2020-12 terms (draft.go): array items is prefixItems,
// additionalItems is items, dependencies is dependentRequired or
// dependentSchemas, draft-04 boolean exclusive bounds and id are read as
// such, keywords beside $ref are dropped before 2019-09, and $ref to anchors
// or to the document's own $id URIs become JSON Pointers. Pointers in
// findings address the documents as written. A $ref to any other URL is an
// error (kiterr SCHEMA_REF_REMOTE), never fetched.
//
// It then walks both schemas side by side (diff.go): each difference is a
// finding of a stable rule ([Rules]). Each pair of locations is compared
// once, so recursive schemas terminate and a shared definition is reported
// once, at its own pointer. A schema and a combinator that wraps it
// ({"$ref": A} and {"oneOf": [{"type": "null"}, {"$ref": A}]}, X and
// {"allOf": [X]}) are paired entry by entry, never keyword by keyword;
// list entries are paired by equality, $ref, if schema, const
// discriminator, then by content (one proved to contain the other), then by
// position.
//
// # Meaning
//
// The rules say where a change is; whether it breaks is decided by meaning.
// Every finding whose rule breaks a selected direction (and that no option
// lowers) is checked (verdict.go) on the pair of schemas it is about: the
// schemas themselves, or, where meaning depends on the parent (anyOf, oneOf
// and allOf entries, then and else, not, if), the schema holding them.
//
//   - proof (sem.go): a sound inclusion prover shows that the new schema
//     accepts every instance the old one accepts (reader) or the reverse
//     (writer), there or at the enclosing definition or root. The finding is
//     then ADDITIVE with its Proof. The prover flattens allOf and $ref,
//     expands anyOf, oneOf and if/then/else into alternatives, splits by type
//     and by value, requires disjointness for oneOf, reads patterns that
//     match every string, merges bounds, and compares members and items by
//     name and position; recursion holds coinductively only through members
//     and items, and a result resting on such an assumption is reused,
//     provisionally, across the definitions of a mutually recursive cycle
//     (sem.go prove). Objects are open by default: a member the subset's
//     propertyNames refuses is absent, and a propertyNames const or enum
//     lists every name it may have. Where it cannot decide it proves
//     nothing.
//   - witness (gen.go): candidate instances are generated from both schemas
//     (const, enum, examples, default, boundary values of their bounds,
//     strings made from their patterns and formats, objects with each
//     documented member and with an undocumented one (null, or a value the
//     other side's region tells apart), arrays at their length bounds, values of contains
//     and propertyNames) and checked with the real validator
//     (santhosh-tekuri/jsonschema/v6 through internal/schema, drafts as
//     written, formats asserted unless FormatAnnotation). One that the old
//     schema accepts and the new one rejects (reader) or the reverse
//     (writer) makes the finding BREAKING with that Witness.
//   - neither: the finding is BREAKING with Evidence "unchecked".
//
// A oneOf whose branches changed is also searched for an instance the old
// schema accepted that now matches two or more branches (ONEOF_OVERLAP,
// reported only with such a witness). [Report].Checks states, per direction,
// whether the documents are compatible and the root-level proof or witness.
//
// Inputs: each document is first validated against its draft's
// meta-schema (SCHEMA_INVALID with the pointer, unless
// [Options].NoMetaschema); a schema that reaches itself through in-place
// applicators only is SCHEMA_INVALID (validators never end); keywords
// outside the draft's vocabulary are dropped, as validators ignore them.
//
// Soundness: additionalProperties sees only its own object's properties
// and patternProperties; the pure view of a node keeps what its
// unevaluated* keywords may see (inPlaceMark); a draft-04 integer is never
// proved from a number or a later draft's integer (1.0). Where no finding
// breaks a direction and the roots are not proved, a witness searched at
// the roots is an ACCEPTANCE_NARROWED or ACCEPTANCE_WIDENED finding. The
// differential tests (differential_test.go, open_test.go) attack every
// proof with the independent generator of package refute: fixtures,
// random pairs, mutually recursive definitions, open objects; each proof
// rule has near-misses that must stay BREAKING with a witness.
//
// Cost: prover results are memoized (a result resting on a coinductive
// assumption of an outer call is not), equality is memoized over the
// whole bisimulation a call visits, each node is flattened once, nested
// anyOf are spliced, equal subschemas are skipped by the differ,
// generated values and witness searches are memoized per schema pair,
// generated objects vary at most maxNames members, long lists are paired
// in linear time, and the context and [Options].MemoryLimit bound
// everything: past the deadline Compare returns COMPAT_TIMEOUT, past the
// memory bound (the process's resident set) COMPAT_MEMORY. The real
// validator is asked only at locations whose in-place unfolding is at
// most 4096 schemas (doc.unfold): jsonschema v6 tries every branch of an
// anyOf that rejects, so one call at the root of a chain of anyOf that
// refer to the next level twice costs 2^depth (issue 33).
//
// # Rules
//
// The registry is the literal slice returned by [Rules]. Ids are stable
// UPPER_SNAKE <SUBJECT>_<INVARIANT> codes, never renamed. Each rule, the
// directions it breaks, and the [Options] field that lowers its verdict:
//
//   - PROPERTY_ADDED_OPEN (breaks reader, option StrictOpen): a property added to an object that
//     allowed other members (additionalProperties absent or true) is reported; it narrows what the
//     old object accepted under that name only when its schema constrains the value.
//   - PROPERTY_ADDED_CLOSED (breaks writer): a property added to a closed object
//     (additionalProperties or unevaluatedProperties false) is reported as a widening: old readers
//     reject the new member.
//   - PROPERTY_ADDED_PARTIAL (breaks none): a property added to a partially open object
//     (additionalProperties a schema, or a matching patternProperties entry) is compared against
//     the schema that governed the name before.
//   - PROPERTY_REMOVED_OPEN (breaks writer, option StrictOpen): a property removed from an open
//     object is reported; the name falls back to any value, which widens only when the removed
//     schema constrained it.
//   - PROPERTY_REMOVED_CLOSED (breaks reader): a property removed from a closed object is reported
//     as a narrowing: old messages that carry it are rejected.
//   - PROPERTY_REMOVED_PARTIAL (breaks none): a property removed from a partially open object is
//     compared against the schema that now governs the name.
//   - PATTERN_PROPERTY_ADDED (breaks both): a patternProperties entry was not added (it narrows
//     open objects and widens closed ones).
//   - PATTERN_PROPERTY_REMOVED (breaks both): a patternProperties entry was not removed (it widens
//     open objects and narrows closed ones).
//   - REQUIRED_ADDED (breaks reader): no property became required: old messages without it are
//     rejected.
//   - REQUIRED_ADDED_WITH_DEFAULT (breaks reader, option RequiredDefaultAdditive): no property
//     with a default became required; default is an annotation, so a validating reader still
//     rejects old messages without it.
//   - REQUIRED_REMOVED (breaks writer): no required property became optional: old readers reject
//     new messages without it.
//   - DEPENDENT_REQUIRED_ADDED (breaks reader): no dependentRequired name was added.
//   - DEPENDENT_REQUIRED_REMOVED (breaks writer): no dependentRequired name was removed.
//   - TYPE_CHANGED (breaks both): the type keyword did not change to a set that neither contains
//     nor is contained in the old one.
//   - TYPE_WIDENED (breaks writer): the type keyword did not admit more types (integer to number,
//     a type added, type removed, false schema opened).
//   - TYPE_NARROWED (breaks reader): the type keyword did not admit fewer types (number to
//     integer, a type dropped, type added, schema became false).
//   - NULLABLE_ADDED (breaks writer): null was not added to the accepted values (type "null" or a
//     {"type":"null"} branch).
//   - NULLABLE_REMOVED (breaks reader): null was not removed from the accepted values.
//   - ENUM_ADDED (breaks reader): no enum keyword was added to an unconstrained value.
//   - ENUM_REMOVED (breaks writer): no enum keyword was removed.
//   - ENUM_VALUE_ADDED (breaks writer, option EnumAddedAdditive): no value was added to an enum
//     (or a const became an enum): readers with closed enums reject it.
//   - ENUM_VALUE_REMOVED (breaks reader): no value was removed from an enum.
//   - CONST_ADDED (breaks reader): no const keyword was added.
//   - CONST_CHANGED (breaks both): a const keyword kept its value.
//   - CONST_REMOVED (breaks writer): no const keyword was removed.
//   - DISCRIMINATOR_CHANGED (breaks both): the const of a property required on both sides (a
//     discriminator such as type or subtype) kept its value.
//   - BOUND_TIGHTENED (breaks reader): no bound (minimum, maximum, exclusive*, minLength,
//     maxLength, minItems, maxItems, minProperties, maxProperties, minContains, maxContains,
//     multipleOf, uniqueItems) was added or tightened.
//   - BOUND_LOOSENED (breaks writer): no bound was removed or loosened.
//   - BOUND_CHANGED (breaks both): multipleOf did not change to a value that is neither a multiple
//     nor a divisor of the old one.
//   - PATTERN_ADDED (breaks reader): no pattern was added.
//   - PATTERN_CHANGED (breaks both): a pattern kept its text (regular expressions are not compared
//     for inclusion).
//   - PATTERN_REMOVED (breaks writer): no pattern was removed.
//   - FORMAT_ADDED (breaks reader, option FormatAnnotation): no format was added (conform's
//     validator asserts formats).
//   - FORMAT_CHANGED (breaks both, option FormatAnnotation): a format kept its name.
//   - FORMAT_REMOVED (breaks writer, option FormatAnnotation): no format was removed.
//   - ADDITIONAL_PROPERTIES_OPENED (breaks writer): additionalProperties did not go from false to
//     absent or true.
//   - ADDITIONAL_PROPERTIES_CLOSED (breaks reader): additionalProperties did not become false.
//   - ADDITIONAL_PROPERTIES_NARROWED (breaks reader): additionalProperties did not go from absent
//     or true to a schema.
//   - ADDITIONAL_PROPERTIES_WIDENED (breaks writer): additionalProperties did not go from false or
//     a schema to absent or true, or from false to a schema.
//   - UNEVALUATED_PROPERTIES_OPENED (breaks writer): unevaluatedProperties did not go from false
//     or a schema to a wider one.
//   - UNEVALUATED_PROPERTIES_CLOSED (breaks reader): unevaluatedProperties did not go from absent
//     or true to false or a schema, or from a schema to false.
//   - BRANCH_ADDED (breaks writer): no anyOf/oneOf branch was added.
//   - BRANCH_REMOVED (breaks reader): no anyOf/oneOf branch was removed.
//   - COMBINATOR_CHANGED (breaks both): a schema kept its combinator (anyOf vs oneOf, or a
//     combinator added or removed).
//   - CONJUNCT_ADDED (breaks reader): no allOf entry (or $ref beside other keywords) was added.
//   - CONJUNCT_REMOVED (breaks writer): no allOf entry (or $ref beside other keywords) was removed.
//   - CONDITIONAL_ADDED (breaks reader): no if/then/else was added.
//   - CONDITIONAL_CHANGED (breaks both): the if schema of a conditional kept its meaning.
//   - CONDITIONAL_REMOVED (breaks writer): no if/then/else was removed.
//   - REF_RETARGETED (breaks none): a $ref pointed at a new target only when the resolved schemas
//     are equal; the differences themselves are reported by the other rules.
//   - DEFINITION_ADDED (breaks none): a $defs entry was added (additive).
//   - DEFINITION_REMOVED (breaks both): no $defs entry that the document itself does not
//     reference was removed: anyone referencing it by pointer (the runner's
//     ReplyBySubtype/<subtype>) breaks; a definition the document referenced is compared where
//     it was used (ADDITIVE here). Never checked by meaning: it breaks by name.
//   - ONEOF_OVERLAP (breaks reader): no instance the old oneOf accepted now matches two or more
//     branches of the new oneOf, which rejects it; reported only with a witness.
//   - ACCEPTANCE_NARROWED (breaks reader): the new schema accepts every instance the old one
//     accepted where no finer rule located a change; reported at the root, only with a witness
//     the validator checked.
//   - ACCEPTANCE_WIDENED (breaks writer): the old schema accepts every instance the new one
//     accepts where no finer rule located a change; reported at the root, only with a witness
//     the validator checked.
//   - KEYWORD_CHANGED (breaks both): an assertion keyword without a finer rule (not, contains,
//     propertyNames, dependentSchemas, unknown keywords) kept its value.
//
// # Defaults
//
// The zero [Options] value is the default. An optional property added to
// (or removed from) an open object is ADDITIVE unless StrictOpen; an enum
// value added is BREAKING for writers unless EnumAddedAdditive; a required
// property with a default is BREAKING for readers unless
// RequiredDefaultAdditive; format changes are BREAKING because conform's
// validator asserts formats, unless FormatAnnotation. docs/compat.md gives
// the reasons and what other tools do.
//
// Policy: [Policy] applies an ignore list (rule ids and JSON Pointers, as
// buf breaking's ignore and ignore_only) and severities per rule (as
// oasdiff's severity levels) to a report; [Locate] gives the line and
// column of a pointer in a JSON text (for --format github).
//
// Sources: JSON Schema 2020-12 Core and Validation; draft-04, -06 and -07
// Validation (items, additionalItems, dependencies, exclusive bounds, $ref
// siblings); COMPATIBILITY.md
// (additive vs breaking, seed 000); STYLE.md (rule registries).
package compat
