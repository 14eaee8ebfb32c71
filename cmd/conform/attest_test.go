package main

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/conform-kit/conform/internal/attest"
)

func TestProfileArtifact(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		name, json string
		want       []attest.ResourceDescriptor
	}{
		{"none", `{"name": "x", "command": ["x"]}`, nil},
		{"no digest", `{"artifact": {"name": "x.tgz", "uri": "https://example.org/x.tgz"}}`, nil},
		{"not JSON", `{`, nil},
		{"artifact", `{"name": "x", "artifact": {"name": "x.tgz", "uri": "https://example.org/x.tgz", "digest": {"sha256": "ab"}}}`,
			[]attest.ResourceDescriptor{{Name: "x.tgz", URI: "https://example.org/x.tgz", Digest: attest.DigestSet{"sha256": "ab"}}}},
	} {
		if diff := cmp.Diff(tt.want, profileArtifact([]byte(tt.json))); diff != "" {
			t.Errorf("%s (-want +got):\n%s", tt.name, diff)
		}
	}
}

func TestCIRunURL(t *testing.T) {
	t.Setenv("GITHUB_SERVER_URL", "https://github.com/")
	t.Setenv("GITHUB_REPOSITORY", "o/r")
	t.Setenv("GITHUB_RUN_ID", "42")
	if got, want := ciRunURL(), "https://github.com/o/r/actions/runs/42"; got != want {
		t.Errorf("ciRunURL() = %q, want %q", got, want)
	}
	t.Setenv("GITHUB_RUN_ID", "")
	if got := ciRunURL(); got != "" {
		t.Errorf("without GITHUB_RUN_ID: %q, want none", got)
	}
}
