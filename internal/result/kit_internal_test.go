package result

import (
	"runtime/debug"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestKitOf(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		bi   *debug.BuildInfo
		ok   bool
		want Kit
	}{
		{"no build info", nil, false, Kit{Version: "(devel)"}},
		{"go run", &debug.BuildInfo{Main: debug.Module{Path: ModulePath, Version: "(devel)"}}, true, Kit{Version: "(devel)"}},
		{"go build in a clone", &debug.BuildInfo{
			Main:     debug.Module{Path: ModulePath, Version: "v0.0.0-20261130120000-0123456789ab+dirty"},
			Settings: []debug.BuildSetting{{Key: "vcs.revision", Value: "0123456789abcdef"}, {Key: "vcs.modified", Value: "true"}},
		}, true, Kit{Version: "v0.0.0-20261130120000-0123456789ab+dirty", Revision: "0123456789abcdef", Modified: true}},
		{"a release", &debug.BuildInfo{Main: debug.Module{Path: ModulePath, Version: "v1.2.0"},
			Settings: []debug.BuildSetting{{Key: "vcs.modified", Value: "false"}}}, true, Kit{Version: "v1.2.0"}},
		{"a library of another program", &debug.BuildInfo{Main: debug.Module{Path: "example.com/tool", Version: "v3.0.0"},
			Deps:     []*debug.Module{{Path: "golang.org/x/text", Version: "v0.44.0"}, {Path: ModulePath, Version: "v1.1.0"}},
			Settings: []debug.BuildSetting{{Key: "vcs.revision", Value: "ffff"}}}, true, Kit{Version: "v1.1.0"}},
		{"a replaced library", &debug.BuildInfo{Main: debug.Module{Path: "example.com/tool"},
			Deps: []*debug.Module{{Path: ModulePath, Version: "v1.1.0", Replace: &debug.Module{Path: "../conform", Version: ""}}}}, true, Kit{Version: "(devel)"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			if diff := cmp.Diff(tc.want, kitOf(tc.bi, tc.ok)); diff != "" {
				t.Errorf("kitOf mismatch (-want +got):\n%s", diff)
			}
		})
	}
	if got := (Kit{Version: "(devel)", Revision: "abc", Modified: true}).String(); got != "(devel) abc+modified" {
		t.Errorf("String() = %q", got)
	}
}
