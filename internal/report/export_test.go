package report

// Unexported helpers under test in package report_test.
var (
	MDCell = mdCell
)
