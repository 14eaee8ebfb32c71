package result

import (
	"strings"
	"time"

	"github.com/conform-kit/conform/internal/compare"
	"github.com/conform-kit/conform/internal/proc"
)

// Values of [Result.Parity].
const (
	ParityExact   = "exact"
	ParityDiffers = "differs"
	// ParityEmpty: the summary and the golden file are equal, but neither
	// holds a frame or an exit class: nothing was compared, so it is not
	// counted as exact parity.
	ParityEmpty = "empty"
)

// Status is the verdict of one vector.
type Status string

// Verdicts, from the most to the least severe for a vector that did not pass.
const (
	// Invalid: the vector, its golden file or its digest is bad (a kit input
	// error, exit 2); the IUT was not judged on it.
	Invalid Status = "INVALID"
	// Crash: the IUT exited, or was killed by a signal it was not sent,
	// before it answered, or ended with a nonzero status after stdin closed.
	Crash Status = "CRASH"
	// Timeout: an expected reply (or the expected exit) did not come within
	// the per-vector timeout.
	Timeout Status = "TIMEOUT"
	// ProtocolError: the IUT wrote something the control channel forbids: a
	// line that is not one JSON object, a frame type the suite does not know,
	// a reply to an id no request sent carries, a second reply to one id, an
	// over-long or unterminated line, or it closed stdout early.
	ProtocolError Status = "PROTOCOL_ERROR"
	// SchemaViolation: a control frame (or a reply body, checked against the
	// request it answers) does not validate against the version's schema.
	SchemaViolation Status = "SCHEMA_VIOLATION"
	// Fail: the normalized canonical summary differs from the golden bytes,
	// or a normalized value failed its format.
	Fail Status = "FAIL"
	// Pass: the summary equals the golden bytes and nothing else went wrong.
	Pass Status = "PASS"
	// XFail: did not pass, and the expected-failure list names it.
	XFail Status = "XFAIL"
	// XPass: passed, but the expected-failure list names it (a failure: the
	// list is stale).
	XPass Status = "XPASS"
	// NotRun: the run was interrupted before the vector finished.
	NotRun Status = "NOT_RUN"
	// Skipped: the vector does not apply to this IUT: its requires
	// predicates (a capability it did not declare, say) do not hold for
	// what the IUT wrote in the version's preflight vector. It was not run
	// and does not count for or against certification; a
	// REQUIREMENT_UNMET note says which predicate failed.
	Skipped Status = "SKIPPED"
)

// Severity orders the statuses a vector can get from its findings: CRASH
// 6, TIMEOUT 5, PROTOCOL_ERROR 4, SCHEMA_VIOLATION 3, FAIL 2, and 0 for
// PASS, a note ("") and every other status. [Judge] applies it.
func Severity(s Status) int {
	switch s {
	case Crash:
		return 6
	case Timeout:
		return 5
	case ProtocolError:
		return 4
	case SchemaViolation:
		return 3
	case Fail:
		return 2
	}
	return 0
}

// Judge is the one rule that gives a vector that ran its status from its
// findings (docs/running.md "Verdicts" states it; the runner, the report reader and
// every printer apply it through this function):
//
//   - On an informational vector, a finding of status PROTOCOL_ERROR or
//     SCHEMA_VIOLATION records the implementation-defined corner the vector
//     observes (a non-string request_id echoed, a second reply): it becomes
//     a note (status ""), and the returned findings say so.
//   - The status is then the most severe status among the findings
//     ([Severity]: CRASH > TIMEOUT > PROTOCOL_ERROR > SCHEMA_VIOLATION >
//     FAIL), and PASS when none carries one. A finding without a status is
//     a note and never changes the status.
//
// The findings are returned in their order; the slice is a copy when a
// status was cleared, so the caller's is never changed. Expected failures
// (XFAIL, XPASS), INVALID and NOT_RUN are decided apart from it.
func Judge(level string, findings []Finding) (Status, []Finding) {
	if level == LevelInformational {
		copied := false
		for i, f := range findings {
			if f.Status == ProtocolError || f.Status == SchemaViolation {
				if !copied {
					findings = append([]Finding(nil), findings...)
					copied = true
				}
				findings[i].Status = ""
			}
		}
	}
	st := Pass
	for _, f := range findings {
		if Severity(f.Status) > Severity(st) {
			st = f.Status
		}
	}
	return st, findings
}

// StatusFollows reports whether r's status is the one [Judge] gives its
// findings: PASS, FAIL, SCHEMA_VIOLATION, PROTOCOL_ERROR, TIMEOUT and CRASH
// must equal it; XFAIL needs findings that do not pass (the expected
// failure failed) and XPASS findings that do (it passed); NOT_RUN,
// INVALID and SKIPPED are decided apart. A saved report whose results break the rule
// was not made by the runner (runner.ReadReport refuses it).
func StatusFollows(r Result) bool {
	st, _ := Judge(r.Level, r.Findings)
	switch r.Status {
	case NotRun, Invalid, Skipped:
		return true
	case XFail:
		return st != Pass
	case XPass:
		return st == Pass
	}
	return st == r.Status
}

// Levels of a vector (schemas/vector.schema.json "level").
const (
	LevelRequired      = "required"
	LevelRecommended   = "recommended"
	LevelInformational = "informational"
)

// Finding codes: what the runner saw, as data. Codes are public API.
const (
	FindingFrameNotJSON      = "FRAME_NOT_JSON"
	FindingFrameDuplicateKey = "FRAME_DUPLICATE_KEY"
	FindingFrameInexact      = "FRAME_NUMBER_INEXACT"
	FindingFrameNotObject    = "FRAME_NOT_OBJECT"
	FindingFrameTooLarge     = "FRAME_TOO_LARGE"
	FindingFramePartial      = "FRAME_PARTIAL"
	FindingFrameLimit        = "FRAME_LIMIT"
	FindingFrameTypeUnknown  = "FRAME_TYPE_UNKNOWN"
	FindingReplyUnsolicited  = "REPLY_UNSOLICITED"
	FindingReplyDuplicate    = "REPLY_DUPLICATE"
	FindingReplyMissing      = "REPLY_MISSING"
	// FindingReplyAfterStdinClosed: an awaited reply did not come within
	// the timeout while stdin was open, and came once conform closed
	// stdin: the IUT holds its output back (an unflushed stdout). TIMEOUT.
	FindingReplyAfterStdinClosed = "REPLY_AFTER_STDIN_CLOSED"
	// FindingReplyOrder: replies that expect.order puts in sequence were
	// written in another order.
	FindingReplyOrder      = "REPLY_ORDER"
	FindingFrameSchema     = "FRAME_SCHEMA"
	FindingReplyBodySchema = "REPLY_BODY_SCHEMA"
	FindingNormalizeFormat = "NORMALIZE_FORMAT"
	// FindingGoldenMismatch: the canonical bytes differ from the golden
	// file where exact parity is required (Config.Exact, conform parity).
	FindingGoldenMismatch = "GOLDEN_MISMATCH"
	// FindingParityDiffers: a note: the bytes differ from the golden file
	// only where the protocol allows (conformance passes).
	FindingParityDiffers = "PARITY_DIFFERS"
	// Conformance differences (normative), coded by their kind.
	FindingValueChanged    = compare.ValueChanged
	FindingTextMismatch    = compare.TextMismatch
	FindingMemberAbsent    = compare.MemberAbsent
	FindingMemberAdded     = compare.MemberAdded
	FindingItemAbsent      = compare.ItemAbsent
	FindingItemAdded       = compare.ItemAdded
	FindingFrameAbsent     = compare.FrameAbsent
	FindingFrameAdded      = compare.FrameAdded
	FindingExitChanged     = compare.ExitChanged
	FindingExitEarly       = "EXIT_EARLY"
	FindingExitNonzero     = "EXIT_NONZERO"
	FindingExitMissing     = "EXIT_MISSING"
	FindingKilledBySignal  = "KILLED_BY_SIGNAL"
	FindingStdoutClosed    = "STDOUT_CLOSED"
	FindingLingered        = "IUT_LINGERED"
	FindingAwaitUnmet      = "AWAIT_UNMET"
	FindingExpectedFailure = "EXPECTED_FAILURE"
	FindingUnexpectedPass  = "UNEXPECTED_PASS"
	// FindingIntermittentPass notes a vector whose expected-failure entry
	// says "intermittent:" (a real failure that happens in some runs
	// only) and which passed this time: it stays PASS.
	FindingIntermittentPass   = "INTERMITTENT_PASSED"
	FindingHostSent           = "HOST_SENT"
	FindingFindingsTruncated  = "FINDINGS_TRUNCATED"
	FindingOrphansKilled      = "ORPHANS_KILLED"
	FindingVersionUnsupported = "VERSION_UNSUPPORTED"
	// FindingExitAfterInputMissing: the vector (or its version) says the
	// IUT exits once stdin closes (afterInput exit), and it did not within
	// the grace period. FAIL.
	FindingExitAfterInputMissing = "EXIT_AFTER_INPUT_MISSING"
	// FindingRequestUnanswered: the IUT sent a request that no peer rule
	// of the vector answers and no tolerate rule allows (FAIL); a note when
	// it came once stdin had closed.
	FindingRequestUnanswered = "REQUEST_UNANSWERED"
	// FindingFrameToleratedTooMany: more frames of a tolerated kind than
	// the rule's max. FAIL.
	FindingFrameToleratedTooMany = "FRAME_TOLERATED_TOO_MANY"
	// FindingFrameOrder: a tolerated frame came after the reply its rule
	// says it precedes. FAIL.
	FindingFrameOrder = "FRAME_ORDER"
	// FindingValueInconsistent: a value the IUT wrote in a later frame
	// differs from the one it wrote in an earlier frame, where a vector's
	// expect.consistent rule requires them equal (a session id it
	// announced, then uses). FAIL.
	FindingValueInconsistent = "VALUE_INCONSISTENT"
	// FindingRequirementUnmet: the predicate of the vector's requires that
	// no frame of the preflight (and discover) vectors satisfies. A note on
	// a SKIPPED result of a recommended or informational vector, or of a
	// vector of a class not judged; on a required vector of a judged class
	// it has status FAIL (the class is claimed, so the vector applies).
	FindingRequirementUnmet = "REQUIREMENT_UNMET"
	// FindingClassNotClaimed: a note on a SKIPPED result: the vector's
	// conformance class is not judged in this run (neither claimed, nor
	// derived from the negotiated frames, nor always judged); the vector
	// was not run and the IUT was not started for it.
	FindingClassNotClaimed = "CLASS_NOT_CLAIMED"
	// FindingClaimContradicted: a report-level finding ([Report.Findings],
	// status FAIL): a class the profile or --claim claims has derive
	// predicates that the frames the IUT wrote in the preflight (and
	// discover) vectors do not satisfy: the implementation claims a
	// feature it did not negotiate. The run is NOT_CERTIFIED.
	FindingClaimContradicted = "CLAIM_CONTRADICTED"
	// FindingClassesUndeclared: a warning of conform validate: a suite
	// version declares no classes, so each of its roles has one implicit
	// class, [ClassAll], always judged (docs/suite-format.md "Classes").
	FindingClassesUndeclared = "CLASSES_UNDECLARED"
)

// Finding codes of the breaks of content-length framing (internal/frame's
// HeaderInvalid, Unframed, Truncated), each PROTOCOL_ERROR with the bytes
// shown (docs/findings.md).
const (
	// FindingFrameHeaderInvalid: a header without a usable Content-Length
	// (missing, negative, non-numeric, two different values), a header
	// line without a colon or not ended by CR LF, a header over 8 KiB.
	FindingFrameHeaderInvalid = "FRAME_HEADER_INVALID"
	// FindingFrameUnframed: bytes where a header must start: between
	// messages, or a bare JSON line.
	FindingFrameUnframed = "FRAME_UNFRAMED"
	// FindingFrameTruncated: the stream ended inside a header or before
	// the Content-Length bytes of a body.
	FindingFrameTruncated = "FRAME_TRUNCATED"
)

// ClassAll is the name of the one implicit class of each role of a suite
// version that declares no classes: every vector of the role belongs to
// it, and it is always judged.
const ClassAll = "all"

// Values of [ClassResult.How]: why a class is or is not judged.
const (
	// HowClaimed: the profile's claims (or conform run --claim) name it,
	// or a claimed class requires it.
	HowClaimed = "claimed"
	// HowDerived: nothing was claimed, and the class's derive predicates
	// hold for the negotiated frames (or a derived class requires it).
	HowDerived = "derived"
	// HowAlways: the class is always judged (suite.json "always": true, or
	// the implicit class [ClassAll]).
	HowAlways = "always"
	// HowNotClaimed: the class is not judged: its vectors are SKIPPED
	// with CLASS_NOT_CLAIMED.
	HowNotClaimed = "not-claimed"
)

// ClassResult is one conformance class of the run's suite version and
// role (suite.json "classes"), why it was or was not judged, and the
// counts of its results. The runner fills the names, texts, Judged and
// How in suite order; [Report.Recount] fills the counts from the results
// (so a merged report recomputes them).
//
// Each result of the class is counted once in exactly one of Passed,
// Failed, XFail, Skipped, NotClaimed, NotRun and Informational, so Total
// is their sum.
type ClassResult struct {
	Name        string `json:"name"`
	Title       string `json:"title,omitempty"`
	Description string `json:"description,omitempty"`
	// Source is the specification section (or seed section) the class
	// rests on; URL a link to it ("" when the suite gives none).
	Source string `json:"source,omitempty"`
	URL    string `json:"url,omitempty"`
	// Judged: the class's vectors were run and count for the verdict.
	Judged bool `json:"judged"`
	// How is HowClaimed, HowDerived, HowAlways or HowNotClaimed.
	How string `json:"how"`
	// Contradicted: the class was claimed, but its derive predicates do
	// not hold for the negotiated frames (a CLAIM_CONTRADICTED finding).
	Contradicted bool `json:"contradicted,omitempty"`
	// Total counts the class's results. Passed: PASS (any level); Failed:
	// results that fail certification ([Result.Failed]); XFail: excused
	// by the expected-failure list; Skipped: SKIPPED because the vector's
	// requires do not hold; NotClaimed: SKIPPED because the class is not
	// judged (CLASS_NOT_CLAIMED); NotRun: NOT_RUN; Informational:
	// informational vectors that ran and did not pass (recorded, never a
	// failure).
	Total         int `json:"total"`
	Passed        int `json:"passed"`
	Failed        int `json:"failed"`
	XFail         int `json:"xfail"`
	Skipped       int `json:"skipped"`
	NotClaimed    int `json:"not_claimed"`
	NotRun        int `json:"not_run,omitempty"`
	Informational int `json:"informational,omitempty"`
	// Required and Recommended count the class's vectors of that level and
	// how many of them passed.
	Required    ClassLevel `json:"required"`
	Recommended ClassLevel `json:"recommended"`
}

// ClassLevel counts a class's vectors of one level and those that passed.
type ClassLevel struct {
	Total  int `json:"total"`
	Passed int `json:"passed"`
}

// NotClaimed reports whether r is SKIPPED because its class is not judged
// (a CLASS_NOT_CLAIMED finding).
func (r Result) NotClaimed() bool {
	if r.Status != Skipped {
		return false
	}
	for _, f := range r.Findings {
		if f.Code == FindingClassNotClaimed {
			return true
		}
	}
	return false
}

// Bounds findings (docs/running.md "Bounds").
const (
	// FindingBudgetExceeded: the control frames of one vector would have
	// taken more than its byte budget (Config.MaxVectorBytes) leaves for
	// them; the vector fails (PROTOCOL_ERROR), the IUT is stopped and the
	// frames after that point are not judged.
	FindingBudgetExceeded = "VECTOR_BUDGET_EXCEEDED"
	// FindingDifferencesTruncated: a note: a result lists at most
	// MaxDifferences differences, and this many more were found.
	FindingDifferencesTruncated = "DIFFERENCES_TRUNCATED"
)

// Bounds on what one result reports, so that a report stays readable and
// its size bounded whatever the IUT wrote (docs/running.md "Bounds"). Where a text
// is cut it ends in "... (N bytes)", N its whole length.
const (
	// MaxExcerptBytes bounds Result.Expected and Result.Actual: the golden
	// and actual canonical bytes are cut there (64 KiB).
	MaxExcerptBytes = 64 << 10
	// MaxDifferences is the most differences a result lists (then a
	// DIFFERENCES_TRUNCATED note with the count).
	MaxDifferences = 100
	// MaxValueBytes bounds each value of a difference (its canonical
	// JSON): a longer one is replaced by a JSON string of its first bytes
	// and "... (N bytes)" (4 KiB).
	MaxValueBytes = 4 << 10
)

// Containment findings (docs/containment.md "Containment").
const (
	// FindingProcessSurvived: a process of the IUT was still alive after
	// the IUT's main process had ended and conform ended the vector. It
	// fails the vector (FAIL) in every mode. It replaces ORPHANS_KILLED,
	// a note that is no longer reported.
	FindingProcessSurvived = "PROCESS_SURVIVED"
)

// Finding is one observation about a vector. Status is the verdict it
// implies ("" for a note that does not change the verdict).
type Finding struct {
	Code    string `json:"code"`
	Status  Status `json:"status,omitempty"`
	Message string `json:"message"`
}

// Result is the outcome of one vector.
type Result struct {
	ID    string `json:"id"`
	Level string `json:"level"`
	// Class is the vector's conformance class (suite.json "classes";
	// [ClassAll] in a version that declares none); "" in a report made
	// before classes existed.
	Class string `json:"class,omitempty"`
	// Status is the verdict; for informational vectors it is what happened,
	// and never fails certification.
	Status Status `json:"status"`
	Path   string `json:"path,omitempty"`
	// DurationMS is the wall time of the vector in milliseconds.
	DurationMS int64     `json:"duration_ms"`
	Findings   []Finding `json:"findings,omitempty"`
	// Reason is the expected-failure reason for XFAIL and XPASS.
	Reason string `json:"reason,omitempty"`
	// Expected and Actual are the golden and actual canonical bytes, set
	// when the vector did not pass or its bytes differ; each is cut at
	// MaxExcerptBytes ("... (N bytes)").
	Expected string `json:"expected,omitempty"`
	Actual   string `json:"actual,omitempty"`
	// Parity is "exact" when the canonical bytes equal the golden file,
	// "differs" when they do not ("" when the vector did not run).
	Parity string `json:"parity,omitempty"`
	// Differences lists the differences from the golden summary (at most
	// MaxDifferences, each value cut at MaxValueBytes), each marked
	// normative (fails conformance) or allowed; nil when the bytes are
	// equal.
	Differences []compare.Difference `json:"differences,omitempty"`
	// Exit is how the IUT ended.
	Exit *proc.Exit `json:"exit,omitempty"`
	// Stderr holds the last bytes of the IUT's stderr when it did not pass.
	Stderr string `json:"stderr,omitempty"`
	// Description and Source are the vector's: what it checks, and the
	// seed section or observed behaviour behind it; GoldenPath is its
	// golden file in the suite. For printers, which show them for a
	// result that did not pass or that differs from its golden file; they
	// are empty in a PASS with exact parity and nothing to report but
	// findings, which a run keeps as its duration, exit status and
	// findings alone (so that its memory does not grow by them per
	// vector). Not in the JSON report
	// (schemas/report.schema.json), which names the vector by Path.
	Description string `json:"-"`
	Source      string `json:"-"`
	GoldenPath  string `json:"-"`
	// Canonical is the actual canonical summary bytes, also when the
	// vector passed, while a run still needs them (a parity run compares
	// them across implementations; Config.Record receives them), and
	// Golden the golden summary they were compared with; both nil in a
	// finished report. Not in the JSON report.
	Canonical []byte `json:"-"`
	Golden    []byte `json:"-"`
	// Shapes is the shapes document of Canonical when the run kept one
	// (runner.Config.Shapes): per frame, the shapes of the values its
	// normalizers replaced. Not in the JSON report.
	Shapes []byte `json:"-"`
}

// Failed reports whether the result fails certification: a required or
// recommended vector that is neither PASS nor XFAIL, or any XPASS/INVALID.
func (r Result) Failed() bool {
	switch r.Status {
	case Pass, XFail, Skipped:
		return false
	case XPass, Invalid:
		return true
	}
	return r.Level != "informational"
}

// IntermittentPrefix starts the reason of an expected-failure entry for a
// failure that happens in some runs only: "intermittent: <why>"
// (docs/profiles.md "Expected failures").
const IntermittentPrefix = "intermittent:"

// Intermittent reports whether r is a required or recommended result that
// passed or failed as expected under an expected-failure entry marked
// intermittent ([IntermittentPrefix]).
func (r Result) Intermittent() bool {
	return (r.Status == Pass || r.Status == XFail) && r.Level != LevelInformational && strings.HasPrefix(r.Reason, IntermittentPrefix)
}

// Counts summarizes a report.
type Counts struct {
	// Total is the number of results plus the number of Problems; Invalid
	// counts INVALID results and Problems alike.
	Total         int `json:"total"`
	Passed        int `json:"passed"`
	Failed        int `json:"failed"`
	XFail         int `json:"xfail"`
	XPass         int `json:"xpass"`
	Informational int `json:"informational"`
	Invalid       int `json:"invalid"`
	NotRun        int `json:"not_run"`
	// Skipped counts SKIPPED results (vectors that do not apply, and
	// vectors of classes not judged); NotClaimed counts those of them
	// skipped because their class is not judged (CLASS_NOT_CLAIMED).
	Skipped    int `json:"skipped"`
	NotClaimed int `json:"not_claimed,omitempty"`
	// Required, Recommended and InformationalLevel count the results of
	// each level; Passed, Failed, XFail and XPass above are their sums over
	// required and recommended vectors.
	Required           LevelCounts `json:"required"`
	Recommended        LevelCounts `json:"recommended"`
	InformationalLevel LevelCounts `json:"informational_level"`
	// ParityExact counts results whose canonical bytes equal the golden
	// file; ParityDiffers those that differ (whether or not conformance
	// passed); ParityEmpty those equal with nothing to compare (no frame,
	// no exit class).
	ParityExact   int `json:"parity_exact"`
	ParityDiffers int `json:"parity_differs"`
	ParityEmpty   int `json:"parity_empty"`
}

// LevelCounts counts the results of one level. For informational vectors
// Passed means "as the golden file records" and Failed "otherwise": neither
// decides certification.
type LevelCounts struct {
	Total   int `json:"total"`
	Passed  int `json:"passed"`
	Failed  int `json:"failed"`
	XFail   int `json:"xfail"`
	XPass   int `json:"xpass"`
	Invalid int `json:"invalid"`
	NotRun  int `json:"not_run"`
	Skipped int `json:"skipped"`
}

// Excused is the number of required and recommended vectors that failed but
// are listed as expected failures (XFAIL): the run may exit 0, but it is
// not certified.
func (c Counts) Excused() int { return c.Required.XFail + c.Recommended.XFail }

// SuiteInfo identifies the suite a report was made with.
type SuiteInfo struct {
	Name    string `json:"name"`
	Version int    `json:"version"`
	Role    string `json:"role"`
	Digest  string `json:"digest"`
	// Title is the suite's short name for people in a verdict line
	// (suite.json "title": "MCP"; "" when it gives none) and Label the
	// version's display name (suite.json version "label": "2025-11-25";
	// "" when none).
	Title string `json:"title,omitempty"`
	Label string `json:"label,omitempty"`
	// Framing is the suite's framing (suite.json "framing") when it is
	// not lines: "content-length"; "" for lines, the default.
	Framing string `json:"framing,omitempty"`
}

// Implementation identifies the IUT.
type Implementation struct {
	Name    string   `json:"name"`
	Command []string `json:"command"`
	// Version, Language, Source and Issues describe the implementation
	// for people (conform matrix shows them on its page): its version
	// ("0.3.332"), the language it is written in ("TypeScript"), and the
	// URLs of its source and of its issue tracker. conform run copies them
	// from the profile (profile.json "version", "language", "source",
	// "issues"); "" when unknown.
	Version  string `json:"version,omitempty"`
	Language string `json:"language,omitempty"`
	Source   string `json:"source,omitempty"`
	Issues   string `json:"issues,omitempty"`
}

// Problem is a kit input error reported with the run (exit 2).
type Problem struct {
	Path    string `json:"path,omitempty"`
	Code    string `json:"code"`
	Message string `json:"message"`
}

// Report is the outcome of a run; its JSON form is defined by
// schemas/report.schema.json.
type Report struct {
	Suite          SuiteInfo      `json:"suite"`
	Implementation Implementation `json:"implementation"`
	Summary        Counts         `json:"summary"`
	Results        []Result       `json:"results"`
	// Stale lists expected-failure entries that name no vector of this
	// run's suite version and role (each fails the run).
	Stale []string `json:"stale,omitempty"`
	// Problems lists kit input errors (bad vector files, digests).
	Problems []Problem `json:"problems,omitempty"`
	// Interrupted is true when the run was cancelled before it finished.
	Interrupted bool `json:"interrupted,omitempty"`
	// Partial is true when --filter selected only some of the vectors: the
	// run passes or fails, but certifies nothing.
	Partial bool `json:"partial,omitempty"`
	// Shard is set when the run was one shard of a sharded run
	// (Config.Shard): it certifies nothing by itself; [Merge] combines the
	// reports of all shards into one.
	Shard *ShardInfo `json:"shard,omitempty"`
	// Shards is the number of shard reports [Merge] combined into this
	// one (0 for a report that was not merged).
	Shards int `json:"shards,omitempty"`
	// Kit identifies the conform build that made the report.
	Kit Kit `json:"kit,omitzero"`
	// Started is when the run started (UTC, millisecond precision; zero
	// when unknown) and ElapsedMS its wall time in milliseconds: for a
	// merged report, from the earliest shard's start to the latest shard's
	// end.
	Started   time.Time `json:"started,omitzero"`
	ElapsedMS int64     `json:"elapsed_ms,omitempty"`
	// Verdict is CERTIFIED, NOT_CERTIFIED, PASSED_PARTIAL (a filtered run,
	// or one shard, without failures), INVALID_SUITE_INPUT or INTERRUPTED;
	// it follows ExitCode.
	Verdict string `json:"verdict"`
	// Invocation is the conform arguments that reproduce the run, as the
	// command that made it recorded them ("run", "--role", "server",
	// "--version", "1", "--profile", "impl/agent-sdk-ts"): without the
	// program name and without -j, -v, --filter and the output flags; nil
	// when unknown. conform matrix builds its repro lines from it.
	Invocation []string `json:"invocation,omitempty"`
	// Preflight is the result of the version's preflight vector when the
	// IUT did not pass it (it does not speak the version); every other
	// vector is then NOT_RUN.
	Preflight *Result `json:"preflight,omitempty"`
	// Claims are the classes the run was told the implementation claims
	// (profile.json "claims", or conform run --claim, which overrides
	// it), as given; nil when nothing was claimed (the classes judged are
	// then derived from the negotiated frames).
	Claims []string `json:"claims,omitempty"`
	// Vars are the values of the suite's vars the run used (suite.json
	// vars: the profile's, --var's or the defaults), by name; nil for a
	// suite that declares none. A certificate holds for the document
	// these describe.
	Vars map[string]any `json:"vars,omitempty"`
	// Classes are the conformance classes of the suite version and role,
	// in suite order (one implicit class [ClassAll] for a version that
	// declares none), each with why it was or was not judged and its
	// counts ([Report.Recount] fills them).
	Classes []ClassResult `json:"classes,omitempty"`
	// Certifies lists the names of the judged classes, in suite order:
	// what the verdict speaks for. A CERTIFIED report certifies exactly
	// these; any other verdict certifies nothing, but names them as what
	// was judged. [Report.Recount] fills it from Classes.
	Certifies []string `json:"certifies,omitempty"`
	// Findings are report-level findings, about the run rather than one
	// vector: CLAIM_CONTRADICTED (status FAIL). A finding with a status
	// fails the run (NOT_CERTIFIED).
	Findings []Finding `json:"findings,omitempty"`
}

// failingFindings reports whether a report-level finding has a status
// (it fails the run).
func (r *Report) failingFindings() bool {
	for _, f := range r.Findings {
		if f.Status != "" {
			return true
		}
	}
	return false
}

// Verdicts of a run ([Report.Verdict]); docs/running.md "Verdicts" says what each
// means and which exit status goes with it.
const (
	// VerdictCertified: a full run in which every required and recommended
	// vector passed conformance (no expected failures among them), with no
	// stale or unexpectedly passing expected-failure entries. Exit 0.
	VerdictCertified = "CERTIFIED"
	// VerdictExcused: like CERTIFIED, except that some required or
	// recommended vectors failed as the expected-failure list says. Exit 0
	// (CI stays green), but nothing is certified; the verdict line says how
	// many vectors of each level were excused.
	VerdictExcused = "PASSED_WITH_EXPECTED_FAILURES"
	// VerdictPartial: a --filter run, or one shard of a run, without
	// failures in which at least one required or recommended vector passed.
	// Exit 0; certifies nothing.
	VerdictPartial = "PASSED_PARTIAL"
	// VerdictNotCertified: a required or recommended vector failed, an
	// expected failure passed or is stale, the preflight failed, or a
	// report-level finding fails the run (a contradicted claim). Exit 1.
	VerdictNotCertified = "NOT_CERTIFIED"
	// VerdictNothingPassed: no required or recommended vector ran and
	// passed (all excused, none selected, or none run), so the run shows
	// nothing; never a pass. Exit 1.
	VerdictNothingPassed = "NOTHING_PASSED"
	// VerdictInvalidInput: a vector or golden file is invalid. Exit 2.
	VerdictInvalidInput = "INVALID_SUITE_INPUT"
	// VerdictInterrupted: the run was cancelled. Exit 130.
	VerdictInterrupted = "INTERRUPTED"
)

// ExitCode returns the process exit status for the report: 0 pass
// (CERTIFIED, PASSED_WITH_EXPECTED_FAILURES, PASSED_PARTIAL), 1 failures,
// a failed preflight, a failing report-level finding, or nothing passed (NOT_CERTIFIED, NOTHING_PASSED), 2
// invalid suite input (a Problem or an INVALID result), 130 interrupted.
func (r *Report) ExitCode() int {
	switch {
	case r.Interrupted:
		return 130
	case len(r.Problems) > 0 || r.Summary.Invalid > 0:
		return 2
	case r.Preflight != nil || r.Summary.Failed > 0 || r.Summary.XPass > 0 || len(r.Stale) > 0 || r.failingFindings():
		return 1
	case r.Summary.Required.Passed+r.Summary.Recommended.Passed == 0:
		return 1
	}
	return 0
}

// ComputeVerdict returns the verdict that follows from the counts, the exit
// code, Partial and Shard (what Report.Verdict holds after Run).
func (r *Report) ComputeVerdict() string {
	switch r.ExitCode() {
	case 1:
		c := r.Summary
		if r.Preflight == nil && c.Failed == 0 && c.XPass == 0 && len(r.Stale) == 0 && !r.failingFindings() {
			return VerdictNothingPassed
		}
		return VerdictNotCertified
	case 2:
		return VerdictInvalidInput
	case 130:
		return VerdictInterrupted
	}
	switch {
	case r.Partial || r.Shard != nil:
		return VerdictPartial
	case r.Summary.Excused() > 0:
		return VerdictExcused
	}
	return VerdictCertified
}

// Recount fills Summary, the counts of Classes, Certifies and Verdict
// from Results, Problems, Stale, Preflight, Findings, Interrupted and
// Partial (Run calls it; so does anything that builds or merges a
// report). A result whose class is not in Classes is counted in Summary
// only.
func (r *Report) Recount() {
	r.recountClasses()
	// A Problem (a vector file that does not load or fails its digest) is
	// counted as one INVALID vector more: it could not run.
	c := Counts{Total: len(r.Results) + len(r.Problems), Invalid: len(r.Problems)}
	for _, res := range r.Results {
		lc := &c.Required
		switch res.Level {
		case "recommended":
			lc = &c.Recommended
		case "informational":
			lc = &c.InformationalLevel
		}
		lc.Total++
		switch res.Parity {
		case ParityExact:
			c.ParityExact++
		case ParityDiffers:
			c.ParityDiffers++
		case ParityEmpty:
			c.ParityEmpty++
		}
		switch {
		case res.Status == NotRun:
			c.NotRun++
			lc.NotRun++
		case res.Status == Skipped:
			c.Skipped++
			lc.Skipped++
			if res.NotClaimed() {
				c.NotClaimed++
			}
		case res.Status == Invalid:
			c.Invalid++
			lc.Invalid++
		case res.Status == XFail:
			c.XFail++
			lc.XFail++
		case res.Status == XPass:
			c.XPass++
			lc.XPass++
		case res.Level == "informational":
			c.Informational++
			if res.Status == Pass {
				lc.Passed++
			} else {
				lc.Failed++
			}
		case res.Status == Pass:
			c.Passed++
			lc.Passed++
		default:
			c.Failed++
			lc.Failed++
		}
	}
	r.Summary = c
	r.Verdict = r.ComputeVerdict()
}

// recountClasses fills the counts of r.Classes from r.Results and
// r.Certifies from the judged classes.
func (r *Report) recountClasses() {
	r.Certifies = nil
	if len(r.Classes) == 0 {
		return
	}
	at := make(map[string]int, len(r.Classes))
	for i := range r.Classes {
		c := &r.Classes[i]
		at[c.Name] = i
		*c = ClassResult{Name: c.Name, Title: c.Title, Description: c.Description, Source: c.Source, URL: c.URL,
			Judged: c.Judged, How: c.How, Contradicted: c.Contradicted}
		if c.Judged {
			r.Certifies = append(r.Certifies, c.Name)
		}
	}
	for _, res := range r.Results {
		i, ok := at[res.Class]
		if !ok {
			continue
		}
		c := &r.Classes[i]
		c.Total++
		var lc *ClassLevel
		switch res.Level {
		case LevelRequired:
			lc = &c.Required
		case LevelRecommended:
			lc = &c.Recommended
		}
		if lc != nil {
			lc.Total++
			if res.Status == Pass {
				lc.Passed++
			}
		}
		switch {
		case res.Status == Pass:
			c.Passed++
		case res.NotClaimed():
			c.NotClaimed++
		case res.Status == Skipped:
			c.Skipped++
		case res.Status == XFail:
			c.XFail++
		case res.Status == NotRun:
			c.NotRun++
		case res.Failed():
			c.Failed++
		default:
			c.Informational++
		}
	}
}
