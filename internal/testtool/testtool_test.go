package testtool

import (
	"strings"
	"testing"
)

func TestUsable(t *testing.T) {
	if err := Usable("go"); err != nil {
		t.Errorf("go runs this test, want it usable: %v", err)
	}
	err := Usable("conform-no-such-tool")
	if err == nil || !strings.Contains(err.Error(), "not on PATH") {
		t.Errorf("a missing tool: %v, want \"not on PATH\"", err)
	}
}

// fakeTB records what Need does with a test.
type fakeTB struct {
	testing.TB
	skipped, failed string
}

func (f *fakeTB) Helper() {}
func (f *fakeTB) Skipf(format string, args ...any) {
	f.skipped = format
}
func (f *fakeTB) Fatalf(format string, args ...any) {
	f.failed = format
}

func TestNeedSkipsOrFails(t *testing.T) {
	t.Setenv(RequireEnv, "")
	f := &fakeTB{}
	Need(f, "conform-no-such-tool")
	if f.skipped == "" || f.failed != "" {
		t.Errorf("without %s: skipped %q failed %q, want a skip", RequireEnv, f.skipped, f.failed)
	}
	t.Setenv(RequireEnv, "1")
	f = &fakeTB{}
	Need(f, "conform-no-such-tool")
	if f.failed == "" || f.skipped != "" {
		t.Errorf("with %s=1: skipped %q failed %q, want a failure", RequireEnv, f.skipped, f.failed)
	}
	f = &fakeTB{}
	Need(f, "go")
	if f.failed != "" || f.skipped != "" {
		t.Errorf("go is usable: skipped %q failed %q", f.skipped, f.failed)
	}
}

func TestLong(t *testing.T) {
	t.Setenv(DeepEnv, "")
	f := &fakeTB{}
	Long(f, "x")
	if !strings.HasPrefix(f.skipped, "long scenario") {
		t.Errorf("%s unset: skipped %q, want a long scenario skip", DeepEnv, f.skipped)
	}
	t.Setenv(DeepEnv, "1")
	f = &fakeTB{}
	Long(f, "x")
	if f.skipped != "" || f.failed != "" {
		t.Errorf("%s=1: skipped %q failed %q, want the test to run", DeepEnv, f.skipped, f.failed)
	}
}
