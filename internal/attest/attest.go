// Package attest states a run's report in the supply-chain ecosystem's
// format: an in-toto Statement v1 (in-toto/attestation spec/v1/statement.md)
// whose predicate is the in-toto test-result predicate v0.1
// (spec/predicates/test-result.md). [Build] makes the statement from a
// report and the bytes of its JSON form; [Verify] checks that a statement
// matches a report, with findings that have stable codes ([Codes]).
//
// The kit signs nothing: a statement is signed and its signature checked
// with existing tools (cosign, ssh-keygen -Y; docs/certification.md).
//
// What the statement says, field by field:
//
//   - subject: the JSON report the statement attests (its file name and the
//     SHA-256 of its bytes), after the implementation's artifacts when the
//     caller names any ([Options.Artifacts]). The report is the subject, not
//     the IUT's executable: an IUT is often an interpreter running a script
//     (python3, node, npx), whose executable's digest says nothing about
//     what was tested, and a machine's binary cannot be checked by anyone
//     else; the report names the implementation, the suite digest and every
//     result, so one signature over the statement covers all of them, and
//     `cosign verify-blob-attestation` checks the subject against the report
//     file as it checks any blob.
//   - predicate.result: PASSED for a CERTIFIED report, WARNED for one that
//     passed without certifying (PASSED_WITH_EXPECTED_FAILURES,
//     PASSED_PARTIAL), FAILED for every other verdict.
//   - predicate.configuration: resource descriptors, each with an
//     annotation "kind": the suite ("suite": its name, the SHA-256 of its
//     digest, version and role, the classes claimed and those not judged),
//     each class the run judged ("class": its name, specification URL,
//     the digest of its class result, how it was judged and its counts), the
//     implementation as the report names it ("implementation"), and the
//     profile the run used ("profile", when there was one).
//   - predicate.passedTests, warnedTests, failedTests: each vector by its
//     file's path in the suite ("vectors/v1/server/ping.json", a relative
//     URI reference resolved against the suite the configuration names by
//     digest). Failed: a result that fails the run ([result.Result.Failed]);
//     passed: PASS; warned: what neither passed nor failed the run (XFAIL, an
//     informational vector that did not pass). SKIPPED and informational
//     NOT_RUN vectors are in no list: they did not run.
package attest

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/conform-kit/conform/internal/canon"
	"github.com/conform-kit/conform/internal/result"
)

// The type URIs and result values of the in-toto specifications.
const (
	// StatementType is the Statement's "_type" (spec/v1/statement.md).
	StatementType = "https://in-toto.io/Statement/v1"
	// PredicateType is the test-result predicate's type URI
	// (spec/predicates/test-result.md, version 0.1).
	PredicateType = "https://in-toto.io/attestation/test-result/v0.1"

	// The values of TestResult.Result.
	Passed = "PASSED"
	Warned = "WARNED"
	Failed = "FAILED"
)

// The "kind" annotations of the configuration's descriptors.
const (
	KindSuite          = "suite"
	KindClass          = "class"
	KindImplementation = "implementation"
	KindProfile        = "profile"
)

// DigestSet maps a digest algorithm ("sha256") to the lowercase hex
// digest (spec/v1/digest_set.md).
type DigestSet map[string]string

// ResourceDescriptor describes an artifact or resource
// (spec/v1/resource_descriptor.md): at least one of URI, Digest and
// Content is set. Content is base64 in JSON.
type ResourceDescriptor struct {
	Name             string         `json:"name,omitempty"`
	URI              string         `json:"uri,omitempty"`
	Digest           DigestSet      `json:"digest,omitempty"`
	Content          []byte         `json:"content,omitempty"`
	DownloadLocation string         `json:"downloadLocation,omitempty"`
	MediaType        string         `json:"mediaType,omitempty"`
	Annotations      map[string]any `json:"annotations,omitempty"`
}

// Statement is an in-toto Statement v1 with a test-result predicate.
type Statement struct {
	Type          string               `json:"_type"`
	Subject       []ResourceDescriptor `json:"subject"`
	PredicateType string               `json:"predicateType"`
	Predicate     TestResult           `json:"predicate"`
}

// TestResult is the test-result predicate v0.1. The three test lists are
// always present (empty when no test is in one), in report order.
type TestResult struct {
	Result        string               `json:"result"`
	Configuration []ResourceDescriptor `json:"configuration"`
	URL           string               `json:"url,omitempty"`
	PassedTests   []string             `json:"passedTests"`
	WarnedTests   []string             `json:"warnedTests"`
	FailedTests   []string             `json:"failedTests"`
}

// Options are what a statement says beyond the report.
type Options struct {
	// ReportName is the subject name of the JSON report: its file's base
	// name ("report.json"); "" gives "report.json".
	ReportName string
	// Profile is the profile folder as the run was given it
	// ("impl/mcp-python") and ProfileJSON the bytes of its profile.json;
	// "" and nil for a run without a profile.
	Profile     string
	ProfileJSON []byte
	// Artifacts are the implementation's artifacts (each with a digest),
	// put first in the subject.
	Artifacts []ResourceDescriptor
	// URL is the test run's address (a CI run), or "".
	URL string
}

// Build returns the statement of rep, whose JSON form (as written to the
// report file) is reportJSON. Errors: a suite digest that is not
// "sha256:<64 hex digits>", a report that does not encode (neither
// happens to a report the runner made).
func Build(rep *result.Report, reportJSON []byte, opt Options) (*Statement, error) {
	name := opt.ReportName
	if name == "" {
		name = "report.json"
	}
	subject := append(slices.Clone(opt.Artifacts), ResourceDescriptor{
		Name: name, Digest: DigestSet{"sha256": sha256Hex(reportJSON)}, MediaType: "application/json",
	})
	conf, err := configuration(rep, opt)
	if err != nil {
		return nil, err
	}
	passed, warned, failed := tests(rep)
	return &Statement{
		Type: StatementType, Subject: subject, PredicateType: PredicateType,
		Predicate: TestResult{
			Result: Outcome(rep.Verdict), Configuration: conf, URL: opt.URL,
			PassedTests: passed, WarnedTests: warned, FailedTests: failed,
		},
	}, nil
}

// Write writes st as indented JSON and a final newline.
func Write(w io.Writer, st *Statement) error {
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	return enc.Encode(st)
}

// Outcome is the test-result value of a report verdict: PASSED for
// CERTIFIED, WARNED for a pass that certifies nothing
// (PASSED_WITH_EXPECTED_FAILURES, PASSED_PARTIAL), FAILED otherwise.
func Outcome(verdict string) string {
	switch verdict {
	case result.VerdictCertified:
		return Passed
	case result.VerdictExcused, result.VerdictPartial:
		return Warned
	}
	return Failed
}

// configuration is the predicate's configuration of rep: suite, classes,
// implementation, profile.
func configuration(rep *result.Report, opt Options) ([]ResourceDescriptor, error) {
	algo, hexDigest, ok := strings.Cut(rep.Suite.Digest, ":")
	if !ok || algo != "sha256" || len(hexDigest) != 64 {
		return nil, fmt.Errorf("suite digest %q is not sha256:<64 hex digits>", rep.Suite.Digest)
	}
	conf := []ResourceDescriptor{{
		Name: rep.Suite.Name, Digest: DigestSet{"sha256": hexDigest},
		Annotations: map[string]any{"kind": KindSuite, "version": rep.Suite.Version, "role": rep.Suite.Role},
	}}
	if rep.Suite.Title != "" {
		conf[0].Annotations["title"] = rep.Suite.Title
	}
	if rep.Suite.Label != "" {
		conf[0].Annotations["label"] = rep.Suite.Label
	}
	suiteClasses(rep, conf[0].Annotations)
	classes, err := classDescriptors(rep)
	if err != nil {
		return nil, err
	}
	conf = append(conf, classes...)
	impl, err := digestOf(rep.Implementation)
	if err != nil {
		return nil, err
	}
	d := ResourceDescriptor{Name: rep.Implementation.Name, URI: rep.Implementation.Source, Digest: impl,
		Annotations: map[string]any{"kind": KindImplementation}}
	if rep.Implementation.Version != "" {
		d.Annotations["version"] = rep.Implementation.Version
	}
	conf = append(conf, d)
	if opt.Profile != "" {
		conf = append(conf, ResourceDescriptor{Name: opt.Profile, Digest: DigestSet{"sha256": sha256Hex(opt.ProfileJSON)},
			MediaType: "application/json", Annotations: map[string]any{"kind": KindProfile}})
	}
	return conf, nil
}

// tests sorts rep's results into the predicate's three lists.
func tests(rep *result.Report) (passed, warned, failed []string) {
	passed, warned, failed = []string{}, []string{}, []string{}
	for _, r := range rep.Results {
		name := TestName(r)
		switch {
		case r.Failed():
			failed = append(failed, name)
		case r.Status == result.Pass:
			passed = append(passed, name)
		case r.Status == result.Skipped || r.Status == result.NotRun:
		default:
			warned = append(warned, name)
		}
	}
	return passed, warned, failed
}

// TestName is a result's name in the predicate's test lists: its vector
// file's path in the suite, or its id when the result names no file.
func TestName(r result.Result) string {
	if r.Path != "" {
		return r.Path
	}
	return r.ID
}

// digestOf is the SHA-256 of v's canonical JSON (RFC 8785).
func digestOf(v any) (DigestSet, error) {
	b, err := canon.Canonical(v)
	if err != nil {
		return nil, fmt.Errorf("canonical form: %w", err)
	}
	return DigestSet{"sha256": sha256Hex(b)}, nil
}

func sha256Hex(b []byte) string {
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:])
}

// profileOf is the profile folder a report's invocation names (the value
// after "--profile"), or "".
func profileOf(invocation []string) string {
	for i, a := range invocation {
		if a == "--" {
			break
		}
		if a == "--profile" && i+1 < len(invocation) {
			return invocation[i+1]
		}
		if v, ok := strings.CutPrefix(a, "--profile="); ok {
			return v
		}
	}
	return ""
}
