package result

import (
	"runtime/debug"
)

// ModulePath is the Go module path of the conform kit.
const ModulePath = "github.com/conform-kit/conform"

// Kit identifies a build of the conform kit: what [Merge] compares so that
// shards run by different builds are never combined, and what
// `conform version` prints.
type Kit struct {
	// Version is the module version the binary was built from ("v0.4.0"),
	// or "(devel)" for a build of a work tree (go build, go run).
	Version string `json:"version"`
	// Revision is the VCS revision (a git commit hash) when the build
	// recorded one: go build stamps it when it runs inside the git checkout
	// (-buildvcs, on by default); go run and go test do not.
	Revision string `json:"revision,omitempty"`
	// Modified is true when the work tree had uncommitted changes at build
	// time (vcs.modified).
	Modified bool `json:"modified,omitempty"`
}

// String renders the kit as "v0.4.0", "(devel) 0123abcd...", or with
// "+modified" appended.
func (k Kit) String() string {
	s := k.Version
	if k.Revision != "" {
		s += " " + k.Revision
	}
	if k.Modified {
		s += "+modified"
	}
	return s
}

// BuildKit returns the identity of the running conform build from the
// binary's build information ([debug.ReadBuildInfo]): the conform module's
// version (the main module's, or the dependency's when conform is used as a
// library) and, for the main module, the VCS revision and modified flag.
// A binary without build information gives {Version: "(devel)"}.
func BuildKit() Kit {
	return kitOf(debug.ReadBuildInfo())
}

// kitOf is [BuildKit] over given build information.
func kitOf(bi *debug.BuildInfo, ok bool) Kit {
	k := Kit{Version: "(devel)"}
	if !ok || bi == nil {
		return k
	}
	if bi.Main.Path != ModulePath {
		for _, d := range bi.Deps {
			if d.Path == ModulePath {
				if d.Replace != nil {
					d = d.Replace
				}
				if d.Version != "" {
					k.Version = d.Version
				}
				return k
			}
		}
		return k
	}
	if bi.Main.Version != "" {
		k.Version = bi.Main.Version
	}
	for _, s := range bi.Settings {
		switch s.Key {
		case "vcs.revision":
			k.Revision = s.Value
		case "vcs.modified":
			k.Modified = s.Value == "true"
		}
	}
	return k
}
