package result

import "github.com/conform-kit/conform/internal/compare"

// Group is a set of implementations that wrote the same canonical bytes for
// one vector.
type Group struct {
	Implementations []string `json:"implementations"`
	// Golden is true when the bytes equal the golden file.
	Golden bool   `json:"golden"`
	Bytes  string `json:"bytes"`
	// Differences lists where Bytes differ from the golden bytes (every
	// difference normative: parity is byte for byte), frames paired by
	// the suite's envelope; at most MaxDifferences, values cut at
	// MaxValueBytes. Empty for the golden group.
	Differences []compare.Difference `json:"differences,omitempty"`
}

// ParityVector is one row of the parity matrix.
type ParityVector struct {
	ID    string `json:"id"`
	Level string `json:"level"`
	// Statuses maps implementation name to its verdict.
	Statuses map[string]Status `json:"statuses"`
	// Groups partitions the implementations by canonical bytes, the golden
	// group first, then by size and name; one group means full agreement.
	Groups []Group `json:"groups"`
	// Golden is the golden bytes.
	Golden string `json:"golden"`
	// Agree is true when every implementation ran the vector and wrote the
	// golden bytes. Expected-failure lists do not excuse a difference here:
	// parity is byte for byte. A row every implementation SKIPPED agrees
	// with nothing compared (Uncompared).
	Agree bool `json:"agree"`
	// Uncompared is true when no implementation ran the vector (each status
	// SKIPPED, NOT_RUN or INVALID): there were no bytes to compare with the
	// golden file.
	Uncompared bool `json:"uncompared,omitempty"`
	// Failed is true when the row fails the gate: a required or
	// recommended row where the implementations do not all agree with the
	// golden bytes, or where an implementation failed its own run
	// (informational rows never fail).
	Failed bool `json:"failed"`
}

// ParityReport is the outcome of [Parity].
type ParityReport struct {
	Suite           SuiteInfo        `json:"suite"`
	Implementations []Implementation `json:"implementations"`
	// Reports holds each implementation's own report, in target order.
	Reports []*Report      `json:"reports"`
	Vectors []ParityVector `json:"vectors"`
	// Passed is true when no row failed and every report exits 0.
	Passed bool `json:"passed"`
	// Gated is the number of required and recommended rows that were
	// compared (at least one implementation ran them); Disagree is how many
	// of them do not agree.
	Gated    int `json:"gated"`
	Disagree int `json:"disagree"`
	// Uncompared is the number of required and recommended rows that no
	// implementation ran (each SKIPPED, NOT_RUN or INVALID): nothing was
	// compared on them, so they are not in Gated. Such a row still fails the
	// gate when a status on it is a failure (NOT_RUN, INVALID).
	Uncompared int `json:"uncompared"`
}
