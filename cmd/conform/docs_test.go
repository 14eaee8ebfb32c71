package main

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"
	"unicode"
)

// The README and the pages of docs/ are checked the way a reader uses them,
// offline and in seconds, so that a moved section, a renamed flag or a
// deleted script breaks a test instead of a reader's first try. "Still
// works" means here:
//
//   - Links. Every Markdown link [text](target) outside code in README.md and
//     docs/**/*.md whose target is relative names a file or directory of the
//     repository, and its #fragment names a heading of that page under
//     GitHub's rules (lower case; letters, digits, '-' and '_' kept, spaces
//     as '-', everything else dropped; a repeated heading gets -1, -2, ...)
//     or an <a id> / <a name> in it. A link to a heading of the same page
//     (#fragment alone) likewise. Absolute URLs (http:, https:, mailto:) are
//     not fetched: that needs the network.
//   - Citations. A section named in prose anywhere in the repository's
//     sources and docs (README "Containment", docs/running.md "Bounds",
//     README \"Verdicts\" in a Go string) names a heading of that page, or
//     the start of one ("Bounds" for "Bounds (flags of `conform run`)").
//     A bare README is the nearest README.md above the citing file (not the
//     file itself): the top one for the kit's sources. A citation may be
//     wrapped after the page's name.
//   - The index. README's "Documentation" section has one list item per
//     page of docs/*.md, each led by a link to it, and no other items.
//   - Commands. Each line of a fenced sh, bash, shell or console block is
//     split as a shell splits it (quotes, a trailing comment, a trailing
//     backslash, the operators && || ; | & and parentheses; redirections
//     and leading VAR=value assignments are dropped), and each simple
//     command is checked by what it runs:
//     conform (conform, bin/conform, any path ending /conform, or go run
//     ./cmd/conform): the subcommand is one `conform --help` lists, and its
//     flags (those before the first operand; anywhere for compat and drift,
//     which parse flags between operands) are parsed by the subcommand's own
//     flag set with their values: the test runs the subcommand in process
//     with those flags and -h appended, which parses them and stops before
//     anything runs, and wants exit status 0. A flag after an operand of
//     another subcommand is reported (it would be taken as an operand).
//     version takes no arguments. What follows -- is the IUT's command.
//     go build, install, test, vet, list and run: every package pattern
//     (./x, ./x/..., the module path) names a directory, and go test -run
//     TestX names a test function of those packages.
//     A program of the repository (scripts/matrix.sh, impl/x/install.sh,
//     .ci/run, bench/run.sh) exists and is executable; given to bash, sh,
//     python3 or node, it exists.
//     Every word that names a path under a top-level entry of the
//     repository (impl/claude-code, schemas/control.v1.json) names something
//     that exists, except the values of output flags (--out, --json-out,
//     --pages) and words with $, *, ?, [, { or <.
//     Well-known tools (externalTools) are not checked further, and any other
//     command fails the test, so a new kind of command gets a decision here.
//   - The GitHub Action. In a yaml block, every key under with: of a step
//     that uses conform-kit/conform@... is an input of action.yml, and every
//     steps.conform.outputs.X is one of its outputs.
//
// What is not checked: that a command succeeds, which needs the network,
// the real CLI or minutes of runs. TestTutorial and TestWritingASuite run
// the blocks of their pages for real, and CI runs the README's two
// commands (stages 20-reference and 80-tests).

// docPage is a Markdown page: its path relative to the repository root
// (slash-separated) and its text.
type docPage struct {
	path string
	text string
}

// docRepo answers the questions the checks ask about the repository.
type docRepo struct {
	root     string
	top      map[string]bool         // top-level entries a path may start with
	outlines map[string]*pageOutline // by page path, read once
	commands map[string]bool         // public conform subcommands (conform --help)
	flags    map[string]map[string]bool
	flagErrs map[string]string
}

// pageOutline is what links and citations can point to in a page.
type pageOutline struct {
	anchors  map[string]bool
	headings []string // heading texts as rendered (code marks, emphasis and link targets dropped)
}

// flagsAnywhere are the subcommands whose flags may follow their operands
// (cmdCompat and cmdDrift parse flags between operands); TestDocCheckers
// checks that they do.
var flagsAnywhere = map[string]bool{"compat": true, "drift": true}

// outputFlags name files or directories a command writes: their values
// need not exist yet.
var outputFlags = map[string]bool{"out": true, "json-out": true, "pages": true, "o": true}

// externalTools are commands the pages show that are not the kit's: they
// are not checked beyond the paths their words name.
var externalTools = map[string]bool{
	"curl": true, "grep": true, "tar": true, "sha256sum": true, "cd": true, "cp": true, "mkdir": true,
	"export": true, "git": true, "npm": true, "npx": true, "cargo": true, "mvn": true, "echo": true,
	"cat": true, "diff": true, "ls": true, "rm": true, "mv": true, "jq": true, "xmllint": true,
	"chmod": true, "test": true, "true": true, "printf": true, "sed": true, "head": true, "tail": true,
	"sort": true, "wc": true, "python3": true, "node": true, "bash": true, "sh": true, "pip": true,
	"sudo": true, "apt-get": true, "docker": true, "env": true, "time": true, "set": true, "gofmt": true,
	"ssh-keygen": true, "cosign": true,
}

func newDocRepo(t *testing.T, root string) *docRepo {
	t.Helper()
	r := &docRepo{
		root: root, top: map[string]bool{}, outlines: map[string]*pageOutline{},
		commands: map[string]bool{}, flags: map[string]map[string]bool{}, flagErrs: map[string]string{},
	}
	ignored := map[string]bool{".git": true}
	if gi, err := os.ReadFile(filepath.Join(root, ".gitignore")); err == nil {
		for _, l := range strings.Split(string(gi), "\n") {
			if n, ok := strings.CutPrefix(strings.TrimSpace(l), "/"); ok && !strings.Contains(strings.TrimSuffix(n, "/"), "/") {
				ignored[strings.TrimSuffix(n, "/")] = true
			}
		}
	}
	entries, err := os.ReadDir(root)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		if !ignored[e.Name()] {
			r.top[e.Name()] = true
		}
	}
	if !r.top["README.md"] || !r.top["cmd"] {
		t.Fatalf("%s does not look like the repository root", root)
	}
	inList := false
	for _, l := range strings.Split(usage, "\n") {
		if l == "commands:" {
			inList = true
			continue
		}
		if f := strings.Fields(l); inList && len(f) > 1 && strings.HasPrefix(l, "  ") {
			r.commands[f[0]] = true
		} else if inList && strings.TrimSpace(l) == "" && len(r.commands) > 0 {
			inList = false
		}
	}
	if len(r.commands) < 10 {
		t.Fatalf("found %d subcommands in conform's usage text: the parser is broken", len(r.commands))
	}
	return r
}

// docPages returns README.md and every Markdown page under docs/.
func docPages(t *testing.T, root string) []docPage {
	t.Helper()
	var pages []docPage
	add := func(rel string) {
		b, err := os.ReadFile(filepath.Join(root, filepath.FromSlash(rel)))
		if err != nil {
			t.Fatal(err)
		}
		pages = append(pages, docPage{path: rel, text: string(b)})
	}
	add("README.md")
	err := filepath.WalkDir(filepath.Join(root, "docs"), func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if !d.IsDir() && strings.HasSuffix(p, ".md") {
			rel, _ := filepath.Rel(root, p)
			add(filepath.ToSlash(rel))
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(pages) < 10 {
		t.Fatalf("found %d pages: want README.md and docs/", len(pages))
	}
	return pages
}

// TestDocLinks: every relative link of README.md and docs/ resolves, with
// its #fragment (see the comment above docPage for the rules).
func TestDocLinks(t *testing.T) {
	t.Parallel()
	root := repoRoot(t)
	r := newDocRepo(t, root)
	n := 0
	for _, p := range docPages(t, root) {
		for _, prob := range r.checkLinks(p, &n) {
			t.Error(prob)
		}
	}
	if n < 50 {
		t.Errorf("checked %d relative links: the link parser is broken", n)
	}
}

// TestDocCitations: every section cited in prose (README "Containment",
// docs/running.md "Bounds") in the repository's sources and pages is a
// heading of that page.
func TestDocCitations(t *testing.T) {
	t.Parallel()
	root := repoRoot(t)
	r := newDocRepo(t, root)
	n := 0
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			switch d.Name() {
			case ".git", "node_modules", "target", "dist", "out", "browser-out", "__pycache__", ".venv", "vendor", "bin":
				return filepath.SkipDir
			}
			return nil
		}
		switch filepath.Ext(p) {
		case ".go", ".md", ".sh", ".txtar", ".py", ".ts", ".rs", ".java", ".yml", ".yaml", ".html":
		default:
			return nil
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, p)
		if filepath.Base(p) == "docs_test.go" {
			return nil // its examples and test input cite pages on purpose
		}
		for _, prob := range r.checkCitations(filepath.ToSlash(rel), string(b), &n) {
			t.Error(prob)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if n < 20 {
		t.Errorf("checked %d citations: the citation parser is broken", n)
	}
}

// TestDocIndex: README's "Documentation" section lists every docs/*.md
// page, one line each.
func TestDocIndex(t *testing.T) {
	t.Parallel()
	root := repoRoot(t)
	readme, err := os.ReadFile(filepath.Join(root, "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	files, err := filepath.Glob(filepath.Join(root, "docs", "*.md"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no docs/*.md: %v", err)
	}
	var pages []string
	for _, f := range files {
		pages = append(pages, "docs/"+filepath.Base(f))
	}
	for _, prob := range checkIndex(string(readme), pages) {
		t.Error(prob)
	}
}

// TestDocCommands: every command of the fenced shell blocks of README.md
// and docs/ names a subcommand, flags, packages, scripts and paths that
// exist, and every use of the GitHub Action names its inputs and outputs.
func TestDocCommands(t *testing.T) {
	t.Parallel()
	root := repoRoot(t)
	r := newDocRepo(t, root)
	action := actionSpec(t, root)
	n := 0
	for _, p := range docPages(t, root) {
		probs, k := r.checkCommands(t, p)
		n += k
		for _, prob := range probs {
			t.Error(prob)
		}
		for _, prob := range checkActionUses(p, action) {
			t.Error(prob)
		}
	}
	if n < 40 {
		t.Errorf("checked %d commands: the block parser is broken", n)
	}
}

// TestReadmeStartsWithTwoCommands: the README's first block is the two
// commands for a fresh machine, the main job (go run ./cmd/conform run)
// and the tests, and CI runs that test command as written (a line of a
// .ci/stages script), so the README and CI cannot drift apart.
func TestReadmeStartsWithTwoCommands(t *testing.T) {
	t.Parallel()
	root := repoRoot(t)
	readme, err := os.ReadFile(filepath.Join(root, "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	blocks, _ := mdSplit(string(readme))
	if len(blocks) == 0 || !isShellBlock(blocks[0]) {
		t.Fatal("README.md: the first fenced block is not a shell block")
	}
	cmds, _ := blockCommands(blocks[0])
	if len(cmds) != 2 {
		t.Fatalf("README.md: the first block has %d commands, want 2 (the main job, the tests)", len(cmds))
	}
	if got := strings.Join(cmds[0], " "); !strings.HasPrefix(got, "go run ./cmd/conform run") {
		t.Errorf("README.md: the first command is %q, want the main job, go run ./cmd/conform run", got)
	}
	test := strings.Join(cmds[1], " ")
	stages, err := filepath.Glob(filepath.Join(root, ".ci", "stages", "*.sh"))
	if err != nil || len(stages) == 0 {
		t.Fatalf("no CI stages: %v", err)
	}
	for _, s := range stages {
		b, err := os.ReadFile(s)
		if err != nil {
			t.Fatal(err)
		}
		for _, l := range strings.Split(string(b), "\n") {
			if strings.TrimSpace(l) == test {
				return
			}
		}
	}
	t.Errorf("README.md's test command %q is no line of a .ci/stages script: CI does not run what the README says", test)
}

// TestDocCheckers: each check above reports what it must, on a page made
// broken on purpose (so that the tests above can fail).
func TestDocCheckers(t *testing.T) {
	t.Parallel()
	root := repoRoot(t)
	r := newDocRepo(t, root)
	bad := docPage{path: "docs/bad.md", text: strings.Join([]string{
		"# Bad page",
		"## Twice",
		"## Twice",
		"[gone](nothing-here.md) [anchor](../README.md#no-such-heading) [self](#twice-1) [self2](#twice-2)",
		"[ok](running.md#bounds-flags-of-conform-run) `[in code](nowhere.md)`",
		"```sh",
		"go run ./cmd/conform run --no-such-flag",
		"conform nosuch",
		"conform run --timeout banana",
		"conform validate vectors/v1/agent --version 2",
		"conform version extra",
		"scripts/no-such.sh --x",
		"impl/claude-code/install.sh && cat impl/claude-kode/profile.json",
		"go test ./no/such/...",
		"go test ./cmd/conform -run TestNothingLikeThis",
		"frobnicate --all",
		"conform compat schemas/control.v1.json schemas/control.v2.json --direction reader",
		"```",
		"```yaml",
		"- uses: conform-kit/conform@v0.1.0",
		"  with: {command: ./x, no-such-input: 1}",
		"- run: echo ${{ steps.conform.outputs.nothing }}",
		"```",
	}, "\n")}
	n := 0
	links := r.checkLinks(bad, &n)
	cmds, _ := r.checkCommands(t, bad)
	uses := checkActionUses(bad, actionSpec(t, root))
	cites := r.checkCitations("runner/x.go", "// README \"No such section\" and docs/running.md \"Bounds\" and docs/nothing.md \"X\"\n// and docs/running.md\n// \"Wrapped and gone\"", &n)
	index := checkIndex("# x\n\n## Documentation\n\n- [a](docs/a.md): a\n- [c](docs/c.md): c\n- no link here\n", []string{"docs/a.md", "docs/b.md"})
	want := map[string][]string{
		"links": {"nothing-here.md", "#no-such-heading", "#twice-2"},
		"commands": {"--no-such-flag", `"nosuch"`, "banana", "--version 2 after", "version takes no", "scripts/no-such.sh",
			"impl/claude-kode", "./no/such/...", "TestNothingLikeThis", `"frobnicate"`},
		"uses":      {"no-such-input", "output nothing"},
		"citations": {`"No such section"`, "docs/nothing.md", `"Wrapped and gone"`},
		"index":     {"docs/b.md", "docs/c.md", "no link here"},
	}
	got := map[string][]string{"links": links, "commands": cmds, "uses": uses, "citations": cites, "index": index}
	for kind, subs := range want {
		all := strings.Join(got[kind], "\n")
		for _, s := range subs {
			if !strings.Contains(all, s) {
				t.Errorf("%s: no problem mentions %q; got:\n%s", kind, s, all)
			}
		}
		if len(got[kind]) != len(subs) {
			t.Errorf("%s: %d problems, want %d (one per broken item):\n%s", kind, len(got[kind]), len(subs), all)
		}
	}
	// compat and drift take flags after their operands: a -h there is
	// parsed, not run.
	for sub := range flagsAnywhere {
		var out, errb bytes.Buffer
		if code := run(context.Background(), []string{sub, "operand", "-h"}, strings.NewReader(""), &out, &errb); code != 0 {
			t.Errorf("conform %s operand -h: exit %d (%s): flagsAnywhere is wrong", sub, code, errb.String())
		}
	}
}

func repoRoot(t *testing.T) string {
	t.Helper()
	root, err := filepath.Abs(filepath.Join("..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	return root
}

// ---- Markdown

// mdFence reports whether line opens or closes a fenced block, and its
// info string.
func mdFence(line string) (info string, ok bool) {
	if s, found := strings.CutPrefix(line, "```"); found {
		return strings.TrimSpace(s), true
	}
	return "", false
}

// mdBlock is a fenced block: its info string's fields and its lines, with
// the line number (from 1) of its first line.
type mdBlock struct {
	info  []string
	lines []string
	line  int
}

// mdSplit returns the fenced blocks of text and its other lines (prose),
// each prose line with its number (from 1).
func mdSplit(text string) (blocks []mdBlock, prose map[int]string) {
	prose = map[int]string{}
	var cur *mdBlock
	for i, line := range strings.Split(text, "\n") {
		info, fence := mdFence(line)
		switch {
		case fence && cur == nil:
			cur = &mdBlock{info: strings.Fields(info), line: i + 2}
		case fence:
			blocks = append(blocks, *cur)
			cur = nil
		case cur != nil:
			cur.lines = append(cur.lines, line)
		default:
			prose[i+1] = line
		}
	}
	if cur != nil {
		blocks = append(blocks, *cur)
	}
	return blocks, prose
}

// stripCode removes the code spans of a prose line: text between two runs
// of backticks of the same length.
func stripCode(line string) string {
	var b strings.Builder
	for i := 0; i < len(line); {
		if line[i] != '`' {
			b.WriteByte(line[i])
			i++
			continue
		}
		n := 0
		for i+n < len(line) && line[i+n] == '`' {
			n++
		}
		ticks := line[i : i+n]
		rest := line[i+n:]
		end := -1
		for j := 0; j+n <= len(rest); j++ {
			if rest[j:j+n] == ticks && (j+n == len(rest) || rest[j+n] != '`') && (j == 0 || rest[j-1] != '`') {
				end = j
				break
			}
		}
		if end < 0 { // no closing run: the ticks are literal
			b.WriteString(ticks)
			i += n
			continue
		}
		i += n + end + n
	}
	return b.String()
}

var (
	mdHeading = regexp.MustCompile(`^(#{1,6})\s+(.*?)\s*#*\s*$`)
	mdLink    = regexp.MustCompile(`\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)`)
	mdRefDef  = regexp.MustCompile(`^\s{0,3}\[[^\]]+\]:\s*<?(\S+?)>?(?:\s.*)?$`)
	mdInLink  = regexp.MustCompile(`!?\[([^\]]*)\]\([^)]*\)`)
	htmlID    = regexp.MustCompile(`<a\s+(?:id|name)="([^"]+)"`)
)

// headingText is a heading as GitHub renders its text: link targets,
// code marks and emphasis dropped.
func headingText(raw string) string {
	s := mdInLink.ReplaceAllString(raw, "$1")
	s = strings.NewReplacer("`", "", "**", "", "__", "").Replace(s)
	return strings.TrimSpace(s)
}

// githubSlug is the fragment GitHub gives a heading's text: lower case,
// letters, digits, '-' and '_' kept, each space a '-', the rest dropped.
func githubSlug(text string) string {
	var b strings.Builder
	for _, r := range strings.ToLower(text) {
		switch {
		case r == ' ':
			b.WriteByte('-')
		case r == '-' || r == '_' || unicode.IsLetter(r) || unicode.IsDigit(r):
			b.WriteRune(r)
		}
	}
	return b.String()
}

func outlineOf(text string) *pageOutline {
	o := &pageOutline{anchors: map[string]bool{}}
	_, prose := mdSplit(text)
	lines := make([]int, 0, len(prose))
	for n := range prose {
		lines = append(lines, n)
	}
	sort.Ints(lines)
	seen := map[string]int{}
	for _, n := range lines {
		line := prose[n]
		for _, m := range htmlID.FindAllStringSubmatch(line, -1) {
			o.anchors[m[1]] = true
		}
		m := mdHeading.FindStringSubmatch(line)
		if m == nil {
			continue
		}
		text := headingText(m[2])
		o.headings = append(o.headings, text)
		slug := githubSlug(text)
		if k := seen[slug]; k > 0 {
			o.anchors[fmt.Sprintf("%s-%d", slug, k)] = true
		} else {
			o.anchors[slug] = true
		}
		seen[slug]++
	}
	return o
}

// outline returns the outline of the page at rel (slash path from the
// root), or nil when it cannot be read.
func (r *docRepo) outline(rel string) *pageOutline {
	if o, ok := r.outlines[rel]; ok {
		return o
	}
	b, err := os.ReadFile(filepath.Join(r.root, filepath.FromSlash(rel)))
	var o *pageOutline
	if err == nil {
		o = outlineOf(string(b))
	}
	r.outlines[rel] = o
	return o
}

// checkLinks returns a problem for each relative link of p that does not
// resolve; n counts the relative links checked.
func (r *docRepo) checkLinks(p docPage, n *int) []string {
	var probs []string
	_, prose := mdSplit(p.text)
	self := outlineOf(p.text)
	r.outlines[p.path] = self
	lines := make([]int, 0, len(prose))
	for k := range prose {
		lines = append(lines, k)
	}
	sort.Ints(lines)
	for _, ln := range lines {
		line := stripCode(prose[ln])
		var targets []string
		for _, m := range mdLink.FindAllStringSubmatch(line, -1) {
			targets = append(targets, m[1])
		}
		if m := mdRefDef.FindStringSubmatch(line); m != nil {
			targets = append(targets, m[1])
		}
		for _, target := range targets {
			if strings.Contains(target, "://") || strings.HasPrefix(target, "mailto:") {
				continue
			}
			*n++
			file, frag, _ := strings.Cut(target, "#")
			where := fmt.Sprintf("%s:%d: link %s", p.path, ln, target)
			rel := p.path
			if file != "" {
				rel = path.Clean(path.Join(path.Dir(p.path), file))
				if strings.HasPrefix(rel, "../") || rel == ".." {
					probs = append(probs, where+": leaves the repository")
					continue
				}
				fi, err := os.Stat(filepath.Join(r.root, filepath.FromSlash(rel)))
				if err != nil {
					probs = append(probs, fmt.Sprintf("%s: %s does not exist", where, rel))
					continue
				}
				if fi.IsDir() || !strings.HasSuffix(rel, ".md") {
					if frag != "" && fi.IsDir() {
						probs = append(probs, where+": a #fragment on a directory")
					}
					continue
				}
			}
			if frag == "" {
				continue
			}
			o := self
			if rel != p.path {
				o = r.outline(rel)
			}
			if o == nil || !o.anchors[frag] {
				probs = append(probs, fmt.Sprintf("%s: %s has no heading #%s", where, rel, frag))
			}
		}
	}
	return probs
}

// ---- citations

// citation matches a section named in prose: a page (README, or a path
// ending .md) and a quoted heading, the quotes escaped or not.
var citation = regexp.MustCompile(`(?:^|[\s(\[{;,])((?:[\w.-]+/)*(?:README|[\w.-]+\.md)) \\?"([A-Za-z0-9\x60][^"\\\n$]{0,99})\\?"`)

// checkCitations returns a problem for each citation in text (the file at
// rel) that names no heading; n counts those checked.
func (r *docRepo) checkCitations(rel, text string, n *int) []string {
	var probs []string
	lines := strings.Split(text, "\n")
	for i, line := range lines {
		// A citation may be wrapped after the page's name: the next line,
		// without its comment marks, continues this one. Only matches that
		// start on this line are this line's.
		joined := line
		if i+1 < len(lines) {
			joined += " " + strings.TrimLeft(lines[i+1], " \t/#*")
		}
		for _, at := range citation.FindAllStringSubmatchIndex(joined, -1) {
			if at[0] >= len(line) {
				continue
			}
			page, section := joined[at[2]:at[3]], joined[at[4]:at[5]]
			target := r.citedPage(rel, page)
			*n++
			where := fmt.Sprintf("%s:%d: %s %q", rel, i+1, page, section)
			if target == "" {
				probs = append(probs, where+": no such page")
				continue
			}
			o := r.outline(target)
			if o == nil {
				probs = append(probs, fmt.Sprintf("%s: %s cannot be read", where, target))
				continue
			}
			if !citesHeading(o.headings, section) {
				probs = append(probs, fmt.Sprintf("%s: %s has no heading %q", where, target, section))
			}
		}
	}
	return probs
}

// citedPage resolves the page a citation in the file rel names: a bare
// README is the nearest README.md above rel (not rel itself); a path with
// a slash is taken from the root, then from rel's directory; a bare name
// from rel's directory, then the root. "" when no such file exists.
func (r *docRepo) citedPage(rel, page string) string {
	exists := func(p string) bool {
		fi, err := os.Stat(filepath.Join(r.root, filepath.FromSlash(p)))
		return err == nil && !fi.IsDir()
	}
	if page == "README" || page == "README.md" {
		for dir := path.Dir(rel); ; dir = path.Dir(dir) {
			c := path.Join(dir, "README.md")
			if c != rel && exists(c) {
				return c
			}
			if dir == "." || dir == "/" {
				return ""
			}
		}
	}
	cands := []string{page, path.Join(path.Dir(rel), page)}
	if !strings.Contains(page, "/") {
		cands[0], cands[1] = cands[1], cands[0]
	}
	for _, c := range cands {
		if exists(c) {
			return path.Clean(c)
		}
	}
	return ""
}

// citesHeading: section is one of headings, or the start of one up to a
// space, '(', ',' or ':'; a heading's number ("11. Host role") may be left
// out.
func citesHeading(headings []string, section string) bool {
	section = strings.ReplaceAll(section, "`", "")
	for _, h := range headings {
		for _, h := range []string{h, numbered.ReplaceAllString(h, "")} {
			if h == section {
				return true
			}
			if rest, ok := strings.CutPrefix(h, section); ok && strings.IndexByte(" (,:", rest[0]) >= 0 {
				return true
			}
		}
	}
	return false
}

// numbered is the number that leads a numbered heading.
var numbered = regexp.MustCompile(`^[0-9]+\. `)

// ---- the index

// checkIndex: the "Documentation" section of readme has one list item per
// page, led by a link to it, and every list item there leads with a link
// to one of pages (prose around the list is free).
func checkIndex(readme string, pages []string) []string {
	var probs []string
	_, prose := mdSplit(readme)
	lines := make([]int, 0, len(prose))
	for k := range prose {
		lines = append(lines, k)
	}
	sort.Ints(lines)
	in, found := false, false
	listed := map[string]int{}
	leading := regexp.MustCompile(`^\s*[-*]\s+\[[^\]]*\]\(([^)#\s]+)\)`)
	listItem := regexp.MustCompile(`^\s*[-*]\s`)
	for _, ln := range lines {
		line := prose[ln]
		if m := mdHeading.FindStringSubmatch(line); m != nil {
			in = m[1] == "##" && headingText(m[2]) == "Documentation"
			found = found || in
			continue
		}
		if !in || !listItem.MatchString(line) {
			continue // prose around the list
		}
		m := leading.FindStringSubmatch(line)
		if m == nil {
			probs = append(probs, fmt.Sprintf("README.md:%d: a line of the index that does not lead with a link to a docs page: %s", ln, line))
			continue
		}
		listed[m[1]]++
	}
	if !found {
		return append(probs, `README.md has no "## Documentation" section (the index of docs/)`)
	}
	want := map[string]bool{}
	for _, p := range pages {
		want[p] = true
		if listed[p] != 1 {
			probs = append(probs, fmt.Sprintf("README.md index: %s is listed %d times, want once", p, listed[p]))
		}
	}
	for p := range listed {
		if !want[p] {
			probs = append(probs, fmt.Sprintf("README.md index: %s is not a docs/*.md page", p))
		}
	}
	sort.Strings(probs)
	return probs
}

// ---- commands

// shellWords splits one line of shell into simple commands, each a list of
// words, as a shell would: quotes, backslashes, a comment, the operators
// && || ; | & ( ) and redirections (dropped with their targets).
func shellWords(line string) [][]string {
	var cmds [][]string
	var cur []string
	var w strings.Builder
	inWord, redirect := false, false
	endWord := func() {
		if !inWord {
			return
		}
		if redirect {
			redirect = false
		} else {
			cur = append(cur, w.String())
		}
		w.Reset()
		inWord = false
	}
	endCmd := func() {
		endWord()
		if len(cur) > 0 {
			cmds = append(cmds, cur)
		}
		cur = nil
	}
	for i := 0; i < len(line); i++ {
		c := line[i]
		switch {
		case c == ' ' || c == '\t':
			endWord()
		case c == '#' && !inWord:
			endCmd()
			return cmds
		case c == '\'':
			inWord = true
			j := strings.IndexByte(line[i+1:], '\'')
			if j < 0 {
				j = len(line) - i - 1
			}
			w.WriteString(line[i+1 : i+1+j])
			i += j + 1
		case c == '"':
			inWord = true
			for i++; i < len(line) && line[i] != '"'; i++ {
				if line[i] == '\\' && i+1 < len(line) && strings.IndexByte("\"\\$`", line[i+1]) >= 0 {
					i++
				}
				w.WriteByte(line[i])
			}
		case c == '\\' && i+1 < len(line):
			inWord = true
			i++
			w.WriteByte(line[i])
		case c == '&' || c == '|' || c == ';' || c == '(' || c == ')':
			if c == '&' && inWord && strings.HasSuffix(w.String(), ">") { // 2>&1
				w.WriteByte(c)
				continue
			}
			endCmd()
			if i+1 < len(line) && (line[i+1] == '&' || line[i+1] == '|') && c != ';' {
				i++
			}
		case c == '>' || c == '<':
			if inWord && strings.Trim(w.String(), "0123456789") == "" { // 2>
				w.Reset()
				inWord = false
			} else {
				endWord()
			}
			for i+1 < len(line) && (line[i+1] == '>' || line[i+1] == '&') {
				i++
			}
			if i+1 < len(line) && line[i+1] >= '0' && line[i+1] <= '9' && line[i] == '&' {
				i++
				continue
			}
			redirect = true
		default:
			inWord = true
			w.WriteByte(c)
		}
	}
	endCmd()
	return cmds
}

var assignment = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*=`)

// blockCommands returns the simple commands of a shell block, each with
// the line it is on; lines ending in a backslash continue.
func blockCommands(b mdBlock) (cmds [][]string, lines []int) {
	joined, start := "", 0
	for i, l := range b.lines {
		if joined == "" {
			start = b.line + i
		}
		if s, ok := strings.CutSuffix(l, "\\"); ok {
			joined += s + " "
			continue
		}
		joined += l
		for _, c := range shellWords(joined) {
			for len(c) > 0 && assignment.MatchString(c[0]) {
				c = c[1:]
			}
			if len(c) > 0 {
				cmds = append(cmds, c)
				lines = append(lines, start)
			}
		}
		joined = ""
	}
	return cmds, lines
}

func isShellBlock(b mdBlock) bool {
	if len(b.info) == 0 {
		return false
	}
	switch b.info[0] {
	case "sh", "bash", "shell", "console":
		return true
	}
	return false
}

// checkCommands returns a problem for each command of p's shell blocks
// that does not work as shown, and the number of commands checked.
func (r *docRepo) checkCommands(t *testing.T, p docPage) ([]string, int) {
	blocks, _ := mdSplit(p.text)
	var probs []string
	n := 0
	for _, b := range blocks {
		if !isShellBlock(b) {
			continue
		}
		cmds, lines := blockCommands(b)
		for i, c := range cmds {
			n++
			where := fmt.Sprintf("%s:%d: %s", p.path, lines[i], strings.Join(c, " "))
			for _, prob := range r.checkCommand(t, c) {
				probs = append(probs, where+": "+prob)
			}
		}
	}
	return probs, n
}

// checkCommand checks one simple command (see the comment above docPage).
func (r *docRepo) checkCommand(t *testing.T, c []string) []string {
	prog := c[0]
	if args, ok := conformArgs(c); ok {
		return r.checkConform(t, args)
	}
	if prog == "go" {
		return r.checkGo(c[1:])
	}
	var probs []string
	if r.repoPath(prog) != "" {
		fi, err := os.Stat(filepath.Join(r.root, r.repoPath(prog)))
		switch {
		case err != nil:
			probs = append(probs, fmt.Sprintf("%s does not exist", prog))
		case fi.IsDir() || fi.Mode()&0o111 == 0:
			probs = append(probs, fmt.Sprintf("%s is not an executable file", prog))
		}
		return append(probs, r.checkPaths(c[1:])...)
	}
	if !externalTools[prog] {
		return []string{fmt.Sprintf("command %q is neither the kit's nor a known tool (add it to externalTools in docs_test.go, or teach the test to check it)", prog)}
	}
	return r.checkPaths(c[1:])
}

// repoPath returns w as a path relative to the root when it names one under
// a top-level entry of the repository, else "". Words with shell or
// placeholder characters ($ * ? [ { <) are not paths.
func (r *docRepo) repoPath(w string) string {
	if strings.ContainsAny(w, "$*?[{<~") || strings.HasPrefix(w, "/") || strings.HasPrefix(w, "-") {
		return ""
	}
	p := path.Clean(strings.TrimPrefix(w, "./"))
	first, _, _ := strings.Cut(p, "/")
	if p == "." || !r.top[first] || (first == p && !strings.Contains(w, "/") && !strings.Contains(first, ".")) {
		return "" // a bare word such as "golden" or "reference" is not a path
	}
	return filepath.FromSlash(p)
}

// checkPaths: each word that names a path of the repository exists (for
// NAME=PATH, the part after '=').
func (r *docRepo) checkPaths(words []string) []string {
	var probs []string
	for _, w := range words {
		if _, v, ok := strings.Cut(w, "="); ok && !strings.HasPrefix(w, "-") {
			w = v
		}
		if p := r.repoPath(w); p != "" {
			if _, err := os.Stat(filepath.Join(r.root, p)); err != nil {
				probs = append(probs, fmt.Sprintf("%s does not exist", w))
			}
		}
	}
	return probs
}

// flagSet returns the flags of `conform SUB...` from its -h output (name:
// whether it takes a value), or a problem.
func (r *docRepo) flagSet(sub []string) (map[string]bool, string) {
	key := strings.Join(sub, " ")
	if f, ok := r.flags[key]; ok {
		return f, r.flagErrs[key]
	}
	var out, errb bytes.Buffer
	code := run(context.Background(), append(append([]string{}, sub...), "-h"), strings.NewReader(""), &out, &errb)
	flags := map[string]bool{}
	prob := ""
	if code != 0 {
		prob = fmt.Sprintf("conform %s -h: exit status %d: %s", key, code, strings.TrimSpace(errb.String()))
	}
	line := regexp.MustCompile(`^  -([^ \t]+)(?: ([^ \t]+))?(?:\t|$)`)
	sc := bufio.NewScanner(&out)
	for sc.Scan() {
		if m := line.FindStringSubmatch(sc.Text()); m != nil {
			flags[m[1]] = m[2] != ""
		}
	}
	r.flags[key], r.flagErrs[key] = flags, prob
	return flags, prob
}

// checkConform checks the arguments of one conform command line.
func (r *docRepo) checkConform(t *testing.T, args []string) []string {
	t.Helper()
	if len(args) == 0 {
		return []string{"conform without a subcommand only prints its usage"}
	}
	sub := []string{args[0]}
	if !r.commands[args[0]] {
		return []string{fmt.Sprintf("conform has no command %q", args[0])}
	}
	rest := args[1:]
	if args[0] == "version" {
		if len(rest) > 0 {
			return []string{"conform version takes no arguments"}
		}
		return nil
	}
	flags, prob := r.flagSet(sub)
	if len(flags) == 0 && prob == "" && len(rest) > 0 && !strings.HasPrefix(rest[0], "-") {
		sub = append(sub, rest[0]) // report merge, suite export
		rest = rest[1:]
		flags, prob = r.flagSet(sub)
	}
	if prob != "" {
		return []string{prob}
	}
	var probs, parsed []string
	operands := 0
	for i := 0; i < len(rest); i++ {
		w := rest[i]
		if w == "--" {
			probs = append(probs, r.checkPaths(rest[i+1:])...)
			break
		}
		if !strings.HasPrefix(w, "-") || w == "-" {
			operands++
			probs = append(probs, r.checkPaths([]string{w})...)
			continue
		}
		name, val, hasVal := strings.Cut(strings.TrimLeft(w, "-"), "=")
		if operands > 0 && !flagsAnywhere[sub[0]] {
			probs = append(probs, fmt.Sprintf("%s after an operand: conform %s reads it as an operand, not a flag", strings.Join(rest[i:min(i+2, len(rest))], " "), sub[0]))
			break
		}
		takes, known := flags[name]
		if !known {
			probs = append(probs, fmt.Sprintf("conform %s has no flag %s", strings.Join(sub, " "), w))
			continue
		}
		parsed = append(parsed, w)
		if takes && !hasVal {
			if i+1 == len(rest) {
				probs = append(probs, fmt.Sprintf("%s needs a value", w))
				continue
			}
			i++
			val = rest[i]
			parsed = append(parsed, val)
		}
		if takes && !outputFlags[name] {
			probs = append(probs, r.checkPaths([]string{val})...)
		}
	}
	var out, errb bytes.Buffer
	if code := run(context.Background(), append(append(append([]string{}, sub...), parsed...), "-h"), strings.NewReader(""), &out, &errb); code != 0 {
		probs = append(probs, fmt.Sprintf("its flags do not parse (conform %s %s -h: exit status %d: %s)", strings.Join(sub, " "), strings.Join(parsed, " "), code, strings.TrimSpace(errb.String())))
	}
	return probs
}

// checkGo checks the arguments of one go command: its package patterns
// name directories, and -run TestX names a test in them.
func (r *docRepo) checkGo(args []string) []string {
	if len(args) == 0 {
		return []string{"go without a command"}
	}
	switch args[0] {
	case "build", "install", "test", "vet", "list", "run":
	default:
		return nil // go env, go version, ...
	}
	var probs, dirs []string
	testRun := ""
	valued := map[string]bool{"-o": true, "-run": true, "-bench": true, "-count": true, "-timeout": true, "-tags": true, "-benchtime": true, "-cpu": true, "-p": true, "-coverprofile": true, "-fuzz": true, "-fuzztime": true, "-ldflags": true}
	for i := 1; i < len(args); i++ {
		w := args[i]
		if valued[w] && i+1 < len(args) {
			if w == "-run" {
				testRun = args[i+1]
			}
			i++
			continue
		}
		if args[0] == "run" && len(dirs) == 1 {
			break // the program's own arguments
		}
		p, ok := strings.CutPrefix(w, "github.com/conform-kit/conform")
		if ok {
			p = "." + p
		} else if !strings.HasPrefix(w, "./") && w != "." {
			continue
		}
		p, _, _ = strings.Cut(p, "@")
		recursive := strings.HasSuffix(p, "/...")
		p = strings.TrimSuffix(p, "/...")
		fi, err := os.Stat(filepath.Join(r.root, filepath.FromSlash(p)))
		if err != nil || !fi.IsDir() {
			probs = append(probs, fmt.Sprintf("package pattern %s names no directory", w))
			continue
		}
		if recursive {
			p += "/..."
		}
		dirs = append(dirs, p)
	}
	name := strings.TrimSuffix(strings.TrimPrefix(testRun, "^"), "$")
	if args[0] == "test" && regexp.MustCompile(`^Test\w+$`).MatchString(name) && len(dirs) > 0 && !r.hasTest(dirs, name) {
		probs = append(probs, fmt.Sprintf("no test %s in %s", name, strings.Join(dirs, " ")))
	}
	return probs
}

// hasTest reports whether a _test.go file of the package directories
// (recursively for dir/...) declares func name.
func (r *docRepo) hasTest(dirs []string, name string) bool {
	decl := []byte("func " + name + "(")
	for _, d := range dirs {
		base, recursive := strings.CutSuffix(d, "/...")
		found := false
		_ = filepath.WalkDir(filepath.Join(r.root, filepath.FromSlash(base)), func(p string, e fs.DirEntry, err error) error {
			if err != nil || found {
				return filepath.SkipAll
			}
			if e.IsDir() && p != filepath.Join(r.root, filepath.FromSlash(base)) && (!recursive || e.Name() == "testdata" || e.Name() == "node_modules") {
				return filepath.SkipDir
			}
			if strings.HasSuffix(p, "_test.go") {
				if b, err := os.ReadFile(p); err == nil && bytes.Contains(b, decl) {
					found = true
				}
			}
			return nil
		})
		if found {
			return true
		}
	}
	return false
}

// ---- the GitHub Action

// actionIO is what action.yml declares: its inputs and outputs.
type actionIO struct{ inputs, outputs map[string]bool }

func actionSpec(t *testing.T, root string) actionIO {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(root, "action.yml"))
	if err != nil {
		t.Fatal(err)
	}
	a := actionIO{inputs: map[string]bool{}, outputs: map[string]bool{}}
	var into map[string]bool
	key := regexp.MustCompile(`^  ([\w-]+):\s*$`)
	for _, l := range strings.Split(string(b), "\n") {
		switch {
		case l == "inputs:":
			into = a.inputs
		case l == "outputs:":
			into = a.outputs
		case l != "" && l[0] != ' ' && l[0] != '#':
			into = nil
		case into != nil:
			if m := key.FindStringSubmatch(l); m != nil {
				into[m[1]] = true
			}
		}
	}
	if len(a.inputs) < 5 || len(a.outputs) < 3 {
		t.Fatalf("action.yml: found %d inputs and %d outputs: the parser is broken", len(a.inputs), len(a.outputs))
	}
	return a
}

// checkActionUses checks the yaml blocks of p: the with: keys of each step
// that uses conform-kit/conform, and every steps.conform.outputs.X.
func checkActionUses(p docPage, a actionIO) []string {
	blocks, _ := mdSplit(p.text)
	var probs []string
	outputRef := regexp.MustCompile(`steps\.conform\.outputs\.([\w-]+)`)
	for _, b := range blocks {
		if len(b.info) == 0 || (b.info[0] != "yaml" && b.info[0] != "yml") {
			continue
		}
		for i, l := range b.lines {
			for _, m := range outputRef.FindAllStringSubmatch(l, -1) {
				if !a.outputs[m[1]] {
					probs = append(probs, fmt.Sprintf("%s:%d: action.yml has no output %s", p.path, b.line+i, m[1]))
				}
			}
			at := strings.Index(l, "uses: conform-kit/conform@")
			if at < 0 {
				continue
			}
			indent := at
			for j := i + 1; j < len(b.lines); j++ {
				s := b.lines[j]
				lead := len(s) - len(strings.TrimLeft(s, " "))
				if strings.TrimSpace(s) == "" || lead < indent {
					break
				}
				body, ok := strings.CutPrefix(s[lead:], "with:")
				if lead != indent || !ok {
					continue
				}
				var keys []string
				if flow := strings.TrimSpace(body); strings.HasPrefix(flow, "{") {
					keys = flowKeys(strings.TrimSuffix(strings.TrimPrefix(flow, "{"), "}"))
				} else {
					for k := j + 1; k < len(b.lines); k++ {
						s2 := b.lines[k]
						lead2 := len(s2) - len(strings.TrimLeft(s2, " "))
						t2 := strings.TrimSpace(s2)
						if t2 == "" || lead2 <= indent {
							break
						}
						if strings.HasPrefix(t2, "#") {
							continue
						}
						if name, _, ok := strings.Cut(t2, ":"); ok {
							keys = append(keys, name)
						}
					}
				}
				for _, k := range keys {
					if !a.inputs[k] {
						probs = append(probs, fmt.Sprintf("%s:%d: action.yml has no input %s", p.path, b.line+j, k))
					}
				}
			}
		}
	}
	return probs
}

// flowKeys returns the keys of a YAML flow mapping's body ("a: 1, b: x"),
// commas inside quotes or braces not splitting.
func flowKeys(body string) []string {
	var keys []string
	depth, quote, start := 0, byte(0), 0
	flush := func(end int) {
		if k, _, ok := strings.Cut(body[start:end], ":"); ok && strings.TrimSpace(k) != "" {
			keys = append(keys, strings.TrimSpace(k))
		}
	}
	for i := 0; i < len(body); i++ {
		c := body[i]
		switch {
		case quote != 0:
			if c == quote {
				quote = 0
			}
		case c == '"' || c == '\'':
			quote = c
		case c == '{' || c == '[':
			depth++
		case c == '}' || c == ']':
			depth--
		case c == ',' && depth == 0:
			flush(i)
			start = i + 1
		}
	}
	flush(len(body))
	return keys
}
