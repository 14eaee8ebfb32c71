// Package kiterrtest holds test assertions about kit errors.
package kiterrtest

import (
	"strings"
	"testing"

	"github.com/conform-kit/conform/internal/kiterr"
)

// WantCode fails t unless err is non-nil, carries the stable code, and its
// text contains every fragment.
func WantCode(t testing.TB, err error, code kiterr.Code, fragments ...string) {
	t.Helper()
	if err == nil {
		t.Fatalf("error = nil, want %s", code)
	}
	if got := kiterr.CodeOf(err); got != code {
		t.Fatalf("CodeOf(%v) = %q, want %q", err, got, code)
	}
	for _, f := range fragments {
		if !strings.Contains(err.Error(), f) {
			t.Errorf("error %q does not contain %q", err, f)
		}
	}
}
