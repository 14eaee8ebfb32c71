package double

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestParseDoubleFlags(t *testing.T) {
	t.Parallel()
	own := []string{"--plan", "p", "--transcript", "t", "--observed", "o", "--argv", "a", "--end", "e", "--max-line", "7"}
	tests := []struct {
		name    string
		args    []string
		host    []string
		wantErr bool
	}{
		{"host argv after --", append(append([]string{}, own...), "--", "--plan", "-v"), []string{"--plan", "-v"}, false},
		{"host argv without --", append(append([]string{}, own...), "--output-format", "stream-json"), []string{"--output-format", "stream-json"}, false},
		{"no host argv", own, nil, false},
		{"flag without value", []string{"--plan"}, nil, true},
		{"bad max-line", []string{"--max-line", "0"}, nil, true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			f, err := parseDoubleFlags(tc.args)
			if (err != nil) != tc.wantErr {
				t.Fatalf("err = %v, want error %v", err, tc.wantErr)
			}
			if err != nil {
				return
			}
			if diff := cmp.Diff(tc.host, f.host); diff != "" {
				t.Errorf("host argv (-want +got):\n%s", diff)
			}
			if f.plan != "p" || f.end != "e" || f.argv != "a" || f.maxLine != 7 {
				t.Errorf("own flags = %+v", f)
			}
		})
	}
}
