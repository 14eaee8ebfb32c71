package report

import (
	"encoding/json"
	"io"

	"github.com/conform-kit/conform/runner"
)

// JSON writes r as indented JSON matching schemas/report.schema.json.
func JSON(w io.Writer, r *runner.Report) error {
	r.Verdict = verdictOf(r)
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(r)
}
