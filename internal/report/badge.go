package report

import (
	"fmt"
	"html"
	"io"
	"slices"
	"strings"

	"github.com/conform-kit/conform/internal/kiterr"
	"github.com/conform-kit/conform/internal/result"
)

// MatrixBadge writes a static SVG badge of the implementation called name:
// what it speaks for, the suite's title, the role and the classes judged
// ("MCP server · core+tools"; "conform" and "conform ROLE vN" for reports
// made before suites had titles and classes), and its verdict with the
// counts of its required and recommended vectors ("certified · 54 passed",
// "53 passed · 2 xfail", "3 failed · 50 passed", and " · N skipped" when
// vectors were skipped), green, amber or red. With section "" the badge
// sums the implementation's sections, shows the worst verdict and names
// their roles ("control protocol agent+host") and the classes judged in
// any of them (more than four are counted: "all 8 classes", "5 of 8
// classes"); otherwise section is a key such as "agent-v1". The SVG
// needs no network: no font file, no script, no external reference; its
// text is drawn in the reader's Verdana or sans-serif, and its width is
// computed from a table of Verdana's character widths at 11 px. The same matrix gives
// the same bytes. Errors: USAGE when m has no such implementation or
// section.
func MatrixBadge(w io.Writer, m *result.Matrix, name, section string) error {
	if err := checkName(m, name); err != nil {
		return err
	}
	var verdicts, roles, classes, all []string
	var c result.Counts
	label := "conform"
	found := false
	for _, sec := range m.Sections {
		key := sectionKey(sec)
		if section != "" && key != section {
			continue
		}
		col := slices.IndexFunc(sec.Columns, func(c result.MatrixColumn) bool { return c.Name == name })
		if col < 0 {
			continue
		}
		found = true
		s := sec.Columns[col].Summary
		verdicts = append(verdicts, sec.Columns[col].Verdict)
		c.Passed += s.Passed
		c.Failed += s.Failed
		c.XFail += s.XFail
		c.XPass += s.XPass
		c.NotRun += s.Required.NotRun + s.Recommended.NotRun
		c.Skipped += s.Required.Skipped + s.Recommended.Skipped
		if section != "" {
			label = fmt.Sprintf("conform %s v%d", sec.Role, sec.Version)
		}
		if !slices.Contains(roles, sec.Role) {
			roles = append(roles, sec.Role)
		}
		for _, cl := range sec.Columns[col].Certifies {
			if !slices.Contains(classes, cl) {
				classes = append(classes, cl)
			}
		}
		for _, cl := range sec.Columns[col].Classes {
			if !slices.Contains(all, cl.Name) {
				all = append(all, cl.Name)
			}
		}
	}
	if !found {
		return kiterr.New(kiterr.Usage, "%q has no run for section %q", name, section)
	}
	if m.Suite.Title != "" {
		label = inert(m.Suite.Title + " " + strings.Join(roles, "+"))
		switch {
		case len(classes) > 0 && len(classes) <= 4:
			label += " · " + inert(strings.Join(classes, "+"))
		case len(classes) > 4 && len(classes) == len(all):
			label += fmt.Sprintf(" · all %d classes", len(classes))
		case len(classes) > 4:
			label += fmt.Sprintf(" · %d of %d classes", len(classes), len(all))
		}
	}
	verdict := worstVerdict(verdicts)
	value, color := badgeValue(verdict, c)
	_, err := io.WriteString(w, badgeSVG(label, value, color, fmt.Sprintf("%s: %s (%s)", name, verdict, value)))
	return err
}

// badgeValue is a badge's right-hand text and colour for a verdict and the
// summed counts, with " · N skipped" when required or recommended vectors
// were skipped (they do not apply; a badge never hides them).
func badgeValue(verdict string, c result.Counts) (value, color string) {
	value, color = badgeWords(verdict, c)
	if c.Skipped > 0 && verdict != result.VerdictInterrupted && verdict != result.VerdictInvalidInput {
		value += fmt.Sprintf(" · %d skipped", c.Skipped)
	}
	return value, color
}

// badgeWords is [badgeValue] without the skipped count.
func badgeWords(verdict string, c result.Counts) (value, color string) {
	failed := c.Failed + c.XPass
	switch verdict {
	case result.VerdictCertified:
		return fmt.Sprintf("certified · %d passed", c.Passed), "#2e7d32"
	case result.VerdictExcused:
		return fmt.Sprintf("%d passed · %d xfail", c.Passed, c.XFail), "#9a6700"
	case result.VerdictPartial:
		return fmt.Sprintf("partial · %d passed", c.Passed), "#9a6700"
	case result.VerdictNotCertified:
		if failed == 0 {
			return fmt.Sprintf("not certified · %d passed", c.Passed), "#c62828"
		}
		return fmt.Sprintf("%d failed · %d passed", failed, c.Passed), "#c62828"
	case result.VerdictNothingPassed:
		return fmt.Sprintf("nothing passed · %d xfail", c.XFail), "#c62828"
	case result.VerdictInterrupted:
		return "interrupted", "#616161"
	}
	return "invalid suite input", "#c62828"
}

// badgeSVG draws a two-part badge: label on grey, value on color; title is
// its accessible name. Text is the kit's words and checked names, escaped
// for XML anyway.
func badgeSVG(label, value, color, title string) string {
	const pad = 6
	lw := textWidth(label) + 2*pad
	vw := textWidth(value) + 2*pad
	tw := lw + vw
	e := html.EscapeString
	return fmt.Sprintf(`<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="20" role="img" aria-label="%s">
<title>%s</title>
<rect width="%d" height="20" rx="3" fill="#555"/>
<rect x="%d" width="%d" height="20" rx="3" fill="%s"/>
<rect x="%d" width="4" height="20" fill="%s"/>
<g fill="#fff" font-family="Verdana,DejaVu Sans,Geneva,sans-serif" font-size="11" text-anchor="middle">
<text x="%d" y="14">%s</text>
<text x="%d" y="14">%s</text>
</g>
</svg>
`, tw, e(label+": "+value), e(title), tw, lw, vw, color, lw, color, lw/2, e(label), lw+vw/2, e(value))
}

// verdana11 holds approximate advance widths of Verdana at 11 px, in
// tenths of a pixel, for printable ASCII from ' '; every other character
// (such as the "·" separator) counts as 8 px. A reader without Verdana
// draws the text in DejaVu Sans or another sans-serif, which is a little
// narrower: the text then stays inside its box.
var verdana11 = [95]int{
	38, 43, 50, 90, 70, 121, 80, 27, 50, 50, 70, 90, 40, 50, 40, 50, // ' ' .. '/'
	70, 70, 70, 70, 70, 70, 70, 70, 70, 70, 50, 50, 90, 90, 90, 60, // '0' .. '?'
	110, 75, 75, 77, 85, 70, 63, 85, 83, 46, 50, 76, 61, 94, 83, 87, // '@' .. 'O'
	66, 87, 77, 75, 68, 81, 75, 109, 75, 68, 75, 50, 50, 50, 90, 70, // 'P' .. '_'
	70, 66, 68, 57, 68, 66, 39, 68, 69, 30, 38, 65, 30, 106, 69, 67, // '`' .. 'o'
	68, 68, 47, 57, 43, 69, 65, 90, 65, 65, 58, 70, 50, 70, 90, // 'p' .. '~'
}

// textWidth is the width of s in Verdana 11 px, rounded up to whole
// pixels.
func textWidth(s string) int {
	tenths := 0
	for _, r := range s {
		if r >= ' ' && r <= '~' {
			tenths += verdana11[r-' ']
		} else {
			tenths += 80
		}
	}
	return (tenths + 9) / 10
}
