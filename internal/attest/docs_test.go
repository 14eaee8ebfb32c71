package attest_test

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/conform-kit/conform/internal/attest"
)

// section returns the text of docs/certification.md under heading (up to
// the next heading of any level).
func section(t *testing.T, heading string) string {
	t.Helper()
	doc, err := os.ReadFile(filepath.Join("..", "..", "docs", "certification.md"))
	if err != nil {
		t.Fatal(err)
	}
	_, rest, ok := strings.Cut(string(doc), "\n"+heading+"\n")
	if !ok {
		t.Fatalf("docs/certification.md has no heading %q", heading)
	}
	if i := regexp.MustCompile(`(?m)^#`).FindStringIndex(rest); i != nil {
		rest = rest[:i[0]]
	}
	return rest
}

// TestCodesDocumented: docs/certification.md "Checking an attestation"
// lists every finding code of Verify, in order, and no other.
func TestCodesDocumented(t *testing.T) {
	t.Parallel()
	var documented []string
	for _, m := range regexp.MustCompile("(?m)^- `([A-Z_]+)`:").FindAllStringSubmatch(section(t, "### Checking an attestation"), -1) {
		documented = append(documented, m[1])
	}
	var codes []string
	for _, c := range attest.Codes {
		codes = append(codes, c.Code)
		if !strings.HasPrefix(c.Purpose, "Checks that ") {
			t.Errorf("%s: purpose %q does not start with \"Checks that \"", c.Code, c.Purpose)
		}
	}
	if diff := cmp.Diff(codes, documented); diff != "" {
		t.Errorf("codes of Verify (-) and of docs/certification.md (+):\n%s", diff)
	}
}

// TestSSHSignature signs a statement with ssh-keygen and checks the
// signature, running the commands of docs/certification.md "Signing with
// ssh-keygen" as written; then the same check of a changed statement must
// fail. Skipped when ssh-keygen is not installed.
func TestSSHSignature(t *testing.T) {
	if _, err := exec.LookPath("ssh-keygen"); err != nil {
		t.Skip("ssh-keygen is not installed: the documented signature is not tried")
	}
	block := section(t, "### Signing with ssh-keygen")
	_, block, ok := strings.Cut(block, "```sh\n")
	block, _, ok2 := strings.Cut(block, "```")
	if !ok || !ok2 {
		t.Fatal(`docs/certification.md "Signing with ssh-keygen" has no sh block`)
	}
	dir := t.TempDir()
	rep, js := sample(t)
	st := statement(t, rep, js, attest.Options{})
	if err := os.WriteFile(filepath.Join(dir, "attestation.json"), st, 0o644); err != nil {
		t.Fatal(err)
	}
	sh := func(script string) (string, error) {
		cmd := exec.Command("sh", "-e", "-c", script)
		cmd.Dir = dir
		var out bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &out
		err := cmd.Run()
		return out.String(), err
	}
	out, err := sh(block)
	if err != nil {
		t.Fatalf("the documented commands failed: %v\n%s", err, out)
	}
	if !strings.Contains(out, `Good "conform-attestation" signature for signer@example.org`) {
		t.Errorf("ssh-keygen -Y verify said %q, want the good-signature line the page shows", out)
	}
	lines := strings.Split(strings.TrimSpace(block), "\n")
	verify := lines[len(lines)-1]
	if !strings.HasPrefix(verify, "ssh-keygen -Y verify ") {
		t.Fatalf("the block's last line %q is not the verification", verify)
	}
	changed := bytes.Replace(st, []byte(`"FAILED"`), []byte(`"PASSED"`), 1)
	if bytes.Equal(changed, st) {
		t.Fatal("the statement has no result to change")
	}
	if err := os.WriteFile(filepath.Join(dir, "attestation.json"), changed, 0o644); err != nil {
		t.Fatal(err)
	}
	if out, err := sh(verify); err == nil {
		t.Errorf("ssh-keygen -Y verify accepted a changed statement: %s", out)
	}
}
