package compat

// Breaks is the set of directions in which a change breaks compatibility.
// The zero value, [BreaksNone], is a change that breaks no one.
type Breaks uint8

// The direction sets of [Breaks].
const (
	// BreaksNone: the change breaks neither readers nor writers.
	BreaksNone Breaks = 0
	// BreaksReader: the new schema rejects a message the old one accepted (a
	// narrowing): a consumer upgraded to the new schema cannot read old messages.
	BreaksReader Breaks = 1 << 0
	// BreaksWriter: the new schema accepts a message the old one rejected (a
	// widening): consumers still on the old schema cannot read new messages.
	BreaksWriter Breaks = 1 << 1
	// BreaksBoth: the change narrows and widens at once.
	BreaksBoth = BreaksReader | BreaksWriter
)

// String returns "reader", "writer" or "both". [BreaksNone] is "both": a
// change that breaks no one is additive for readers and writers alike.
func (b Breaks) String() string {
	switch b {
	case BreaksReader:
		return DirectionReader
	case BreaksWriter:
		return DirectionWriter
	}
	return DirectionBoth
}

// Rule is one entry of the rule registry returned by [Rules].
type Rule struct {
	// ID is the stable UPPER_SNAKE code <SUBJECT>_<INVARIANT>; never renamed.
	ID string
	// Purpose is one sentence: "Checks that ...".
	Purpose string
	// Breaks is the set of directions the change breaks when its verdict is
	// not lowered by an [Options] field.
	Breaks Breaks
	// Option names the [Options] field (and CLI flag) that changes the
	// rule's default verdict, or "" when none does.
	Option string
}

// Rules returns the rule registry in a fixed order (grouped by subject).
// Each call returns a fresh slice; the registry is a literal, never
// extended at run time. See doc.go and docs/compat.md for the table.
func Rules() []Rule {
	return []Rule{
		{ID: "PROPERTY_ADDED_OPEN", Purpose: "Checks that a property added to an object that allowed other members (additionalProperties absent or true) is reported; it narrows what the old object accepted under that name only when its schema constrains the value.", Breaks: BreaksReader, Option: "StrictOpen"},
		{ID: "PROPERTY_ADDED_CLOSED", Purpose: "Checks that a property added to a closed object (additionalProperties or unevaluatedProperties false) is reported as a widening: old readers reject the new member.", Breaks: BreaksWriter},
		{ID: "PROPERTY_ADDED_PARTIAL", Purpose: "Checks that a property added to a partially open object (additionalProperties a schema, or a matching patternProperties entry) is compared against the schema that governed the name before.", Breaks: BreaksNone},
		{ID: "PROPERTY_REMOVED_OPEN", Purpose: "Checks that a property removed from an open object is reported; the name falls back to any value, which widens only when the removed schema constrained it.", Breaks: BreaksWriter, Option: "StrictOpen"},
		{ID: "PROPERTY_REMOVED_CLOSED", Purpose: "Checks that a property removed from a closed object is reported as a narrowing: old messages that carry it are rejected.", Breaks: BreaksReader},
		{ID: "PROPERTY_REMOVED_PARTIAL", Purpose: "Checks that a property removed from a partially open object is compared against the schema that now governs the name.", Breaks: BreaksNone},
		{ID: "PATTERN_PROPERTY_ADDED", Purpose: "Checks that a patternProperties entry was not added (it narrows open objects and widens closed ones).", Breaks: BreaksBoth},
		{ID: "PATTERN_PROPERTY_REMOVED", Purpose: "Checks that a patternProperties entry was not removed (it widens open objects and narrows closed ones).", Breaks: BreaksBoth},
		{ID: "REQUIRED_ADDED", Purpose: "Checks that no property became required: old messages without it are rejected.", Breaks: BreaksReader},
		{ID: "REQUIRED_ADDED_WITH_DEFAULT", Purpose: "Checks that no property with a default became required; default is an annotation, so a validating reader still rejects old messages without it.", Breaks: BreaksReader, Option: "RequiredDefaultAdditive"},
		{ID: "REQUIRED_REMOVED", Purpose: "Checks that no required property became optional: old readers reject new messages without it.", Breaks: BreaksWriter},
		{ID: "DEPENDENT_REQUIRED_ADDED", Purpose: "Checks that no dependentRequired name was added.", Breaks: BreaksReader},
		{ID: "DEPENDENT_REQUIRED_REMOVED", Purpose: "Checks that no dependentRequired name was removed.", Breaks: BreaksWriter},
		{ID: "TYPE_CHANGED", Purpose: "Checks that the type keyword did not change to a set that neither contains nor is contained in the old one.", Breaks: BreaksBoth},
		{ID: "TYPE_WIDENED", Purpose: "Checks that the type keyword did not admit more types (integer to number, a type added, type removed, false schema opened).", Breaks: BreaksWriter},
		{ID: "TYPE_NARROWED", Purpose: "Checks that the type keyword did not admit fewer types (number to integer, a type dropped, type added, schema became false).", Breaks: BreaksReader},
		{ID: "NULLABLE_ADDED", Purpose: "Checks that null was not added to the accepted values (type \"null\" or a {\"type\":\"null\"} branch).", Breaks: BreaksWriter},
		{ID: "NULLABLE_REMOVED", Purpose: "Checks that null was not removed from the accepted values.", Breaks: BreaksReader},
		{ID: "ENUM_ADDED", Purpose: "Checks that no enum keyword was added to an unconstrained value.", Breaks: BreaksReader},
		{ID: "ENUM_REMOVED", Purpose: "Checks that no enum keyword was removed.", Breaks: BreaksWriter},
		{ID: "ENUM_VALUE_ADDED", Purpose: "Checks that no value was added to an enum (or a const became an enum): readers with closed enums reject it.", Breaks: BreaksWriter, Option: "EnumAddedAdditive"},
		{ID: "ENUM_VALUE_REMOVED", Purpose: "Checks that no value was removed from an enum.", Breaks: BreaksReader},
		{ID: "CONST_ADDED", Purpose: "Checks that no const keyword was added.", Breaks: BreaksReader},
		{ID: "CONST_CHANGED", Purpose: "Checks that a const keyword kept its value.", Breaks: BreaksBoth},
		{ID: "CONST_REMOVED", Purpose: "Checks that no const keyword was removed.", Breaks: BreaksWriter},
		{ID: "DISCRIMINATOR_CHANGED", Purpose: "Checks that the const of a property required on both sides (a discriminator such as type or subtype) kept its value.", Breaks: BreaksBoth},
		{ID: "BOUND_TIGHTENED", Purpose: "Checks that no bound (minimum, maximum, exclusive*, minLength, maxLength, minItems, maxItems, minProperties, maxProperties, minContains, maxContains, multipleOf, uniqueItems) was added or tightened.", Breaks: BreaksReader},
		{ID: "BOUND_LOOSENED", Purpose: "Checks that no bound was removed or loosened.", Breaks: BreaksWriter},
		{ID: "BOUND_CHANGED", Purpose: "Checks that multipleOf did not change to a value that is neither a multiple nor a divisor of the old one.", Breaks: BreaksBoth},
		{ID: "PATTERN_ADDED", Purpose: "Checks that no pattern was added.", Breaks: BreaksReader},
		{ID: "PATTERN_CHANGED", Purpose: "Checks that a pattern kept its text (regular expressions are not compared for inclusion).", Breaks: BreaksBoth},
		{ID: "PATTERN_REMOVED", Purpose: "Checks that no pattern was removed.", Breaks: BreaksWriter},
		{ID: "FORMAT_ADDED", Purpose: "Checks that no format was added (conform's validator asserts formats).", Breaks: BreaksReader, Option: "FormatAnnotation"},
		{ID: "FORMAT_CHANGED", Purpose: "Checks that a format kept its name.", Breaks: BreaksBoth, Option: "FormatAnnotation"},
		{ID: "FORMAT_REMOVED", Purpose: "Checks that no format was removed.", Breaks: BreaksWriter, Option: "FormatAnnotation"},
		{ID: "ADDITIONAL_PROPERTIES_OPENED", Purpose: "Checks that additionalProperties did not go from false to absent or true.", Breaks: BreaksWriter},
		{ID: "ADDITIONAL_PROPERTIES_CLOSED", Purpose: "Checks that additionalProperties did not become false.", Breaks: BreaksReader},
		{ID: "ADDITIONAL_PROPERTIES_NARROWED", Purpose: "Checks that additionalProperties did not go from absent or true to a schema.", Breaks: BreaksReader},
		{ID: "ADDITIONAL_PROPERTIES_WIDENED", Purpose: "Checks that additionalProperties did not go from false or a schema to absent or true, or from false to a schema.", Breaks: BreaksWriter},
		{ID: "UNEVALUATED_PROPERTIES_OPENED", Purpose: "Checks that unevaluatedProperties did not go from false or a schema to a wider one.", Breaks: BreaksWriter},
		{ID: "UNEVALUATED_PROPERTIES_CLOSED", Purpose: "Checks that unevaluatedProperties did not go from absent or true to false or a schema, or from a schema to false.", Breaks: BreaksReader},
		{ID: "BRANCH_ADDED", Purpose: "Checks that no anyOf/oneOf branch was added.", Breaks: BreaksWriter},
		{ID: "BRANCH_REMOVED", Purpose: "Checks that no anyOf/oneOf branch was removed.", Breaks: BreaksReader},
		{ID: "COMBINATOR_CHANGED", Purpose: "Checks that a schema kept its combinator (anyOf vs oneOf, or a combinator added or removed).", Breaks: BreaksBoth},
		{ID: "CONJUNCT_ADDED", Purpose: "Checks that no allOf entry (or $ref beside other keywords) was added.", Breaks: BreaksReader},
		{ID: "CONJUNCT_REMOVED", Purpose: "Checks that no allOf entry (or $ref beside other keywords) was removed.", Breaks: BreaksWriter},
		{ID: "CONDITIONAL_ADDED", Purpose: "Checks that no if/then/else was added.", Breaks: BreaksReader},
		{ID: "CONDITIONAL_CHANGED", Purpose: "Checks that the if schema of a conditional kept its meaning.", Breaks: BreaksBoth},
		{ID: "CONDITIONAL_REMOVED", Purpose: "Checks that no if/then/else was removed.", Breaks: BreaksWriter},
		{ID: "REF_RETARGETED", Purpose: "Checks that a $ref pointed at a new target only when the resolved schemas are equal; the differences themselves are reported by the other rules.", Breaks: BreaksNone},
		{ID: "DEFINITION_ADDED", Purpose: "Checks that a $defs entry was added (additive).", Breaks: BreaksNone},
		{ID: "DEFINITION_REMOVED", Purpose: "Checks that no $defs entry that the document itself does not reference was removed: anyone referencing it by pointer (the runner's ReplyBySubtype/<subtype>) breaks; a definition the document referenced is compared where it was used (ADDITIVE here).", Breaks: BreaksBoth},
		{ID: "ONEOF_OVERLAP", Purpose: "Checks that no instance the old oneOf accepted now matches two or more branches of the new oneOf, which rejects it (a branch added or loosened to overlap another); reported only with a witness.", Breaks: BreaksReader},
		{ID: "ACCEPTANCE_NARROWED", Purpose: "Checks that the new schema accepts every instance the old one accepted where no finer rule located a change; reported at the root, only with a witness the validator checked.", Breaks: BreaksReader},
		{ID: "ACCEPTANCE_WIDENED", Purpose: "Checks that the old schema accepts every instance the new one accepts where no finer rule located a change; reported at the root, only with a witness the validator checked.", Breaks: BreaksWriter},
		{ID: "KEYWORD_CHANGED", Purpose: "Checks that an assertion keyword without a finer rule (not, contains, propertyNames, dependentSchemas, unknown keywords) kept its value.", Breaks: BreaksBoth},
	}
}
