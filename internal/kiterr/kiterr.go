// Package kiterr defines the one error type of the conform kit: an [Error]
// carrying a stable [Code]. Errors are for failures of the kit itself (a bad
// suite, a bad flag, an IUT that cannot be started); conformance failures are
// data (runner.Result), never errors.
package kiterr

import (
	"errors"
	"fmt"
)

// Code is a stable UPPER_SNAKE error code. Codes are public API: they are
// never renamed; a replaced code is deprecated and kept.
type Code string

// The kit's error codes. Each names the subject and the broken invariant.
const (
	// Usage: a flag or argument of the command line is wrong (exit 2).
	Usage Code = "USAGE"

	// JSONSyntax: input is not one JSON text (with line and column).
	JSONSyntax Code = "JSON_SYNTAX"
	// JSONDuplicateKey: an object has the same member name twice (RFC 8259 §4
	// leaves it undefined; RFC 7493 §2.3 forbids it).
	JSONDuplicateKey Code = "JSON_DUPLICATE_KEY"
	// JSONInvalidUTF8: input bytes are not UTF-8 (RFC 8259 §8.1).
	JSONInvalidUTF8 Code = "JSON_INVALID_UTF8"
	// JSONLoneSurrogate: a \u escape names half of a surrogate pair (RFC 7493 §2.1).
	JSONLoneSurrogate Code = "JSON_LONE_SURROGATE"
	// JSONNumberInexact: an integer beyond ±2^53 that IEEE 754 binary64 cannot
	// hold exactly, so its RFC 8785 form would silently differ (RFC 8785 §3.2.2.3).
	JSONNumberInexact Code = "JSON_NUMBER_INEXACT"
	// JSONTooDeep: nesting deeper than the reader's limit.
	JSONTooDeep Code = "JSON_TOO_DEEP"

	// SuiteNotFound: the suite root or one of its required files is missing.
	SuiteNotFound Code = "SUITE_NOT_FOUND"
	// SuiteInvalid: suite.json does not match schemas/suite.schema.json.
	SuiteInvalid Code = "SUITE_INVALID"
	// SuiteDigestMismatch: a file's SHA-256 differs from MANIFEST.sha256.
	SuiteDigestMismatch Code = "SUITE_DIGEST_MISMATCH"
	// SuiteFileUnlisted: a suite file is missing from MANIFEST.sha256, or the
	// manifest lists a file that does not exist.
	SuiteFileUnlisted Code = "SUITE_FILE_UNLISTED"
	// SuitePathOutside: a suite path leaves the suite directory: a `..`
	// element or an absolute path in suite.json, or a symbolic link in the
	// suite whose target is outside it (never read, never written
	// through).
	SuitePathOutside Code = "SUITE_PATH_OUTSIDE"
	// VersionUnknown: the suite has no such protocol version.
	VersionUnknown Code = "VERSION_UNKNOWN"

	// VectorInvalid: a vector file is not JSON or violates schemas/vector.schema.json.
	VectorInvalid Code = "VECTOR_INVALID"
	// VectorTooLarge: a vector file is larger than suite.MaxVectorFile, or
	// the lines it sends (generated lines at their built size) add up to
	// more than suite.MaxSendBytes.
	VectorTooLarge Code = "VECTOR_TOO_LARGE"
	// VectorIDDuplicate: two vector files of one version share an id.
	VectorIDDuplicate Code = "VECTOR_ID_DUPLICATE"
	// VectorIDMismatch: a vector's file name is not <id>.json or its version
	// does not match its folder.
	VectorIDMismatch Code = "VECTOR_ID_MISMATCH"
	// VectorClassUnknown: a session vector of a version that declares
	// conformance classes names none, or names one that is not a class of
	// its version and role (or a vector names a class where there is none:
	// a message vector, a version without classes). docs/vector-format.md.
	VectorClassUnknown Code = "VECTOR_CLASS_UNKNOWN"
	// ClaimUnknown: a claim (profile.json claims, conform run --claim)
	// names no conformance class of the suite version and role.
	ClaimUnknown Code = "CLAIM_UNKNOWN"
	// VectorEnvDenied: a vector's env sets a variable that makes a runtime,
	// the dynamic loader or a shell load or run code, or that the kit sets
	// itself (LD_PRELOAD, PYTHONPATH, NODE_OPTIONS, BASH_ENV, PATH, ...: the
	// list is internal/suite/contain.go; docs/containment.md). A suite is
	// data; only the implementer's profile may set these (exit 2).
	VectorEnvDenied Code = "VECTOR_ENV_DENIED"
	// VectorFileDenied: a vector's files (or a ${suite:PATH} copy) would put
	// into the IUT's working directory a file a runtime loads as code or
	// reads as configuration at start-up (sitecustomize.py, *.pth,
	// node_modules, .npmrc, *.class, ...; internal/suite/contain.go) (exit 2).
	VectorFileDenied Code = "VECTOR_FILE_DENIED"
	// VectorVarUnknown: a vector's ${var:NAME} (in a frame, a peer reply,
	// args or env), a profile's vars or conform run --var names a var its
	// suite.json does not declare (exit 2; docs/suite-format.md "Vars").
	VectorVarUnknown Code = "VECTOR_VAR_UNKNOWN"
	// FilterNoMatch: a --filter glob or a path glob matched nothing.
	FilterNoMatch Code = "FILTER_NO_MATCH"
	// PathNotFound: a file named on the command line (not a glob) does not
	// exist or cannot be read.
	PathNotFound Code = "PATH_NOT_FOUND"

	// GoldenMissing: a session vector has no golden file.
	GoldenMissing Code = "GOLDEN_MISSING"
	// GoldenInvalid: a golden file is not in RFC 8785 canonical form.
	GoldenInvalid Code = "GOLDEN_INVALID"

	// SchemaInvalid: a JSON Schema of the suite does not compile.
	SchemaInvalid Code = "SCHEMA_INVALID"
	// SchemaRefRemote: a $ref points at a remote URL (never fetched).
	SchemaRefRemote Code = "SCHEMA_REF_REMOTE"
	// SchemaRefOutside: a $ref points outside the suite root (never read).
	SchemaRefOutside Code = "SCHEMA_REF_OUTSIDE"
	// SchemaRefCycle: a schema of the suite reaches itself through $ref
	// (and allOf, anyOf, oneOf, not, if, then, else) without descending
	// into the instance, within one schema file or across several: every
	// instance that reaches it would loop, so it is invalid suite input,
	// never a violation of the IUT's (exit 2; issue 33).
	SchemaRefCycle Code = "SCHEMA_REF_CYCLE"
	// SchemaUnsupported: a schema uses a draft ($schema) or a keyword
	// ($dynamicRef, $recursiveRef) that conform compat cannot compare; it is
	// refused rather than misread.
	SchemaUnsupported Code = "SCHEMA_UNSUPPORTED"
	// CompatTimeout: conform compat did not finish within its --timeout.
	CompatTimeout Code = "COMPAT_TIMEOUT"
	// CompatMemory: conform compat's heap reached its --memory bound; it
	// refused the comparison before the machine ran short (issue 23).
	CompatMemory Code = "COMPAT_MEMORY"

	// NormalizerInvalid: a normalizer has a bad path pattern or format.
	NormalizerInvalid Code = "NORMALIZER_INVALID"
	// NormalizerUnmatched: a vector-level normalizer matched nothing in the
	// reference output when golden files were generated (a stale rule).
	NormalizerUnmatched Code = "NORMALIZER_UNMATCHED"

	// ExpectFileInvalid: an expected-failure file has a line without a
	// "# reason", a duplicate id, or an id that names no vector.
	ExpectFileInvalid Code = "EXPECT_FILE_INVALID"
	// ProfileInvalid: an IUT profile (profile.json) is missing or malformed.
	ProfileInvalid Code = "PROFILE_INVALID"

	// ReportSuiteMismatch: reports combined into one matrix were made with
	// different suites (name or digest), or disagree on a vector's level.
	ReportSuiteMismatch Code = "REPORT_SUITE_MISMATCH"

	// IUTStart: the IUT command could not be started (exit 3).
	IUTStart Code = "IUT_START"
	// ReferenceMismatch: the reference implementation did not produce the
	// expected replies while golden files were generated (exit 3).
	ReferenceMismatch Code = "REFERENCE_MISMATCH"
	// Interrupted: the run was cancelled (SIGINT) before it finished.
	Interrupted Code = "INTERRUPTED"
	// InputNotRegular: a kit input (a suite file, MANIFEST.sha256, a schema,
	// a vector or golden file, a report, a shard) is a FIFO, a device, a
	// socket or a directory: refused without reading it, never waited on
	// (exit 2; internal/input).
	InputNotRegular Code = "INPUT_NOT_REGULAR"
	// InputTooLarge: a kit input is larger than the cap of its kind
	// (docs/running.md "Input bounds"): refused by its size before it is
	// read, or at the first byte over while read (exit 2; internal/input).
	InputTooLarge Code = "INPUT_TOO_LARGE"
	// IO: reading or writing a file of the kit failed.
	IO Code = "IO"
	// RecordingInvalid: a recording directory (conform record) or a
	// directory of summaries given to conform drift is missing its
	// metadata, holds a file that is not a canonical summary, or names a
	// vector other than its file name.
	RecordingInvalid Code = "RECORDING_INVALID"
	// InitDirUnusable: conform init cannot write its suite into the
	// directory given: a symbolic link to nothing, or a place that cannot be
	// made, read or written (read-only, forbidden, immutable); what it had
	// written is removed (exit 2).
	InitDirUnusable Code = "INIT_DIR_UNUSABLE"
	// RecordEmpty: conform record ran but recorded no summary (every
	// vector was INVALID, SKIPPED or not run): nothing is written, never a
	// recording of nothing (exit 1).
	RecordEmpty Code = "RECORD_EMPTY"
)

// Error is a failure of the kit with a stable [Code]. Msg says what failed,
// lowercase, without a trailing period; Err is the cause (may be nil).
type Error struct {
	Code Code
	Msg  string
	Err  error
}

// Error returns "CODE: msg: cause".
func (e *Error) Error() string {
	s := string(e.Code) + ": " + e.Msg
	if e.Err != nil {
		s += ": " + e.Err.Error()
	}
	return s
}

// Unwrap returns the cause.
func (e *Error) Unwrap() error { return e.Err }

// New returns an [*Error] with a formatted message and no cause.
func New(code Code, format string, args ...any) *Error {
	return &Error{Code: code, Msg: fmt.Sprintf(format, args...)}
}

// Wrap returns an [*Error] with a message and a cause; nil err gives nil.
func Wrap(code Code, err error, format string, args ...any) error {
	if err == nil {
		return nil
	}
	return &Error{Code: code, Msg: fmt.Sprintf(format, args...), Err: err}
}

// CodeOf returns the [Code] of the outermost [*Error] in err's chain, or ""
// when there is none.
func CodeOf(err error) Code {
	var e *Error
	if errors.As(err, &e) {
		return e.Code
	}
	return ""
}

// Codes of reports read back (conform report) and of sharded runs
// (conform run --shard, conform report merge).
const (
	// ReportInvalid: a report file (conform report, conform matrix --from)
	// is not a JSON report of this kit: it is not one strict JSON text, does
	// not validate against schemas/report.schema.json, or its counts and
	// verdict do not follow from its results (exit 2).
	ReportInvalid Code = "REPORT_INVALID"
	// ShardInvalid: a report given to merge is not a shard report (no shard
	// metadata), or its results do not belong to its shard (exit 2).
	ShardInvalid Code = "SHARD_INVALID"
	// ShardMissing: the shard reports given to merge lack one or more of
	// the shards 1..n (exit 2).
	ShardMissing Code = "SHARD_MISSING"
	// ShardDuplicate: two shard reports given to merge are the same shard,
	// or share a vector (exit 2).
	ShardDuplicate Code = "SHARD_DUPLICATE"
	// ShardSuiteMismatch: shard reports were made with different suites
	// (name, protocol version, role or suite digest) (exit 2).
	ShardSuiteMismatch Code = "SHARD_SUITE_MISMATCH"
	// ShardKitMismatch: shard reports were made by different conform
	// builds (kit version, VCS revision or modified flag) (exit 2).
	ShardKitMismatch Code = "SHARD_KIT_MISMATCH"
	// ShardIUTMismatch: shard reports certify different implementations
	// (implementation name or command) (exit 2).
	ShardIUTMismatch Code = "SHARD_IUT_MISMATCH"
	// ShardSelectionMismatch: shard reports split different selections of
	// vectors (shard count, --filter, expected-failure entries found stale)
	// (exit 2).
	ShardSelectionMismatch Code = "SHARD_SELECTION_MISMATCH"
)
