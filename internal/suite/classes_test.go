package suite_test

import (
	"strings"
	"testing"
	"testing/fstest"

	"github.com/google/go-cmp/cmp"

	"github.com/conform-kit/conform/internal/kiterr"
	"github.com/conform-kit/conform/internal/suite"
)

// classesManifest is tinyManifest with the classes member given (a JSON
// array, or "" for none) and a preflight vector "ping".
func classesManifest(classes string) string {
	m := strings.Replace(tinyManifest, `"normalize": [{"path": "**/uuid", "format": "uuid"}]`,
		`"normalize": [{"path": "**/uuid", "format": "uuid"}], "preflight": "ping"`, 1)
	if classes == "" {
		return m
	}
	return strings.Replace(m, `"golden": "golden/v1",`, `"golden": "golden/v1", "classes": `+classes+`,`, 1)
}

const goodClasses = `[
  {"name": "core", "role": "agent", "title": "agent core", "description": "d", "source": "s", "always": true},
  {"name": "extra", "role": "agent", "description": "d", "source": "s", "requires": ["core"],
   "derive": [{"path": "/response/response/extra", "present": true}], "url": "https://example.com/spec#extra"}
]`

// TestClassesLoad: a version's classes are parsed with every member; a
// version without classes has the implicit class "all", always judged.
func TestClassesLoad(t *testing.T) {
	t.Parallel()
	fsys := tinyFS(t)
	fsys["suite.json"] = &fstest.MapFile{Data: []byte(classesManifest(goodClasses))}
	fsys["vectors/v1/agent/ping.json"] = &fstest.MapFile{Data: []byte(strings.Replace(sessionVector, `"id": "ping",`, `"id": "ping", "class": "core",`, 1))}
	seal(t, fsys)
	s := mustLoad(t, fsys)
	ver := &s.Manifest.Versions[0]
	got := ver.RoleClasses("agent")
	if len(got) != 2 || got[1].Name != "extra" || got[1].URL != "https://example.com/spec#extra" || !got[0].Always ||
		len(got[1].Derive) != 1 || !cmp.Equal(got[1].Requires, []string{"core"}) || got[0].Title != "agent core" {
		t.Errorf("classes %+v", got)
	}
	refs, bad, err := s.VectorIndex(ver, "agent")
	if err != nil || len(bad) > 0 {
		t.Fatalf("VectorIndex: %v %v", err, bad)
	}
	if len(refs) != 1 || refs[0].Class != "core" {
		t.Errorf("refs %+v, want ping of class core", refs)
	}

	legacy := mustLoad(t, tinyFS(t))
	lv := &legacy.Manifest.Versions[0]
	if diff := cmp.Diff([]string{suite.ClassAll}, names(lv.RoleClasses("agent"))); diff != "" || !lv.RoleClasses("agent")[0].Always {
		t.Errorf("implicit class (-want +got):\n%s", diff)
	}
	refs, _, _ = legacy.VectorIndex(lv, "agent")
	if len(refs) != 1 || refs[0].Class != suite.ClassAll {
		t.Errorf("legacy refs %+v, want ping of class all", refs)
	}
}

func names(cs []suite.Class) []string {
	var out []string
	for _, c := range cs {
		out = append(out, c.Name)
	}
	return out
}

// TestClassesInvalid: what Load refuses in a version's classes
// (SUITE_INVALID), and what loading refuses in a vector's class
// (VECTOR_CLASS_UNKNOWN).
func TestClassesInvalid(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name, classes string
		fragment      string
	}{
		{"unknown role", `[{"name": "core", "role": "host", "description": "d", "source": "s"}]`, `role "host" is not a role`},
		{"twice", `[{"name": "core", "role": "agent", "description": "d", "source": "s"}, {"name": "core", "role": "agent", "description": "d", "source": "s"}]`, "declared twice"},
		{"requires unknown", `[{"name": "core", "role": "agent", "description": "d", "source": "s", "requires": ["nope"]}]`, `requires "nope"`},
		{"reserved name", `[{"name": "all", "role": "agent", "description": "d", "source": "s"}]`, "classes/0/name"},
		{"no description", `[{"name": "core", "role": "agent", "source": "s"}]`, "description"},
		{"bad derive", `[{"name": "core", "role": "agent", "description": "d", "source": "s", "derive": [{"path": "x"}]}]`, "derive"},
		{"bad url", `[{"name": "core", "role": "agent", "description": "d", "source": "s", "url": "ftp://x"}]`, "url"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			fsys := tinyFS(t)
			fsys["suite.json"] = &fstest.MapFile{Data: []byte(classesManifest(tc.classes))}
			seal(t, fsys)
			_, err := suite.Load(fsys, suite.Options{})
			if kiterr.CodeOf(err) != kiterr.SuiteInvalid || !strings.Contains(err.Error(), tc.fragment) {
				t.Errorf("Load: %v, want SUITE_INVALID with %q", err, tc.fragment)
			}
		})
	}
	for _, tc := range []struct {
		name, classes, member, fragment string
	}{
		{"missing class", goodClasses, "", "no class"},
		{"unknown class", goodClasses, `"class": "nope",`, `class "nope" is not a class`},
		{"class without classes", "", `"class": "core",`, "declares no classes"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			fsys := tinyFS(t)
			fsys["suite.json"] = &fstest.MapFile{Data: []byte(classesManifest(tc.classes))}
			fsys["vectors/v1/agent/ping.json"] = &fstest.MapFile{Data: []byte(strings.Replace(sessionVector, `"id": "ping",`, `"id": "ping", `+tc.member, 1))}
			seal(t, fsys)
			s := mustLoad(t, fsys)
			_, bad, err := s.Vectors(&s.Manifest.Versions[0])
			if err != nil {
				t.Fatal(err)
			}
			if len(bad) != 1 || kiterr.CodeOf(bad[0].Err) != kiterr.VectorClassUnknown || !strings.Contains(bad[0].Err.Error(), tc.fragment) {
				t.Errorf("bad files %v, want one VECTOR_CLASS_UNKNOWN with %q", bad, tc.fragment)
			}
		})
	}
}
