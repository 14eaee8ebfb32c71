package suggest

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestClosest(t *testing.T) {
	t.Parallel()
	ids := []string{"host-side-question-accept", "host-side-question-default-decline", "host-hook-unknown", "initialize-minimal", "interrupt-idle", "set-model"}
	for _, tc := range []struct {
		word string
		want []string
	}{
		{"initialise-minimal", []string{"initialize-minimal"}},
		{"Interupt-idle", []string{"interrupt-idle"}},
		{"host-sde-*", []string{"host-side-question-accept", "host-side-question-default-decline"}},
		{"set-modle", []string{"set-model"}},
		{"set-model", nil}, // an exact match is not a suggestion
		{"completely-different", nil},
		{"*", nil},
		{"{a,b}", nil},
	} {
		if diff := cmp.Diff(tc.want, Closest(tc.word, ids)); diff != "" {
			t.Errorf("Closest(%q) (-want +got):\n%s", tc.word, diff)
		}
	}
}

func TestPhrase(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		word  string
		names []string
		want  string
	}{
		{"pyton", []string{"python", "rust"}, ` (did you mean "python"?)`},
		{"ab", []string{"ab1", "ab2", "ab3", "ab4"}, ` (did you mean "ab1", "ab2" or "ab3"?)`},
		{"zzz", []string{"python"}, ""},
	} {
		if got := Phrase(tc.word, tc.names); got != tc.want {
			t.Errorf("Phrase(%q) = %q, want %q", tc.word, got, tc.want)
		}
	}
}

func TestDistance(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		a, b string
		want int
	}{
		{"", "", 0}, {"abc", "", 3}, {"kitten", "sitting", 3}, {"héllo", "hello", 1}, {"ab", "ba", 1}, {"clena", "clean", 1}, {"ca", "abc", 3},
	} {
		if got := distance(tc.a, tc.b); got != tc.want {
			t.Errorf("distance(%q, %q) = %d, want %d", tc.a, tc.b, got, tc.want)
		}
	}
}
