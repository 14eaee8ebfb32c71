package runner

import "github.com/conform-kit/conform/internal/result"

// The result model lives in internal/result, below both this package and
// the printers (internal/report); these names are the runner's public API
// for it. See [result.Report] for the report's shape and its verdict rule.

// Result model types.
type (
	CauseVector          = result.CauseVector
	Counts               = result.Counts
	Finding              = result.Finding
	Group                = result.Group
	Implementation       = result.Implementation
	Kit                  = result.Kit
	LevelCounts          = result.LevelCounts
	Matrix               = result.Matrix
	MatrixCause          = result.MatrixCause
	MatrixCell           = result.MatrixCell
	MatrixColumn         = result.MatrixColumn
	MatrixImplementation = result.MatrixImplementation
	MatrixInput          = result.MatrixInput
	MatrixPreflight      = result.MatrixPreflight
	MatrixRow            = result.MatrixRow
	MatrixSection        = result.MatrixSection
	MatrixSuite          = result.MatrixSuite
	ParityReport         = result.ParityReport
	ParityVector         = result.ParityVector
	Problem              = result.Problem
	Report               = result.Report
	Result               = result.Result
	ShardInfo            = result.ShardInfo
	Status               = result.Status
	SuiteInfo            = result.SuiteInfo
	TrendPoint           = result.TrendPoint
	HistoryPoint         = result.HistoryPoint
	ClassResult          = result.ClassResult
	ClassLevel           = result.ClassLevel
)

// Statuses, verdicts, finding codes and report bounds (public API; see
// internal/result).
const (
	Crash                        = result.Crash
	Fail                         = result.Fail
	FindingAwaitUnmet            = result.FindingAwaitUnmet
	FindingBudgetExceeded        = result.FindingBudgetExceeded
	FindingDifferencesTruncated  = result.FindingDifferencesTruncated
	FindingExitAfterInputMissing = result.FindingExitAfterInputMissing
	FindingExitChanged           = result.FindingExitChanged
	FindingExitEarly             = result.FindingExitEarly
	FindingExitMissing           = result.FindingExitMissing
	FindingExitNonzero           = result.FindingExitNonzero
	FindingExpectedFailure       = result.FindingExpectedFailure
	FindingFindingsTruncated     = result.FindingFindingsTruncated
	FindingFrameAbsent           = result.FindingFrameAbsent
	FindingFrameAdded            = result.FindingFrameAdded
	FindingFrameDuplicateKey     = result.FindingFrameDuplicateKey
	FindingFrameHeaderInvalid    = result.FindingFrameHeaderInvalid
	FindingFrameTruncated        = result.FindingFrameTruncated
	FindingFrameUnframed         = result.FindingFrameUnframed
	FindingFrameInexact          = result.FindingFrameInexact
	FindingFrameLimit            = result.FindingFrameLimit
	FindingFrameNotJSON          = result.FindingFrameNotJSON
	FindingFrameNotObject        = result.FindingFrameNotObject
	FindingFrameOrder            = result.FindingFrameOrder
	FindingValueInconsistent     = result.FindingValueInconsistent
	FindingFramePartial          = result.FindingFramePartial
	FindingFrameSchema           = result.FindingFrameSchema
	FindingFrameToleratedTooMany = result.FindingFrameToleratedTooMany
	FindingFrameTooLarge         = result.FindingFrameTooLarge
	FindingFrameTypeUnknown      = result.FindingFrameTypeUnknown
	FindingGoldenMismatch        = result.FindingGoldenMismatch
	FindingHostSent              = result.FindingHostSent
	FindingItemAbsent            = result.FindingItemAbsent
	FindingItemAdded             = result.FindingItemAdded
	FindingKilledBySignal        = result.FindingKilledBySignal
	FindingLingered              = result.FindingLingered
	FindingMemberAbsent          = result.FindingMemberAbsent
	FindingMemberAdded           = result.FindingMemberAdded
	FindingNormalizeFormat       = result.FindingNormalizeFormat
	FindingOrphansKilled         = result.FindingOrphansKilled
	FindingParityDiffers         = result.FindingParityDiffers
	FindingProcessSurvived       = result.FindingProcessSurvived
	FindingReplyAfterStdinClosed = result.FindingReplyAfterStdinClosed
	FindingReplyBodySchema       = result.FindingReplyBodySchema
	FindingReplyDuplicate        = result.FindingReplyDuplicate
	FindingReplyMissing          = result.FindingReplyMissing
	FindingReplyOrder            = result.FindingReplyOrder
	FindingReplyUnsolicited      = result.FindingReplyUnsolicited
	FindingRequestUnanswered     = result.FindingRequestUnanswered
	FindingRequirementUnmet      = result.FindingRequirementUnmet
	FindingClassNotClaimed       = result.FindingClassNotClaimed
	FindingClaimContradicted     = result.FindingClaimContradicted
	FindingClassesUndeclared     = result.FindingClassesUndeclared
	FindingStdoutClosed          = result.FindingStdoutClosed
	FindingTextMismatch          = result.FindingTextMismatch
	FindingUnexpectedPass        = result.FindingUnexpectedPass
	FindingIntermittentPass      = result.FindingIntermittentPass
	FindingValueChanged          = result.FindingValueChanged
	FindingVersionUnsupported    = result.FindingVersionUnsupported
	Invalid                      = result.Invalid
	MaxDifferences               = result.MaxDifferences
	MaxExcerptBytes              = result.MaxExcerptBytes
	MaxValueBytes                = result.MaxValueBytes
	ModulePath                   = result.ModulePath
	NotRun                       = result.NotRun
	ParityDiffers                = result.ParityDiffers
	ParityEmpty                  = result.ParityEmpty
	ParityExact                  = result.ParityExact
	Pass                         = result.Pass
	ProtocolError                = result.ProtocolError
	SchemaViolation              = result.SchemaViolation
	Skipped                      = result.Skipped
	Timeout                      = result.Timeout
	VerdictCertified             = result.VerdictCertified
	VerdictExcused               = result.VerdictExcused
	VerdictInterrupted           = result.VerdictInterrupted
	VerdictInvalidInput          = result.VerdictInvalidInput
	VerdictNotCertified          = result.VerdictNotCertified
	VerdictNothingPassed         = result.VerdictNothingPassed
	VerdictPartial               = result.VerdictPartial
	XFail                        = result.XFail
	XPass                        = result.XPass
)

// Severity orders statuses by severity (see [result.Severity]).
func Severity(s Status) int { return result.Severity(s) }

// BuildKit returns the identity of the running conform build (see
// [result.BuildKit]).
func BuildKit() Kit { return result.BuildKit() }

// BuildMatrix builds the matrix of implementations by vectors from their
// reports (see [result.BuildMatrix]).
func BuildMatrix(inputs []MatrixInput) (*Matrix, error) { return result.BuildMatrix(inputs) }

// Repro returns the conform arguments that rerun vector id of a run made
// with invocation (see [result.Repro]).
func Repro(invocation []string, id string) []string { return result.Repro(invocation, id) }

// IntermittentPrefix starts the reason of an expected-failure entry for a
// failure that happens in some runs only: "intermittent: <why>"
// (docs/profiles.md "Expected failures").
const IntermittentPrefix = result.IntermittentPrefix
