package attest_test

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/conform-kit/conform/internal/attest"
	"github.com/conform-kit/conform/internal/result"
)

const suiteHex = "613e018ec1341c681c98ce8d2d35ea650158a3629a0ac3820f623237bf348ce5"

// sample is a report with one result of each kind the lists sort, and its
// JSON form.
func sample(t *testing.T) (*result.Report, []byte) {
	t.Helper()
	fail := []result.Finding{{Code: "GOLDEN_MISMATCH", Status: result.Fail, Message: "differs"}}
	rep := &result.Report{
		Suite:          result.SuiteInfo{Name: "conform MCP suite", Version: 1, Role: "server", Digest: "sha256:" + suiteHex},
		Implementation: result.Implementation{Name: "tiny", Command: []string{"python3", "tiny.py"}, Version: "0.4", Source: "https://example.org/tiny"},
		Invocation:     []string{"run", "--role", "server", "--version", "1", "--profile", "impl/tiny"},
		Claims:         []string{"core"},
		Classes: []result.ClassResult{
			{Name: "core", URL: "https://modelcontextprotocol.io/specification/2025-11-25/basic/lifecycle", Judged: true, How: result.HowClaimed},
			{Name: "tools", Judged: true, How: result.HowDerived},
			{Name: "prompts", How: result.HowNotClaimed},
		},
		Results: []result.Result{
			{ID: "ping", Class: "core", Level: "required", Status: result.Pass, Path: "vectors/v1/server/ping.json"},
			{ID: "tools-list", Class: "tools", Level: "required", Status: result.Fail, Path: "vectors/v1/server/tools-list.json", Findings: fail},
			{ID: "tools-call", Class: "tools", Level: "recommended", Status: result.XFail, Path: "vectors/v1/server/tools-call.json", Findings: fail, Reason: "known"},
			{ID: "log-level", Class: "core", Level: "informational", Status: result.Fail, Path: "vectors/v1/server/log-level.json", Findings: fail},
			{ID: "prompts-list", Class: "prompts", Level: "required", Status: result.Skipped, Path: "vectors/v1/server/prompts-list.json",
				Findings: []result.Finding{{Code: result.FindingClassNotClaimed, Message: "not run"}}},
			{ID: "slow", Class: "core", Level: "required", Status: result.NotRun, Path: "vectors/v1/server/slow.json"},
			{ID: "hint", Class: "core", Level: "informational", Status: result.NotRun, Path: "vectors/v1/server/hint.json"},
			{ID: "no-path", Class: "core", Level: "required", Status: result.Pass},
		},
	}
	rep.Recount()
	js, err := json.Marshal(rep)
	if err != nil {
		t.Fatal(err)
	}
	return rep, js
}

func statement(t *testing.T, rep *result.Report, js []byte, opt attest.Options) []byte {
	t.Helper()
	st, err := attest.Build(rep, js, opt)
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	if err := attest.Write(&b, st); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

func TestBuild(t *testing.T) {
	t.Parallel()
	rep, js := sample(t)
	data := statement(t, rep, js, attest.Options{ReportName: "tiny.json", Profile: "impl/tiny", ProfileJSON: []byte(`{"name":"tiny"}`), URL: "https://ci.example/run/1"})
	// The field names of the in-toto specifications, read back as plain
	// JSON (not through this package's types).
	var got map[string]any
	if err := json.Unmarshal(data, &got); err != nil {
		t.Fatal(err)
	}
	if got["_type"] != "https://in-toto.io/Statement/v1" || got["predicateType"] != "https://in-toto.io/attestation/test-result/v0.1" {
		t.Errorf("_type %v, predicateType %v", got["_type"], got["predicateType"])
	}
	sum := sha256.Sum256(js)
	wantSubject := []any{map[string]any{"name": "tiny.json", "digest": map[string]any{"sha256": hex.EncodeToString(sum[:])}, "mediaType": "application/json"}}
	if diff := cmp.Diff(wantSubject, got["subject"]); diff != "" {
		t.Errorf("subject (-want +got):\n%s", diff)
	}
	pred := got["predicate"].(map[string]any)
	want := map[string]any{
		"result":      "FAILED",
		"url":         "https://ci.example/run/1",
		"passedTests": []any{"vectors/v1/server/ping.json", "no-path"},
		"warnedTests": []any{"vectors/v1/server/tools-call.json", "vectors/v1/server/log-level.json"},
		"failedTests": []any{"vectors/v1/server/tools-list.json", "vectors/v1/server/slow.json"},
	}
	for k, w := range want {
		if diff := cmp.Diff(w, pred[k]); diff != "" {
			t.Errorf("predicate %s (-want +got):\n%s", k, diff)
		}
	}
	conf := pred["configuration"].([]any)
	kinds := map[string]map[string]any{}
	for _, c := range conf {
		d := c.(map[string]any)
		kinds[d["annotations"].(map[string]any)["kind"].(string)] = d
	}
	if s := kinds["suite"]; s["name"] != "conform MCP suite" || s["digest"].(map[string]any)["sha256"] != suiteHex ||
		s["annotations"].(map[string]any)["role"] != "server" || s["annotations"].(map[string]any)["version"] != 1.0 {
		t.Errorf("suite descriptor %v", s)
	}
	if im := kinds["implementation"]; im["name"] != "tiny" || im["uri"] != "https://example.org/tiny" || im["annotations"].(map[string]any)["version"] != "0.4" {
		t.Errorf("implementation descriptor %v", im)
	}
	if s := kinds["suite"]["annotations"].(map[string]any); !cmp.Equal(s["claims"], []any{"core"}) || !cmp.Equal(s["notJudged"], []any{"prompts"}) {
		t.Errorf("suite annotations %v: want claims [core], notJudged [prompts]", s)
	}
	var classes []string
	for _, c := range conf {
		d := c.(map[string]any)
		if d["annotations"].(map[string]any)["kind"] == "class" {
			classes = append(classes, d["name"].(string))
		}
	}
	if diff := cmp.Diff([]string{"core", "tools"}, classes); diff != "" {
		t.Errorf("class descriptors (-want +got):\n%s", diff)
	}
	core := kinds["class"] // the last class descriptor: tools
	if core["name"] != "tools" || core["annotations"].(map[string]any)["how"] != "derived" || core["annotations"].(map[string]any)["failed"] != 1.0 {
		t.Errorf("tools class descriptor %v", core)
	}
	psum := sha256.Sum256([]byte(`{"name":"tiny"}`))
	if p := kinds["profile"]; p["name"] != "impl/tiny" || p["digest"].(map[string]any)["sha256"] != hex.EncodeToString(psum[:]) {
		t.Errorf("profile descriptor %v", p)
	}
	if !bytes.HasSuffix(data, []byte("}\n")) {
		t.Error("the statement does not end with a newline")
	}
}

func TestOutcome(t *testing.T) {
	t.Parallel()
	for verdict, want := range map[string]string{
		result.VerdictCertified: "PASSED", result.VerdictExcused: "WARNED", result.VerdictPartial: "WARNED",
		result.VerdictNotCertified: "FAILED", result.VerdictNothingPassed: "FAILED", result.VerdictInvalidInput: "FAILED",
		result.VerdictInterrupted: "FAILED", "": "FAILED",
	} {
		if got := attest.Outcome(verdict); got != want {
			t.Errorf("Outcome(%q) = %s, want %s", verdict, got, want)
		}
	}
}

func TestBuildRefusesBadSuiteDigest(t *testing.T) {
	t.Parallel()
	rep, js := sample(t)
	rep.Suite.Digest = "md5:abc"
	if _, err := attest.Build(rep, js, attest.Options{}); err == nil {
		t.Fatal("Build accepted a suite digest that is not sha256")
	}
}

func TestVerify(t *testing.T) {
	t.Parallel()
	rep, js := sample(t)
	good := statement(t, rep, js, attest.Options{ReportName: "tiny.json", Profile: "impl/tiny", ProfileJSON: []byte("{}")})
	if fs := attest.Verify(good, rep, js); len(fs) != 0 {
		t.Fatalf("a statement of the report: findings %v, want none", fs)
	}
	// Each edit of the statement (as JSON text) or of the report breaks
	// one check.
	tests := []struct {
		name      string
		statement func(map[string]any)
		report    func(*result.Report)
		raw       string
		want      []string
	}{
		{name: "not JSON", raw: "{", want: []string{attest.NotStatement}},
		{name: "two values", raw: string(good) + "{}", want: []string{attest.NotStatement}},
		{name: "statement v0.1", statement: func(m map[string]any) { m["_type"] = "https://in-toto.io/Statement/v0.1" }, want: []string{attest.NotStatement}},
		{name: "other predicate", statement: func(m map[string]any) { m["predicateType"] = "https://slsa.dev/provenance/v1" }, want: []string{attest.NotStatement}},
		{name: "result word", statement: func(m map[string]any) { pred(m)["result"] = "OK" }, want: []string{attest.NotStatement}},
		{name: "another report", report: func(r *result.Report) { r.Results[0].DurationMS = 7 }, want: []string{attest.SubjectMismatch}},
		{name: "result", statement: func(m map[string]any) { pred(m)["result"] = "PASSED" }, want: []string{attest.ResultMismatch}},
		{name: "suite digest", statement: func(m map[string]any) { conf(m, "suite")["digest"] = map[string]any{"sha256": strings.Repeat("0", 64)} }, want: []string{attest.SuiteMismatch}},
		{name: "suite role", statement: func(m map[string]any) { conf(m, "suite")["annotations"].(map[string]any)["role"] = "client" }, want: []string{attest.SuiteMismatch}},
		{name: "class added", statement: func(m map[string]any) {
			p := pred(m)
			p["configuration"] = append(p["configuration"].([]any), map[string]any{"name": "tools", "digest": map[string]any{"sha256": "00"}, "annotations": map[string]any{"kind": "class"}})
		}, want: []string{attest.ClassesMismatch}},
		{name: "class dropped", statement: func(m map[string]any) {
			p := pred(m)
			var keep []any
			for _, c := range p["configuration"].([]any) {
				if c.(map[string]any)["name"] != "tools" {
					keep = append(keep, c)
				}
			}
			p["configuration"] = keep
		}, want: []string{attest.ClassesMismatch}},
		{name: "class counts", statement: func(m map[string]any) { conf(m, "class")["annotations"].(map[string]any)["failed"] = 5 }, want: []string{attest.ClassesMismatch}},
		{name: "not-judged classes hidden", statement: func(m map[string]any) { delete(conf(m, "suite")["annotations"].(map[string]any), "notJudged") }, want: []string{attest.SuiteMismatch}},
		{name: "implementation", statement: func(m map[string]any) { conf(m, "implementation")["name"] = "other" }, want: []string{attest.ImplementationMismatch, attest.ImplementationMismatch}},
		{name: "implementation version", statement: func(m map[string]any) { conf(m, "implementation")["annotations"].(map[string]any)["version"] = "9" }, want: []string{attest.ImplementationMismatch}},
		{name: "profile", statement: func(m map[string]any) { conf(m, "profile")["name"] = "impl/other" }, want: []string{attest.ProfileMismatch}},
		{name: "failure moved to passed", statement: func(m map[string]any) {
			p := pred(m)
			p["passedTests"] = append(p["passedTests"].([]any), "vectors/v1/server/tools-list.json")
			p["failedTests"] = []any{"vectors/v1/server/slow.json"}
		}, want: []string{attest.TestsMismatch, attest.TestsMismatch}},
		{name: "unknown fields are ignored", statement: func(m map[string]any) { m["extra"] = 1; pred(m)["extra"] = true }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			rep, js := sample(t)
			data := []byte(tt.raw)
			if tt.raw == "" {
				var m map[string]any
				if err := json.Unmarshal(good, &m); err != nil {
					t.Fatal(err)
				}
				if tt.statement != nil {
					tt.statement(m)
				}
				var err error
				if data, err = json.Marshal(m); err != nil {
					t.Fatal(err)
				}
			}
			if tt.report != nil {
				tt.report(rep)
				var err error
				if js, err = json.Marshal(rep); err != nil {
					t.Fatal(err)
				}
			}
			got := attest.Verify(data, rep, js)
			if diff := cmp.Diff(tt.want, attest.Names(got)); diff != "" {
				t.Errorf("finding codes (-want +got):\n%s\nfindings: %v", diff, got)
			}
		})
	}
}

func TestVerifyWithoutProfile(t *testing.T) {
	t.Parallel()
	rep, js := sample(t)
	rep.Invocation = []string{"run", "--role", "server", "--version", "1", "--", "python3", "tiny.py"}
	if js2, err := json.Marshal(rep); err == nil {
		js = js2
	}
	if fs := attest.Verify(statement(t, rep, js, attest.Options{}), rep, js); len(fs) != 0 {
		t.Errorf("no profile on either side: %v", fs)
	}
	withProfile := statement(t, rep, js, attest.Options{Profile: "impl/tiny"})
	if diff := cmp.Diff([]string{attest.ProfileMismatch}, attest.Names(attest.Verify(withProfile, rep, js))); diff != "" {
		t.Errorf("a profile the report does not name (-want +got):\n%s", diff)
	}
}

func pred(m map[string]any) map[string]any { return m["predicate"].(map[string]any) }

// conf is the configuration descriptor of kind.
func conf(m map[string]any, kind string) map[string]any {
	for _, c := range pred(m)["configuration"].([]any) {
		d := c.(map[string]any)
		if d["annotations"].(map[string]any)["kind"] == kind {
			return d
		}
	}
	panic("no descriptor of kind " + kind)
}

func TestArtifactSubject(t *testing.T) {
	t.Parallel()
	rep, js := sample(t)
	art := attest.ResourceDescriptor{Name: "tiny-0.4.tgz", URI: "https://example.org/tiny-0.4.tgz", Digest: attest.DigestSet{"sha512": strings.Repeat("ab", 64)}}
	st, err := attest.Build(rep, js, attest.Options{Artifacts: []attest.ResourceDescriptor{art}, Profile: "impl/tiny"})
	if err != nil {
		t.Fatal(err)
	}
	if len(st.Subject) != 2 || st.Subject[0].Name != "tiny-0.4.tgz" || st.Subject[1].Name != "report.json" {
		t.Fatalf("subject %+v: want the artifact, then the report", st.Subject)
	}
	var b bytes.Buffer
	if err := attest.Write(&b, st); err != nil {
		t.Fatal(err)
	}
	if fs := attest.Verify(b.Bytes(), rep, js); len(fs) != 0 {
		t.Errorf("an artifact besides the report: findings %v, want none", fs)
	}
}
