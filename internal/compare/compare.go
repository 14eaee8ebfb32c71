// Package compare compares canonical (RFC 8785) summaries byte for byte and
// renders a human diff when they differ.
package compare

import (
	"bytes"

	"github.com/google/go-cmp/cmp"

	"github.com/conform-kit/conform/internal/canon"
)

// Equal reports whether two canonical byte strings are identical. Canonical
// form makes byte equality the same as JSON value equality (RFC 8785 §1).
func Equal(golden, actual []byte) bool { return bytes.Equal(golden, actual) }

// Diff returns a human-readable go-cmp diff of the two JSON texts, in
// "(-golden +actual)" orientation, or "" when they are equal. The format is
// go-cmp's and unstable by design: show it to people, never store it.
func Diff(golden, actual []byte) string {
	if Equal(golden, actual) {
		return ""
	}
	g, gerr := canon.Parse(golden)
	a, aerr := canon.Parse(actual)
	if gerr != nil || aerr != nil {
		return "-golden " + string(golden) + "\n+actual " + string(actual) + "\n"
	}
	return cmp.Diff(g, a)
}
