package report

// Unexported helpers under test in package report_test.
var (
	EscapeData     = escapeData
	EscapeProperty = escapeProperty
	MDCell         = mdCell
)
