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
// [Compare] walks both schemas side by side, resolving local $ref (JSON
// Pointers, including $defs) inside each document offline; a $ref to any
// other URL is an error (kiterr SCHEMA_REF_REMOTE), never fetched. Each pair
// of locations is compared once, so recursive schemas terminate and a shared
// definition is reported once, at its own pointer. Findings are data
// ([Finding]), sorted by pointer, then rule, then message.
//
// The comparison is structural, not a full set-inclusion proof: regular
// expressions are compared as text (PATTERN_CHANGED), allOf/anyOf/oneOf
// entries are matched by equality, $ref, if schema and const discriminators
// before position, and keywords without a finer rule are reported as
// KEYWORD_CHANGED. Where it cannot tell, it errs towards BREAKING.
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
//   - DEFINITION_REMOVED (breaks both): no $defs entry was removed: anyone referencing it by
//     pointer (the runner's ReplyBySubtype/<subtype>) breaks.
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
// Sources: JSON Schema 2020-12 Core and Validation; COMPATIBILITY.md
// (additive vs breaking, seed 000); STYLE.md (rule registries).
package compat
