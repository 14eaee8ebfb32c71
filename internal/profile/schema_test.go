package profile_test

import (
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	conform "github.com/conform-kit/conform"
	"github.com/conform-kit/conform/internal/canon"
	"github.com/conform-kit/conform/internal/profile"
	"github.com/conform-kit/conform/internal/schema"
)

// TestSchemaMembers: schemas/profile.schema.json documents exactly the
// members Load reads (the JSON names of Profile's fields), so the schema,
// the loader and the docs that point at the schema cannot drift apart.
func TestSchemaMembers(t *testing.T) {
	t.Parallel()
	data, err := fs.ReadFile(conform.Suite(), profile.SchemaFile)
	if err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Properties map[string]json.RawMessage `json:"properties"`
		Required   []string                   `json:"required"`
	}
	if err := json.Unmarshal(data, &doc); err != nil {
		t.Fatal(err)
	}
	var inSchema []string
	for k := range doc.Properties {
		inSchema = append(inSchema, k)
	}
	var inGo []string
	typ := reflect.TypeFor[profile.Profile]()
	for i := range typ.NumField() {
		name, _, _ := strings.Cut(typ.Field(i).Tag.Get("json"), ",")
		if name != "" && name != "-" {
			inGo = append(inGo, name)
		}
	}
	slices.Sort(inSchema)
	slices.Sort(inGo)
	if diff := cmp.Diff(inGo, inSchema); diff != "" {
		t.Errorf("profile members (-profile.Profile +%s):\n%s", profile.SchemaFile, diff)
	}
	if diff := cmp.Diff([]string{"name", "command"}, doc.Required); diff != "" {
		t.Errorf("required members (-Load +schema):\n%s", diff)
	}
}

// TestProfilesValidate: every profile in the repository (impl/*/) follows
// the schema and loads.
func TestProfilesValidate(t *testing.T) {
	t.Parallel()
	sch, err := schema.NewSet(conform.Suite()).Compile(profile.SchemaFile)
	if err != nil {
		t.Fatal(err)
	}
	files, err := filepath.Glob(filepath.Join("..", "..", "impl", "*", profile.File))
	if err != nil {
		t.Fatal(err)
	}
	if len(files) < 5 {
		t.Fatalf("found %d profiles under impl/, want the repository's", len(files))
	}
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		v, err := canon.Parse(data)
		if err != nil {
			t.Errorf("%s: %v", f, err)
			continue
		}
		if viol := sch.Validate(v); len(viol) > 0 {
			t.Errorf("%s does not follow %s: %v", f, profile.SchemaFile, viol)
		}
		p, err := profile.Load(filepath.Dir(f))
		if err != nil {
			t.Errorf("%s: %v", f, err)
			continue
		}
		// Issue 30 item 4: every committed profile says which release of
		// what it is, and where its source and issue tracker are.
		for _, w := range p.Warnings() {
			t.Errorf("%s: %s: %s", f, w.Code, w.Message)
		}
	}
}

// TestWarnings: one PROFILE_METADATA_MISSING per missing member, in the
// order version, language, source, issues; homepage is never asked for.
func TestWarnings(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name string
		p    profile.Profile
		want []string
	}{
		{"none", profile.Profile{}, []string{"version", "language", "source", "issues"}},
		{"half", profile.Profile{Version: "1.0", Source: "https://example.org/x"}, []string{"language", "issues"}},
		{"all", profile.Profile{Version: "1.0", Language: "Go", Source: "https://example.org/x", Issues: "https://example.org/x/issues"}, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			var got []string
			for _, w := range tc.p.Warnings() {
				if w.Code != profile.MetadataMissing {
					t.Errorf("code %q, want %q", w.Code, profile.MetadataMissing)
				}
				if !strings.Contains(w.Message, strconv.Quote(w.Member)) {
					t.Errorf("message %q does not name %q", w.Message, w.Member)
				}
				got = append(got, w.Member)
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("missing members (-want +got):\n%s", diff)
			}
		})
	}
}

// TestArtifactsMatchLockFiles: a committed profile's artifact digest is the
// one its lock file records for that package (Cargo.lock's checksum, the
// sha512 integrity of package-lock.json), so an attestation's subject is
// the file the install script installs. Every profile with such a lock
// file and a pinned registry package names its artifact.
func TestArtifactsMatchLockFiles(t *testing.T) {
	t.Parallel()
	files, err := filepath.Glob(filepath.Join("..", "..", "impl", "*", profile.File))
	if err != nil {
		t.Fatal(err)
	}
	checked := 0
	for _, f := range files {
		p, err := profile.Load(filepath.Dir(f))
		if err != nil {
			t.Fatal(err)
		}
		if p.Artifact == nil {
			continue
		}
		var want map[string]string
		switch {
		case strings.HasSuffix(p.Artifact.Name, ".crate"):
			want = crateDigest(t, filepath.Join(p.Dir, "Cargo.lock"), strings.TrimSuffix(p.Artifact.Name, ".crate"))
		default:
			want = npmDigest(t, filepath.Join(p.Dir, "package-lock.json"), p.Artifact.Name)
		}
		if diff := cmp.Diff(want, p.Artifact.Digest); diff != "" {
			t.Errorf("%s: artifact %s digest (-lock file +profile):\n%s", f, p.Artifact.Name, diff)
		}
		checked++
	}
	if checked < 8 {
		t.Errorf("checked %d artifacts, want the 8 committed profiles that pin a crate or an npm package", checked)
	}
}

// crateDigest returns the sha256 Cargo.lock records for the package
// "name-version" (nameVersion).
func crateDigest(t *testing.T, lock, nameVersion string) map[string]string {
	t.Helper()
	data, err := os.ReadFile(lock)
	if err != nil {
		t.Fatal(err)
	}
	for _, pkg := range strings.Split(string(data), "[[package]]") {
		var name, version, sum string
		for _, l := range strings.Split(pkg, "\n") {
			k, v, ok := strings.Cut(l, " = ")
			if !ok {
				continue
			}
			v = strings.Trim(v, `"`)
			switch k {
			case "name":
				name = v
			case "version":
				version = v
			case "checksum":
				sum = v
			}
		}
		if name+"-"+version == nameVersion {
			return map[string]string{"sha256": sum}
		}
	}
	t.Fatalf("%s has no package %s", lock, nameVersion)
	return nil
}

// npmDigest returns the sha512 (hex) package-lock.json records for the
// package "name@version" (nameVersion; the name may have a scope).
func npmDigest(t *testing.T, lock, nameVersion string) map[string]string {
	t.Helper()
	at := strings.LastIndex(nameVersion, "@")
	if at <= 0 {
		t.Fatalf("artifact %q is neither name.crate nor an npm name@version", nameVersion)
	}
	name, version := nameVersion[:at], nameVersion[at+1:]
	data, err := os.ReadFile(lock)
	if err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Packages map[string]struct {
			Version   string `json:"version"`
			Integrity string `json:"integrity"`
		} `json:"packages"`
	}
	if err := json.Unmarshal(data, &doc); err != nil {
		t.Fatal(err)
	}
	e, ok := doc.Packages["node_modules/"+name]
	if !ok || e.Version != version {
		t.Fatalf("%s has no %s at %s (found %q)", lock, name, version, e.Version)
	}
	alg, b64, _ := strings.Cut(e.Integrity, "-")
	raw, err := base64.StdEncoding.DecodeString(b64)
	if err != nil || alg != "sha512" {
		t.Fatalf("%s: %s integrity %q is not sha512 base64", lock, name, e.Integrity)
	}
	return map[string]string{"sha512": hex.EncodeToString(raw)}
}
