package attest

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/conform-kit/conform/internal/canon"
	"github.com/conform-kit/conform/internal/result"
)

// Finding is one way a statement does not match a report: a stable
// [Codes] code and a message that names what differs.
type Finding struct {
	Code    string `json:"code"`
	Message string `json:"message"`
}

// Code is one finding code of [Verify] and the check it stands for.
type Code struct {
	Code    string
	Purpose string
}

// The finding codes of [Verify]. Codes are public API: never renamed.
const (
	NotStatement           = "ATTEST_NOT_STATEMENT"
	SubjectMismatch        = "ATTEST_SUBJECT_MISMATCH"
	ResultMismatch         = "ATTEST_RESULT_MISMATCH"
	SuiteMismatch          = "ATTEST_SUITE_MISMATCH"
	ClassesMismatch        = "ATTEST_CLASSES_MISMATCH"
	ImplementationMismatch = "ATTEST_IMPLEMENTATION_MISMATCH"
	ProfileMismatch        = "ATTEST_PROFILE_MISMATCH"
	TestsMismatch          = "ATTEST_TESTS_MISMATCH"
)

// Codes lists every finding code of [Verify], in the order it checks
// them (docs/certification.md "Checking an attestation" documents each;
// a test holds the two together).
var Codes = []Code{
	{NotStatement, "Checks that the file is one JSON object, an in-toto Statement v1 (_type https://in-toto.io/Statement/v1) with the test-result predicate v0.1 and a result of PASSED, WARNED or FAILED."},
	{SubjectMismatch, "Checks that a subject has the SHA-256 of the report file's bytes: the statement attests this report."},
	{ResultMismatch, "Checks that the predicate's result is the one the report's verdict gives (CERTIFIED: PASSED; PASSED_WITH_EXPECTED_FAILURES, PASSED_PARTIAL: WARNED; any other: FAILED)."},
	{SuiteMismatch, "Checks that the configuration names the report's suite: its name, digest, version and role."},
	{ClassesMismatch, "Checks that the configuration names exactly the classes the report judged, each with the digest of the report's class result."},
	{ImplementationMismatch, "Checks that the configuration describes the report's implementation (name, source, version, and the digest of the report's implementation object)."},
	{ProfileMismatch, "Checks that the configuration names the profile the report's invocation names (--profile), or none when it names none; the profile's digest is not in the report and is not checked."},
	{TestsMismatch, "Checks that passedTests, warnedTests and failedTests list exactly the report's passed, warned and failed vectors."},
}

// Verify checks the statement in data against rep, whose JSON report file
// holds reportJSON, and returns what does not match (none: it matches).
// Unknown fields of the statement are ignored, as in-toto's parsing rules
// say; the statement's url and any subject besides the report (an
// implementation artifact) are not in the report and are not checked.
func Verify(data []byte, rep *result.Report, reportJSON []byte) []Finding {
	var st Statement
	dec := json.NewDecoder(bytes.NewReader(data))
	if err := dec.Decode(&st); err != nil {
		return []Finding{{NotStatement, fmt.Sprintf("not an in-toto statement: %v", err)}}
	}
	if dec.More() {
		return []Finding{{NotStatement, "trailing data after the statement"}}
	}
	switch {
	case st.Type != StatementType:
		return []Finding{{NotStatement, fmt.Sprintf("_type is %q, want %q", st.Type, StatementType)}}
	case st.PredicateType != PredicateType:
		return []Finding{{NotStatement, fmt.Sprintf("predicateType is %q, want %q", st.PredicateType, PredicateType)}}
	case st.Predicate.Result != Passed && st.Predicate.Result != Warned && st.Predicate.Result != Failed:
		return []Finding{{NotStatement, fmt.Sprintf("predicate result is %q, want PASSED, WARNED or FAILED", st.Predicate.Result)}}
	}
	want, err := Build(rep, reportJSON, Options{Profile: profileOf(rep.Invocation)})
	if err != nil {
		return []Finding{{SuiteMismatch, err.Error()}}
	}
	var out []Finding
	out = append(out, checkSubject(st.Subject, want.Subject[len(want.Subject)-1])...)
	if got, w := st.Predicate.Result, want.Predicate.Result; got != w {
		out = append(out, Finding{ResultMismatch, fmt.Sprintf("result is %s; the report's verdict %s gives %s", got, rep.Verdict, w)})
	}
	for _, k := range []struct{ kind, code string }{{KindSuite, SuiteMismatch}, {KindClass, ClassesMismatch}, {KindImplementation, ImplementationMismatch}} {
		out = append(out, checkKind(k.kind, k.code, st.Predicate.Configuration, want.Predicate.Configuration)...)
	}
	out = append(out, checkProfile(st.Predicate.Configuration, profileOf(rep.Invocation))...)
	out = append(out, checkTests("passedTests", st.Predicate.PassedTests, want.Predicate.PassedTests)...)
	out = append(out, checkTests("warnedTests", st.Predicate.WarnedTests, want.Predicate.WarnedTests)...)
	out = append(out, checkTests("failedTests", st.Predicate.FailedTests, want.Predicate.FailedTests)...)
	return out
}

// checkSubject: one subject has the report's digest.
func checkSubject(subject []ResourceDescriptor, report ResourceDescriptor) []Finding {
	var have []string
	for _, s := range subject {
		if s.Digest["sha256"] == report.Digest["sha256"] {
			return nil
		}
		have = append(have, fmt.Sprintf("%s sha256:%s", s.Name, s.Digest["sha256"]))
	}
	return []Finding{{SubjectMismatch, fmt.Sprintf("no subject is the report (sha256:%s); the subjects are: %s", report.Digest["sha256"], orNone(have))}}
}

// checkKind compares the descriptors of one kind, by name, in their
// canonical JSON form.
func checkKind(kind, code string, got, want []ResourceDescriptor) []Finding {
	g, w := ofKind(got, kind), ofKind(want, kind)
	var out []Finding
	for _, name := range sortedKeys(w) {
		gd, ok := g[name]
		if !ok {
			out = append(out, Finding{code, fmt.Sprintf("the configuration has no %s %q, which the report has", kind, name)})
			continue
		}
		gb, _ := canon.Canonical(gd)
		wb, _ := canon.Canonical(w[name])
		if !bytes.Equal(gb, wb) {
			out = append(out, Finding{code, fmt.Sprintf("%s %q is %s; the report gives %s", kind, name, gb, wb)})
		}
	}
	for _, name := range sortedKeys(g) {
		if _, ok := w[name]; !ok {
			out = append(out, Finding{code, fmt.Sprintf("the configuration names %s %q, which the report has not", kind, name)})
		}
	}
	return out
}

// checkProfile: the profile descriptor's name is the report's profile.
func checkProfile(got []ResourceDescriptor, want string) []Finding {
	var names []string
	for name := range ofKind(got, KindProfile) {
		names = append(names, name)
	}
	slices.Sort(names)
	if want == "" && len(names) == 0 || len(names) == 1 && names[0] == want {
		return nil
	}
	if want == "" {
		want = "none"
	}
	return []Finding{{ProfileMismatch, fmt.Sprintf("the configuration names profile %s; the report's invocation names %s", orNone(names), want)}}
}

// checkTests compares one test list as a set.
func checkTests(field string, got, want []string) []Finding {
	missing, extra := setDiff(want, got), setDiff(got, want)
	if len(missing) == 0 && len(extra) == 0 {
		return nil
	}
	var parts []string
	if len(missing) > 0 {
		parts = append(parts, "lacks "+list(missing))
	}
	if len(extra) > 0 {
		parts = append(parts, "has "+list(extra)+", which the report does not put there")
	}
	return []Finding{{TestsMismatch, fmt.Sprintf("%s %s", field, strings.Join(parts, " and "))}}
}

// ofKind indexes the descriptors whose "kind" annotation is kind by name.
func ofKind(ds []ResourceDescriptor, kind string) map[string]ResourceDescriptor {
	out := map[string]ResourceDescriptor{}
	for _, d := range ds {
		if k, _ := d.Annotations["kind"].(string); k == kind {
			out[d.Name] = d
		}
	}
	return out
}

func sortedKeys(m map[string]ResourceDescriptor) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

// setDiff is the items of a that b has not, in a's order.
func setDiff(a, b []string) []string {
	in := map[string]bool{}
	for _, s := range b {
		in[s] = true
	}
	var out []string
	for _, s := range a {
		if !in[s] {
			out = append(out, s)
		}
	}
	return out
}

// list names up to five items and how many more.
func list(items []string) string {
	const most = 5
	if len(items) <= most {
		return strings.Join(items, ", ")
	}
	return fmt.Sprintf("%s and %d more", strings.Join(items[:most], ", "), len(items)-most)
}

func orNone(items []string) string {
	if len(items) == 0 {
		return "none"
	}
	return strings.Join(items, ", ")
}

// Names returns the codes of findings, in order (nil for none).
func Names(fs []Finding) []string {
	var out []string
	for _, f := range fs {
		out = append(out, f.Code)
	}
	return out
}
