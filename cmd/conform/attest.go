package main

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"github.com/conform-kit/conform/internal/input"
	"github.com/conform-kit/conform/internal/profile"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/conform-kit/conform/internal/attest"
	"github.com/conform-kit/conform/internal/kiterr"
	"github.com/conform-kit/conform/internal/report"
	"github.com/conform-kit/conform/runner"
)

const attestUsage = `usage: conform attest verify ATTESTATION.json REPORT.json

commands:
  verify  check that an in-toto attestation (conform run --attest) matches a JSON report:
          the report is its subject (SHA-256 of the file's bytes), and its result, suite,
          classes, implementation, profile and test lists are the report's

Exit status: 0 the attestation matches the report; 1 findings (each with its code:
ATTEST_NOT_STATEMENT, ATTEST_SUBJECT_MISMATCH, ATTEST_RESULT_MISMATCH,
ATTEST_SUITE_MISMATCH, ATTEST_CLASSES_MISMATCH, ATTEST_IMPLEMENTATION_MISMATCH,
ATTEST_PROFILE_MISMATCH, ATTEST_TESTS_MISMATCH); 2 a usage error, a file that
cannot be read (PATH_NOT_FOUND) or a report that is not one (REPORT_INVALID).
It checks what the attestation says, not who signed it: check the signature
with the tool that made it (docs/certification.md "Attestation").
`

// cmdAttest is `conform attest verify FILE REPORT.json` ([attest.Verify]).
func cmdAttest(args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 {
		fmt.Fprint(stderr, attestUsage)
		return exitUsage
	}
	switch args[0] {
	case "verify":
	case "-h", "--help", "help":
		fmt.Fprint(stdout, attestUsage)
		return exitPass
	default:
		return usageError(stderr, "attest", "unknown command %q (verify)", args[0])
	}
	fl := flag.NewFlagSet("attest verify", flag.ContinueOnError)
	if code, ok := parseFlags(fl, args[1:], stdout, stderr); !ok {
		return code
	}
	if fl.NArg() != 2 {
		return usageError(stderr, "attest verify", "give the attestation and the JSON report it attests (conform attest verify ATTESTATION.json REPORT.json)")
	}
	findings, rep, err := verifyAttestation(fl.Arg(0), fl.Arg(1))
	if err != nil {
		return fail(stderr, err)
	}
	for _, f := range findings {
		fmt.Fprintf(stdout, "%s: %s\n", f.Code, f.Message)
	}
	if len(findings) > 0 {
		fmt.Fprintf(stdout, "%s does not match %s: %d finding(s)\n", fl.Arg(0), fl.Arg(1), len(findings))
		return exitFail
	}
	fmt.Fprintf(stdout, "%s matches %s: %s, %s (%s v%d %s)\n", fl.Arg(0), fl.Arg(1),
		attest.Outcome(rep.Verdict), rep.Verdict, rep.Suite.Name, rep.Suite.Version, rep.Suite.Role)
	return exitPass
}

// verifyAttestation reads the attestation and the report, checks the
// report ([runner.ReadReport], against the report schema this binary
// embeds) and returns what [attest.Verify] finds. Both are kit inputs
// ([input.ReadFile]). Errors: PATH_NOT_FOUND, INPUT_NOT_REGULAR,
// INPUT_TOO_LARGE, REPORT_INVALID.
func verifyAttestation(statementPath, reportPath string) ([]attest.Finding, *runner.Report, error) {
	st, err := input.ReadFile(statementPath, input.MaxReport, "attestation")
	if err != nil {
		return nil, nil, err
	}
	data, err := input.ReadFile(reportPath, input.MaxReport, "report")
	if err != nil {
		return nil, nil, err
	}
	s, err := openSuite("", false)
	if err != nil {
		return nil, nil, err
	}
	rep, err := runner.ReadReport(s, data)
	if err != nil {
		return nil, nil, fmt.Errorf("report %s: %w", reportPath, err)
	}
	return attest.Verify(st, rep, data), rep, nil
}

// jsonReportFile is the file a run writes its JSON report to: --json-out,
// else --out with --format json; "" when it writes none to a file.
func (f *runFlags) jsonReportFile() string {
	switch {
	case f.jsonOut != "" && f.jsonOut != "-":
		return f.jsonOut
	case f.jsonOut == "" && f.format == "json" && f.out != "" && f.out != "-":
		return f.out
	}
	return ""
}

// checkAttest checks --attest before the run: the attestation's subject
// is the JSON report file, so the run must write one (USAGE), and the
// attestation must go to a file it can be written to (IO).
func (f *runFlags) checkAttest() error {
	if f.attest == "" {
		return nil
	}
	js := f.jsonReportFile()
	switch {
	case js == "":
		return kiterr.New(kiterr.Usage, "--attest attests the JSON report file, whose digest is its subject: give --json-out FILE (or --format json --out FILE)")
	case filepath.Clean(js) == filepath.Clean(f.attest) || f.out != "" && filepath.Clean(f.out) == filepath.Clean(f.attest):
		return kiterr.New(kiterr.Usage, "--attest %s names the file a report is written to: give the attestation a file of its own", f.attest)
	}
	_, err := reportTarget("--attest", f.attest)
	return err
}

// writeAttestation writes the in-toto statement of rep, whose JSON form is
// js, to --attest, as the report files are written (atomically: a
// temporary file renamed over the name once complete, so an error or a
// signal leaves no partial file). An interrupted run is attested by
// nothing (a note says so). Errors: IO, and a profile.json that can no
// longer be read.
func (f *runFlags) writeAttestation(stdout, stderr io.Writer, rep *runner.Report, js []byte) error {
	if rep.Interrupted {
		fmt.Fprintf(stderr, "conform: note: the run was interrupted: no attestation written to %s\n", f.attest)
		return nil
	}
	opt := attest.Options{ReportName: filepath.Base(f.jsonReportFile()), Profile: f.req.Profile, URL: ciRunURL()}
	if f.req.Profile != "" {
		b, err := input.ReadFile(filepath.Join(f.req.Profile, "profile.json"), profile.MaxFile, "profile")
		if err != nil {
			return kiterr.Wrap(kiterr.IO, err, "read the profile for the attestation")
		}
		opt.ProfileJSON = b
		opt.Artifacts = profileArtifact(b)
	}
	st, err := attest.Build(rep, js, opt)
	if err != nil {
		return kiterr.Wrap(kiterr.IO, err, "build the attestation")
	}
	return writeReport("--attest", f.attest, stdout, func(w io.Writer) error { return attest.Write(w, st) })
}

// profileArtifact is the artifact a profile.json names (its "artifact"
// member: the released file the profile pins, an in-toto resource
// descriptor with a digest; docs/profiles.md), as an attestation's first
// subject; nil when it names none. profile.Load has checked its form.
func profileArtifact(profileJSON []byte) []attest.ResourceDescriptor {
	var p struct {
		Artifact *attest.ResourceDescriptor `json:"artifact"`
	}
	if json.Unmarshal(profileJSON, &p) != nil || p.Artifact == nil || len(p.Artifact.Digest) == 0 {
		return nil
	}
	return []attest.ResourceDescriptor{*p.Artifact}
}

// jsonReport is rep's JSON form (schemas/report.schema.json), the bytes
// --json-out writes and an attestation's subject digests.
func jsonReport(rep *runner.Report) ([]byte, error) {
	var b bytes.Buffer
	if err := report.JSON(&b, rep); err != nil {
		return nil, kiterr.Wrap(kiterr.IO, err, "write JSON report")
	}
	return b.Bytes(), nil
}

// ciRunURL is the address of the CI run conform runs in, for an
// attestation's url: GitHub Actions' run page when its variables are set
// (GITHUB_SERVER_URL, GITHUB_REPOSITORY, GITHUB_RUN_ID), else "".
func ciRunURL() string {
	server, repo, id := os.Getenv("GITHUB_SERVER_URL"), os.Getenv("GITHUB_REPOSITORY"), os.Getenv("GITHUB_RUN_ID")
	if server == "" || repo == "" || id == "" {
		return ""
	}
	return strings.TrimSuffix(server, "/") + "/" + repo + "/actions/runs/" + id
}
