package report

import (
	"encoding/json"
	"io"

	"github.com/conform-kit/conform/internal/result"
)

// MatrixJSON writes m as indented JSON following schemas/matrix.schema.json.
// Strings are as the reports had them (JSON escapes control characters,
// and "<", ">" and "&" as \u003c, \u003e, \u0026): a reader must still
// escape them for display.
func MatrixJSON(w io.Writer, m *result.Matrix) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(m)
}
