package report

import (
	"html/template"
	"io"
	"sync"

	"github.com/conform-kit/conform/internal/result"
)

// MatrixHTML writes m as one self-contained HTML page with every
// implementation's page inside it ([MatrixHTMLWith] with no pages).
func MatrixHTML(w io.Writer, m *result.Matrix) error {
	return MatrixHTMLWith(w, m, MatrixOptions{})
}

// MatrixHTMLWith writes the overview of m as one self-contained HTML page:
// inline CSS, no script, no external asset but the page's own badge beside
// it (a Content-Security-Policy meta element allows nothing else), and the
// same bytes for the same matrix (each run's date and kit come from its
// report, never from the clock). It has the implementations, best first
// (by verdict, then fewest failures), with a stacked bar of their vectors
// and their verdict, certified classes and counts per section, each name
// linked to its page, and per section a table of
// vectors by implementations (each cell the conformance status, linked to
// the cause on the implementation's page that explains it; ≈ marks a pass
// whose bytes differ where the protocol allows; informational cells are
// never red). With o.Pages "" the pages follow inside it. Every string that
// came from a report passes html/template's contextual escaping after
// [inert] has spelled its control, bidi and other format characters as
// visible escapes; only http and https URLs become links.
func MatrixHTMLWith(w io.Writer, m *result.Matrix, o MatrixOptions) error {
	return matrixHTML().ExecuteTemplate(w, "overview", newMatrixView(m, o, ".html"))
}

// MatrixPageHTML writes the page of the implementation called name as one
// self-contained HTML page, as [MatrixHTMLWith] writes the overview; its
// content is [MatrixPageMarkdown]'s, the allowed differences and each
// vector's findings folded (details elements). Errors: USAGE when m has no
// implementation of that name.
func MatrixPageHTML(w io.Writer, m *result.Matrix, name string, o MatrixOptions) error {
	if err := checkName(m, name); err != nil {
		return err
	}
	return matrixHTML().ExecuteTemplate(w, "page", newImplView(m, name, o, ".html"))
}

// matrixHTML is the pages' template, parsed on first use: parsing it in
// the package's initialisation cost every conform process about 2 % of a
// one-vector run's CPU (bench/README.md, issue 25 item 2).
var matrixHTML = sync.OnceValue(func() *template.Template {
	return template.Must(template.New("matrix").Funcs(template.FuncMap{
		"add": func(a, b int) int { return a + b },
	}).Parse(`{{define "head"}}<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'; img-src 'self'">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>{{.}}</title>
<style>
body { font: 14px/1.4 system-ui, sans-serif; margin: 1.5em; color: #1b1b1b; background: #fff; max-width: 90em; }
h1 { font-size: 1.5em; } h2 { font-size: 1.25em; margin-top: 2em; } h3 { font-size: 1.1em; margin-top: 1.6em; } h4 { font-size: 1em; margin: 1.2em 0 0.4em; }
code, .mono { font-family: ui-monospace, SFMono-Regular, Menlo, Consolas, monospace; font-size: 12px; }
table { border-collapse: collapse; margin: 0.5em 0; }
th, td { border: 1px solid #c8c8c8; padding: 2px 6px; text-align: left; vertical-align: top; }
thead th { background: #f0f0f0; position: sticky; top: 0; }
td.num { text-align: right; }
td.cell { white-space: nowrap; font-size: 12px; }
td.cell a { color: inherit; }
.st-pass { background: #e3f4e1; } .st-xfail { background: #fff3c4; } .st-fail { background: #fbd7d4; }
.st-info { background: #e6eef8; } .st-skip { background: #f3f5f7; color: #555; } .st-notrun, .st-none, .st-other { background: #ececec; }
.allowed { color: #777; font-size: 11px; }
.verdict-CERTIFIED { background: #e3f4e1; } .verdict-PASSED_WITH_EXPECTED_FAILURES, .verdict-PASSED_PARTIAL { background: #fff3c4; }
.verdict-NOT_CERTIFIED, .verdict-NOTHING_PASSED, .verdict-INVALID_SUITE_INPUT, .verdict-INTERRUPTED { background: #fbd7d4; }
.counts { color: #333; font-size: 12px; }
.iut { unicode-bidi: isolate; overflow-wrap: anywhere; }
ol.causes > li { margin-bottom: 0.8em; }
ol.causes ul { margin: 0.2em 0; padding-left: 1.2em; }
.vectors code { white-space: nowrap; }
details > summary { cursor: pointer; color: #444; }
.quiet { color: #555; }
.legend { color: #444; }
.bar { display: flex; width: 12em; height: 0.9em; border: 1px solid #999; background: #fff; }
.bar > span { display: block; height: 100%; }
.bar-pass { background: #2e7d32; } .bar-xfail { background: #e0a800; } .bar-fail { background: #c62828; }
.bar-skip { background: #b0bec5; } .bar-notrun { background: #616161; }
img.badge { vertical-align: middle; }
.provenance { color: #555; font-size: 12px; }
tr.not-judged { color: #666; } .certifies { font-weight: 600; }
table.sides td { max-width: 40em; overflow-wrap: anywhere; }
</style>
</head>
<body>
{{end}}

{{define "impl"}}
<section class="implementation" id="{{.Anchor}}" data-name="{{.Name}}">
<h2 class="impl-name iut">{{.Name}}</h2>
{{- if .Badge}}
<p class="badge"><img class="badge" src="{{.Badge}}" alt="conform badge of {{.Name}}"> Markdown to copy: <code class="badge-markdown">{{.BadgeMarkdown}}</code></p>
{{- end}}
<p><span class="iut impl-text">{{.Implementation}}</span>{{if .Version}} · version <span class="iut impl-version">{{.Version}}</span>{{end}}{{if .Language}} · language <span class="iut impl-language">{{.Language}}</span>{{end}}{{if .Source}} · <a class="impl-source" href="{{.Source}}">source</a>{{end}}{{if .Homepage}} · <a class="impl-homepage" href="{{.Homepage}}">homepage</a>{{end}}{{if .Issues}} · <a class="impl-issues" href="{{.Issues}}">issues</a>{{end}}{{if .Artifact}} · artifact {{if .ArtifactURI}}<a class="impl-artifact" href="{{.ArtifactURI}}">{{.Artifact}}</a>{{else}}<span class="iut">{{.Artifact}}</span>{{end}} <code class="iut artifact-digest">{{.ArtifactDigest}}</code>{{end}}</p>
{{- if .Verdict}}
<p>Verdict: <span class="impl-verdict verdict-{{.Verdict}}">{{.Verdict}}</span>{{if gt (len .Sections) 1}} (the worst of its {{len .Sections}} runs){{end}}. Suite <code class="iut">{{.SuiteName}}</code>, digest <code>{{.SuiteDigest}}</code>.{{if .Overview}} All implementations: <a href="{{.Overview}}">the matrix</a>.{{end}}</p>
{{- end}}
{{- range .Sections}}
<div class="impl-section" data-section="{{.Key}}">
<h3>{{.Title}}: <span class="section-verdict verdict-{{.Verdict}}">{{.Verdict}}</span>{{if .Certifies}} <span class="certifies">[{{.Certifies}}]</span>{{end}}</h3>
{{- if .Classes}}
<p>Certifies {{if .Certifies}}<span class="certifies">[{{.Certifies}}]</span>{{else}}nothing{{end}}. Compliance per conformance class (judged: claimed by the profile, derived from what the implementation declared, or always judged):</p>
<table class="classes-table">
<thead><tr><th>class</th><th>judged</th><th>passed</th><th>failed</th><th>expected failures</th><th>skipped</th><th>not claimed</th><th>of</th></tr></thead>
<tbody>
{{- range .Classes}}
<tr data-class="{{.Name}}" class="{{if .Judged}}judged{{else}}not-judged{{end}}"><th><code>{{.Name}}</code>{{if .Title}} <span class="iut class-title">{{.Title}}</span>{{end}}{{if .URL}} (<a class="class-spec" href="{{.URL}}">specification</a>){{end}}</th><td>{{if .Judged}}yes{{else}}no{{end}} ({{.How}}){{if .Contradicted}}, claim contradicted{{end}}</td><td class="num" data-count="passed">{{.Passed}}</td><td class="num" data-count="failed">{{.Failed}}</td><td class="num" data-count="xfail">{{.XFail}}</td><td class="num" data-count="skipped">{{.Skipped}}</td><td class="num" data-count="not_claimed">{{.NotClaimed}}</td><td class="num" data-count="total">{{.Total}}</td></tr>
{{- end}}
</tbody>
</table>
{{- end}}
<table class="counts-table">
<thead><tr><th>level</th><th>passed</th><th>expected failures</th><th>failed</th><th>skipped</th><th>not run</th><th>of</th></tr></thead>
<tbody>
{{- range .Levels}}
{{- if .Informational}}
<tr data-level="informational"><th>informational (never decides)</th><td class="num" data-count="passed">{{.Passed}}</td><td class="num" data-count="xfail">—</td><td class="num" data-count="failed">{{.Failed}}</td><td class="num" data-count="skipped">{{.Skipped}}</td><td class="num" data-count="not_run">{{.NotRun}}</td><td class="num" data-count="total">{{.Total}}</td></tr>
{{- else}}
<tr data-level="{{.Level}}"><th>{{.Level}}</th><td class="num" data-count="passed">{{.Passed}}</td><td class="num" data-count="xfail">{{.XFail}}</td><td class="num" data-count="failed">{{add .Failed .XPass}}</td><td class="num" data-count="skipped">{{.Skipped}}</td><td class="num" data-count="not_run">{{.NotRun}}</td><td class="num" data-count="total">{{.Total}}</td></tr>
{{- end}}
{{- end}}
</tbody>
</table>
<p class="counts">Exact parity {{.Parity}}; run: <code class="iut">{{.Invocation}}</code>{{if .Badge}}; badge: <code>{{.Badge}}</code>{{end}}.</p>
{{- if or .Date .Kit}}
<p class="provenance">Run{{if .Date}} on <time>{{.Date}}</time>{{end}}{{if .Kit}} by conform <code class="iut">{{.Kit}}</code>{{end}} against suite digest <code>{{$.SuiteDigest}}</code>.</p>
{{- end}}
{{- range .Notes}}
<p class="iut note">{{.}}</p>
{{- end}}
{{- range .Groups}}
{{- if .Quiet}}
<details class="cause-group" data-kind="{{.Kind}}">
<summary>{{.Title}}: {{.Counts}}</summary>
{{- else}}
<div class="cause-group" data-kind="{{.Kind}}">
<h4>{{.Title}}{{if .Causes}}: {{.Counts}}{{end}}</h4>
{{- end}}
{{- if not .Causes}}
<p class="empty">{{.Empty}}</p>
{{- else}}
<ol class="causes">
{{- range .Causes}}
<li class="cause{{if .Quiet}} quiet{{end}}" id="{{.ID}}" data-code="{{.Code}}" data-pointer="{{.Pointer}}"><code>{{.Code}}</code>{{if .Pointer}} at <code class="iut">{{.Pointer}}</code>{{end}}{{if and .Status (ne .Status .Code)}} ({{.Status}}){{end}}{{if .Class}} of class <code>{{.Class}}</code>{{end}}{{if .Doc}} (<a class="doc" href="{{.Doc}}">what it means</a>){{end}}, {{len .Vectors}} {{if eq (len .Vectors) 1}}vector{{else}}vectors{{end}}:
<span class="vectors">{{range $i, $v := .Vectors}}{{if $i}}, {{end}}<code class="vector {{$v.Class}}" data-status="{{$v.Status}}">{{$v.ID}}</code>{{end}}</span>
<ul>
{{- if .Message}}
<li class="iut finding">{{.Message}}{{if .OtherMessages}} (and {{.OtherMessages}} other {{if eq .OtherMessages 1}}wording{{else}}wordings{{end}}){{end}}</li>
{{- end}}
{{- range .Reasons}}
<li class="iut reason">expected failure: {{.}}</li>
{{- end}}
<li>repro: <code class="iut repro">{{.Repro}}</code></li>
</ul>
<details class="per-vector"><summary>each vector's findings and differences</summary>
<ul>
{{- range .Vectors}}
<li><code>{{.ID}}</code> ({{.Level}}): {{.Status}}{{if .File}} · <a class="vector-file" href="{{.File}}">{{.Path}}</a>{{else if .Path}} · <code class="iut">{{.Path}}</code>{{end}}{{if .Source}} · rests on <span class="iut source">{{.Source}}</span>{{end}}{{if .Spec}} (<a class="spec" href="{{.Spec}}">specification</a>){{end}}
{{- if .Sides}}
<table class="sides">
<thead><tr><th>where</th><th>difference</th><th>golden</th><th>actual</th></tr></thead>
<tbody>
{{- range .Sides}}
<tr><td><code class="iut">{{.Where}}</code></td><td>{{.Kind}}</td><td><code class="iut golden">{{.Golden}}</code></td><td><code class="iut actual">{{.Actual}}</code></td></tr>
{{- end}}
</tbody>
</table>
{{- end}}
{{- if or .Findings .Differences}}
<ul>
{{- range .Findings}}
<li class="iut">{{.}}</li>
{{- end}}
{{- range .Differences}}
<li class="iut"><code>{{.}}</code></li>
{{- end}}
{{- if .MoreDifferences}}
<li>and {{.MoreDifferences}} more differences (conform matrix --format json has them all)</li>
{{- end}}
</ul>
{{- end}}
</li>
{{- end}}
</ul>
</details>
</li>
{{- end}}
</ol>
{{- end}}
{{- if .Quiet}}
</details>
{{- else}}
</div>
{{- end}}
{{- end}}
</div>
{{- end}}
{{- if .History}}
<h3>History</h3>
<p>From saved reports, oldest first.</p>
<table class="history">
<thead><tr><th>version</th><th>run</th><th>suite</th><th>verdict</th><th>passed</th><th>failed</th><th>xfail</th><th>skipped</th><th>not run</th></tr></thead>
<tbody>
{{- range .History}}
<tr><th class="iut">{{.Version}}</th><td>{{if .Date}}{{.Date}}{{else}}—{{end}}</td><td>{{.Suite}}</td><td class="verdict-{{.Verdict}}">{{.Verdict}}{{if .Certifies}} <span class="certifies">[{{.Certifies}}]</span>{{end}}</td><td class="num">{{.Passed}}</td><td class="num">{{.Failed}}</td><td class="num">{{.XFail}}</td><td class="num">{{.Skipped}}</td><td class="num">{{.NotRun}}</td></tr>
{{- end}}
</tbody>
</table>
{{- end}}
{{- if .Trend}}
<h3>Releases</h3>
<table class="trend">
<thead><tr><th>release</th><th>released</th><th>suite</th><th>verdict</th><th>passed</th><th>failed</th><th>xfail</th><th>informational</th><th>not run</th></tr></thead>
<tbody>
{{- range .Trend}}
<tr><th class="iut">{{.Label}}</th><td>{{if .Released}}{{.Released}}{{else}}—{{end}}</td><td>{{.Suite}}</td><td class="verdict-{{.Verdict}}">{{.Verdict}}</td><td class="num">{{.Passed}}</td><td class="num">{{add .Failed .XPass}}</td><td class="num">{{.XFail}}</td><td class="num">{{.Informational}}</td><td class="num">{{.NotRun}}</td></tr>
{{- end}}
</tbody>
</table>
{{- end}}
</section>
{{end}}

{{define "legend"}}
<p class="legend">Statuses: PASS (conformance passed; ≈: the bytes differ from the golden file where the protocol allows, exact
parity only), FAIL, SCHEMA_VIOLATION, PROTOCOL_ERROR, TIMEOUT, CRASH, XFAIL (failed as the implementation's expected-failure list
says), XPASS, INVALID, NOT_RUN, SKIPPED (the vector does not apply: its class was not claimed, or the implementation does not meet
its requirement; never a failure); — the implementation's report has no such vector. Informational vectors (blue when they differ)
never decide a verdict. Text from implementations is shown with control and bidi characters spelled as <code>\uXXXX</code>.
Regenerate: <code>conform matrix</code> (docs/certification.md "Certification matrix").</p>
</body>
</html>
{{end}}

{{define "page"}}{{template "head" (printf "conform: %s" .Name)}}
<h1>conform certification: <span class="iut">{{.Name}}</span></h1>
{{template "impl" .}}
{{template "legend"}}{{end}}

{{define "overview"}}{{template "head" "conform certification matrix"}}
<h1>conform certification matrix</h1>
<p>Suite <code class="iut" id="suite-name">{{.Suite.Name}}</code>, digest <code id="suite-digest">{{.Suite.Digest}}</code>.
Each implementation's page has its verdict and counts by level, its failures grouped by cause (finding, expected-failure reason,
repro line) and, folded, the differences the protocol allows. In the tables below a cell is the conformance status of one
implementation on one vector, linked to the cause that explains it.</p>

<h2 id="implementations">Implementations</h2>
<p>Best first: by verdict, then fewest failures. Each bar is an implementation's required and recommended vectors:
<span class="key bar-pass">&nbsp;&nbsp;</span> passed, <span class="key bar-xfail">&nbsp;&nbsp;</span> expected failures,
<span class="key bar-fail">&nbsp;&nbsp;</span> failed, <span class="key bar-skip">&nbsp;&nbsp;</span> skipped (do not apply),
<span class="key bar-notrun">&nbsp;&nbsp;</span> not run.</p>
<table id="implementations-table">
<thead><tr><th>name</th><th>implementation (version)</th><th>required and recommended vectors</th>{{range .Sections}}<th>{{.Title}}</th>{{end}}</tr></thead>
<tbody>
{{- range .Implementations}}
<tr><th class="iut"><a href="{{.Link}}">{{.Name}}</a></th><td class="iut">{{.Implementation}}</td><td><div class="bar" title="{{range $i, $b := .Bar}}{{if $i}}, {{end}}{{$b.N}} {{$b.Label}}{{end}}">{{range .Bar}}<span class="{{.Class}}" style="width: {{.Percent}}%"></span>{{end}}</div></td>{{range .Cells}}{{if .Verdict}}<td class="verdict-{{.Verdict}}">{{.Verdict}}{{if .Certifies}} <span class="certifies">[{{.Certifies}}]</span>{{end}}<br><span class="counts">{{.Counts}}</span></td>{{else}}<td class="st-none">—</td>{{end}}{{end}}</tr>
{{- end}}
</tbody>
</table>
{{range .Sections}}
<section id="section-{{.Key}}" class="matrix-section">
<h2>{{.Title}}</h2>
<table class="matrix" data-section="{{.Key}}">
<thead>
<tr><th>vector</th><th>level</th>{{range .Columns}}<th class="iut impl"><a href="{{.Link}}">{{.Name}}</a></th>{{end}}</tr>
</thead>
<tbody>
{{- range .Rows}}
<tr class="vector-row"><th class="mono">{{.ID}}</th><td>{{.Level}}</td>
{{- range .Cells}}<td class="cell {{.Class}}">{{if .Link}}<a href="{{.Link}}">{{.Status}}</a>{{else if .Status}}{{.Status}}{{else}}—{{end}}{{if .Allowed}} <span class="allowed" title="the bytes differ from the golden file where the protocol allows">≈</span>{{end}}</td>{{end}}</tr>
{{- end}}
</tbody>
</table>
</section>
{{end}}
{{- if .Inline}}
{{- range .Implementations}}{{template "impl" .}}{{end}}
{{- end}}
{{template "legend"}}{{end}}
`))
})
