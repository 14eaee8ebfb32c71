package main

import (
	"os/exec"
	"strings"
	"testing"
)

// The point of this binary is a fast start: it must not link the JSON
// Schema validator, whose package init compiles every draft's metaschema
// (about 4 ms per process here), nor anything else of the kit beyond the
// reference.
func TestDependsOnlyOnTheReference(t *testing.T) {
	out, err := exec.Command("go", "list", "-deps", ".").Output()
	if err != nil {
		t.Skipf("go list unavailable: %v", err)
	}
	allowed := map[string]bool{
		"github.com/conform-kit/conform/cmd/conform-reference": true,
		"github.com/conform-kit/conform/reference":             true,
		"github.com/conform-kit/conform/internal/canon":        true,
		"github.com/conform-kit/conform/internal/kiterr":       true,
		"github.com/gowebpki/jcs":                              true,
	}
	for _, pkg := range strings.Fields(string(out)) {
		first, _, _ := strings.Cut(pkg, "/")
		if !strings.Contains(first, ".") {
			continue // the standard library
		}
		if !allowed[pkg] {
			t.Errorf("conform-reference depends on %s", pkg)
		}
	}
}
