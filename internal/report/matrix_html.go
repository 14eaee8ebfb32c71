package report

import (
	"html/template"
	"io"

	"github.com/conform-kit/conform/internal/result"
)

// MatrixHTML writes m as one self-contained HTML page: inline CSS, no
// script, no external asset (a Content-Security-Policy meta element allows
// nothing else), and the same bytes for the same matrix (no date). Every
// string that came from a report passes html/template's contextual escaping
// after [inert] has spelled its control, bidi and other format characters as
// visible escapes. Per section: a table of vectors by implementations (each
// cell the conformance status and exact parity, linked to its detail), the
// verdicts, and a numbered list of details with the decisive findings,
// differences and a repro command for every cell that is not PASS with
// exact parity.
func MatrixHTML(w io.Writer, m *result.Matrix) error {
	return matrixHTML.Execute(w, newMatrixView(m))
}

var matrixHTML = template.Must(template.New("matrix").Funcs(template.FuncMap{
	"plus": func(a, b int) int { return a + b },
}).Parse(`<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>conform certification matrix</title>
<style>
body { font: 14px/1.4 system-ui, sans-serif; margin: 1.5em; color: #1b1b1b; background: #fff; }
h1 { font-size: 1.5em; } h2 { font-size: 1.25em; margin-top: 2em; } h3 { font-size: 1.05em; }
code, .mono { font-family: ui-monospace, SFMono-Regular, Menlo, Consolas, monospace; font-size: 12px; }
table { border-collapse: collapse; margin: 0.5em 0; }
th, td { border: 1px solid #c8c8c8; padding: 2px 6px; text-align: left; vertical-align: top; }
thead th { background: #f0f0f0; position: sticky; top: 0; }
td.cell { white-space: nowrap; font-size: 12px; }
td.cell a { color: inherit; }
.st-pass { background: #e3f4e1; } .st-xfail { background: #fff3c4; } .st-fail { background: #fbd7d4; }
.st-notrun, .st-none, .st-other { background: #ececec; }
.parity { color: #555; } .differs { color: #8a4b00; font-weight: 600; }
.verdict-CERTIFIED { background: #e3f4e1; } .verdict-PASSED_WITH_EXPECTED_FAILURES, .verdict-PASSED_PARTIAL { background: #fff3c4; }
.verdict-NOT_CERTIFIED, .verdict-NOTHING_PASSED, .verdict-INVALID_SUITE_INPUT, .verdict-INTERRUPTED { background: #fbd7d4; }
.iut { unicode-bidi: isolate; overflow-wrap: anywhere; }
ol.details > li { margin-bottom: 0.6em; }
ol.details ul { margin: 0.2em 0; padding-left: 1.2em; }
.legend { color: #444; }
</style>
</head>
<body>
<h1>conform certification matrix</h1>
<p>Suite <code class="iut" id="suite-name">{{.Suite.Name}}</code>, digest <code id="suite-digest">{{.Suite.Digest}}</code>.
Each cell is the conformance status of one implementation on one vector, then its exact parity with the golden summary
(<span class="parity">exact</span> or <span class="differs">differs</span>); see COMPATIBILITY.md "Conformance and exact parity".
Text from implementations is shown with control and bidi characters spelled as <code>\uXXXX</code>.</p>

<h2 id="implementations">Implementations</h2>
<table id="implementations-table">
<thead><tr><th>name</th><th>implementation (version)</th>{{range .Sections}}<th>{{.Title}}</th>{{end}}</tr></thead>
<tbody>
{{- range .Implementations}}
<tr><th class="iut">{{.Name}}</th><td class="iut">{{.Implementation}}</td>{{range .Verdicts}}{{if .}}<td class="verdict-{{.}}">{{.}}</td>{{else}}<td class="st-none">—</td>{{end}}{{end}}</tr>
{{- end}}
</tbody>
</table>
{{range .Sections}}
<section id="section-{{.Key}}" class="matrix-section">
<h2>{{.Title}}</h2>
<table class="matrix" data-section="{{.Key}}">
<thead>
<tr><th>vector</th><th>level</th>{{range .Columns}}<th class="iut impl">{{.Name}}</th>{{end}}</tr>
</thead>
<tbody>
{{- range .Rows}}
<tr class="vector-row"><th class="mono">{{.ID}}</th><td>{{.Level}}</td>
{{- range .Cells}}<td class="cell {{.Class}}">{{if .Detail}}<a href="#detail-{{.Detail}}">{{.Status}}</a>{{else if .Status}}{{.Status}}{{else}}—{{end}}{{if eq .Parity "differs"}} <span class="differs">differs</span>{{else if .Parity}} <span class="parity">{{.Parity}}</span>{{end}}</td>{{end}}</tr>
{{- end}}
</tbody>
</table>
<h3>Verdicts</h3>
<ul class="verdicts">
{{- range .Columns}}
<li><b class="iut">{{.Name}}</b>: <span class="verdict-{{.Verdict}}">{{.Verdict}}</span> ({{.Counts}}); run: <code class="iut">{{.Invocation}}</code>
{{- range .Notes}}<br><span class="iut">{{.}}</span>{{end}}</li>
{{- end}}
</ul>
{{- if .Details}}
<h3>Failures and parity differences</h3>
<ol class="details">
{{- range .Details}}
<li id="detail-{{.N}}" value="{{.N}}"><code>{{.Vector}}</code> ({{.Level}}) · <b class="iut">{{.Name}}</b>: {{.Status}}{{if .Parity}}, parity {{.Parity}}{{end}}
<ul>
{{- range .Findings}}
<li class="iut finding">{{.}}</li>
{{- end}}
{{- if .Reason}}
<li class="iut">expected failure: {{.Reason}}</li>
{{- end}}
{{- range .Differences}}
<li class="iut difference"><code>{{.}}</code></li>
{{- end}}
{{- if .MoreDifferences}}
<li>and {{.MoreDifferences}} more differences (conform matrix --format json has them all)</li>
{{- end}}
<li>repro: <code class="iut repro">{{.Repro}}</code></li>
</ul></li>
{{- end}}
</ol>
{{- end}}
</section>
{{end}}
<p class="legend">Statuses: PASS (conformance passed), FAIL, SCHEMA_VIOLATION, PROTOCOL_ERROR, TIMEOUT, CRASH, XFAIL (failed as the
implementation's expected-failure list says), XPASS, INVALID, NOT_RUN; — the implementation's report has no such vector.
Informational vectors never fail certification. Regenerate: <code>conform matrix</code> (README "Certification matrix").</p>
</body>
</html>
`))
