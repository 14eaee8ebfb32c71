package report

import (
	"encoding/json"
	"io"

	"github.com/conform-kit/conform/internal/result"
)

// JSON writes r as indented JSON matching schemas/report.schema.json.
func JSON(w io.Writer, r *result.Report) error {
	r.Verdict = verdictOf(r)
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(r)
}
