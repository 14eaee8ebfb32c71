// Command compat-corpus measures `conform compat` against public labelled
// corpora of JSON Schema evolution (pairs of schemas with an expected
// compatibility verdict), and optionally the peers' verdicts on the same
// cases. It reads only what it is pointed at and fetches nothing.
//
//	compat-corpus --conform BIN [--apicurio PATH] [--karapace DIR] [--confluent DIR]
//	              [--export FILE] [--peer NAME=FILE]... [--list]
//	              [--refute] [--timeout D]
//
//	--conform BIN    the conform binary: every case is compared by one
//	                 `conform compat --pairs` process (batch mode), whose
//	                 per-pair CPU time is compared with the peers'
//	--refute         try to refute every proof conform states (root checks
//	                 and findings proved harmless) with the independent
//	                 generator of internal/compat/refute; a refuted proof
//	                 is a wrong proof
//	--apicurio PATH  Apicurio Registry's compatibility-test-data.json, or a
//	                 checkout of apicurio-registry holding it at
//	                 schema-util/json/src/test/resources/io/apicurio/registry/
//	                 rules/compatibility/jsonschema/
//	--karapace DIR   a checkout of Karapace (tests/schemas/json_schemas.py and
//	                 tests/unit/compatibility/jsonschema/
//	                 test_jsonschema_compatibility.py are read as data)
//	--confluent DIR  a checkout of Confluent Schema Registry (its
//	                 json-schema-provider/src/test/resources/diff-*.json
//	                 are read as data; labels are reader-direction only)
//	--export FILE    also write every case as JSON lines for peers.py
//	--peer NAME=FILE read a peer's verdicts and CPU times (JSON lines from
//	                 peers.py)
//	--list           print every disagreement with its witness or proof
//
// Directions: reader = the new schema accepts every instance the old one
// accepted (Apicurio BACKWARD; Karapace compatibility(reader=new,
// writer=old)); writer = the old schema accepts every instance the new one
// accepts (Apicurio FORWARD; Karapace's label with the two schemas swapped).
// An Apicurio label "backward" means backward and not forward, "forward" the
// reverse, "both" both and "none" neither (its CompatibilityTestExecutor).
package main

import (
	"bufio"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/conform-kit/conform/internal/canon"
	"github.com/conform-kit/conform/internal/compat"
)

const (
	dirReader = "reader"
	dirWriter = "writer"
)

// Case is one labelled pair of schemas.
type Case struct {
	Corpus string
	ID     string
	Line   int // source line (Karapace), or the test's index (Apicurio)
	Old    any
	New    any
	// Labels maps a direction to "compatible" (true) or not.
	Labels map[string]bool
	// Swapped: Karapace's writer-direction case (reader and writer swapped).
	Swapped bool
	// Draft is the draft of a schema without $schema ("": conform's
	// default, 2020-12).
	Draft string
}

// key names one (case, direction) for peers' files.
func key(c Case, dir string) string {
	return fmt.Sprintf("%s|%d|%s|%s", c.Corpus, c.Line, c.ID, dir)
}

const apicurioPath = "schema-util/json/src/test/resources/io/apicurio/registry/rules/compatibility/jsonschema/compatibility-test-data.json"

func loadApicurio(path string) ([]Case, error) {
	if st, err := os.Stat(path); err == nil && st.IsDir() {
		path = filepath.Join(path, apicurioPath)
	}
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	v, err := canon.Parse(data)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	root, _ := v.(map[string]any)
	tests, ok := root["tests"].([]any)
	if !ok {
		return nil, fmt.Errorf("%s: no \"tests\" array", path)
	}
	var out []Case
	for i, t := range tests {
		m, _ := t.(map[string]any)
		if en, ok := m["enabled"].(bool); ok && !en {
			continue
		}
		id, _ := m["id"].(string)
		label, _ := m["compatibility"].(string)
		var labels map[string]bool
		switch label {
		case "backward":
			labels = map[string]bool{dirReader: true, dirWriter: false}
		case "forward":
			labels = map[string]bool{dirReader: false, dirWriter: true}
		case "both":
			labels = map[string]bool{dirReader: true, dirWriter: true}
		case "none":
			labels = map[string]bool{dirReader: false, dirWriter: false}
		default:
			return nil, fmt.Errorf("%s: test %d (%s): compatibility %q", path, i, id, label)
		}
		out = append(out, Case{Corpus: "apicurio", ID: id, Line: i, Old: m["original"], New: m["updated"], Labels: labels})
	}
	return out, nil
}

// outcome is one verdict on one (case, direction).
type outcome struct {
	verdict  string // "compatible", "breaking" or "error"
	evidence string // witness, proof or error text
	proven   bool   // the verdict carries a checked witness or a stated subsumption
	cpuMs    float64
	hasCPU   bool
	rep      *compat.Report
}

type peerFlag map[string]string

func (p peerFlag) String() string { return fmt.Sprint(map[string]string(p)) }
func (p peerFlag) Set(s string) error {
	name, file, ok := strings.Cut(s, "=")
	if !ok {
		return errors.New("want NAME=FILE")
	}
	p[name] = file
	return nil
}

func main() {
	apicurio := flag.String("apicurio", "", "Apicurio compatibility-test-data.json or a checkout of apicurio-registry")
	karapace := flag.String("karapace", "", "a checkout of Karapace")
	confluent := flag.String("confluent", "", "a checkout of Confluent Schema Registry (json-schema-provider's diff test data)")
	export := flag.String("export", "", "write the cases as JSON lines for peers.py")
	list := flag.Bool("list", false, "print every disagreement with its evidence")
	defaults := flag.Bool("defaults", false, "run conform with its default options instead of --strict-open (see bench/README.md)")
	timeout := flag.Duration("timeout", 10*time.Second, "bound of one comparison")
	bin := flag.String("conform", "", "the conform binary (batch mode: conform compat --pairs)")
	refuteProofs := flag.Bool("refute", false, "try to refute every proof conform states (wrong proofs)")
	peers := peerFlag{}
	flag.Var(peers, "peer", "NAME=FILE: a peer's verdicts from peers.py (repeatable)")
	flag.Parse()
	if *apicurio == "" && *karapace == "" && *confluent == "" {
		fmt.Fprintln(os.Stderr, "compat-corpus: give --apicurio, --karapace and/or --confluent (see bench/README.md)")
		os.Exit(2)
	}
	var cases []Case
	if *apicurio != "" {
		cs, err := loadApicurio(*apicurio)
		if err != nil {
			fmt.Fprintln(os.Stderr, "compat-corpus: apicurio:", err)
			os.Exit(2)
		}
		cases = append(cases, cs...)
	}
	if *karapace != "" {
		cs, err := loadKarapace(*karapace)
		if err != nil {
			fmt.Fprintln(os.Stderr, "compat-corpus: karapace:", err)
			os.Exit(2)
		}
		cases = append(cases, cs...)
	}
	if *confluent != "" {
		cs, err := loadConfluent(*confluent)
		if err != nil {
			fmt.Fprintln(os.Stderr, "compat-corpus: confluent:", err)
			os.Exit(2)
		}
		cases = append(cases, cs...)
	}
	if *export != "" {
		if err := writeExport(*export, cases); err != nil {
			fmt.Fprintln(os.Stderr, "compat-corpus: export:", err)
			os.Exit(2)
		}
	}
	peerOut := map[string]map[string]outcome{}
	var peerNames []string
	for name, file := range peers {
		m, err := readPeer(file)
		if err != nil {
			fmt.Fprintf(os.Stderr, "compat-corpus: peer %s: %v\n", name, err)
			os.Exit(2)
		}
		peerOut[name] = m
		peerNames = append(peerNames, name)
	}
	sort.Strings(peerNames)
	strictOpen = !*defaults
	if *bin == "" {
		if *export != "" {
			return // export only
		}
		fmt.Fprintln(os.Stderr, "compat-corpus: give --conform BIN (see bench/README.md)")
		os.Exit(2)
	}
	ours, err := runConform(*bin, cases, *timeout)
	if err != nil {
		fmt.Fprintln(os.Stderr, "compat-corpus:", err)
		os.Exit(2)
	}
	report(os.Stdout, cases, ours, peerNames, peerOut, *list)
	speed(os.Stdout, cases, ours, peerNames, peerOut)
	if *refuteProofs {
		refuteAll(os.Stdout, cases, ours)
	}
}

// runConform compares every (case, direction) in one `conform compat
// --pairs` process and returns the outcomes by key.
func runConform(bin string, cases []Case, timeout time.Duration) (map[string]outcome, error) {
	dir, err := os.MkdirTemp("", "compat-corpus")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(dir)
	pairs := filepath.Join(dir, "pairs.jsonl")
	f, err := os.Create(pairs)
	if err != nil {
		return nil, err
	}
	w := bufio.NewWriter(f)
	enc := json.NewEncoder(w)
	for _, c := range cases {
		for _, d := range []string{dirReader, dirWriter} {
			if _, ok := c.Labels[d]; !ok {
				continue
			}
			line := map[string]any{"id": key(c, d), "old": c.Old, "new": c.New, "direction": d, "strict_open": strictOpen}
			if c.Corpus == "karapace" {
				line["default_draft"] = "draft-07" // Karapace reads its schemas with Draft7Validator
			}
			if c.Draft != "" {
				line["default_draft"] = c.Draft
			}
			if err := enc.Encode(line); err != nil {
				return nil, err
			}
		}
	}
	if err := w.Flush(); err != nil {
		return nil, err
	}
	if err := f.Close(); err != nil {
		return nil, err
	}
	cmd := exec.Command(bin, "compat", "--pairs", pairs, "--timeout", timeout.String())
	cmd.Stderr = os.Stderr
	out, err := cmd.Output()
	var ee *exec.ExitError
	if err != nil && !errors.As(err, &ee) {
		return nil, fmt.Errorf("run %s: %w", bin, err)
	}
	res := map[string]outcome{}
	sc := bufio.NewScanner(strings.NewReader(string(out)))
	sc.Buffer(make([]byte, 1<<20), 1<<28)
	for sc.Scan() {
		var r struct {
			ID    string `json:"id"`
			Error *struct {
				Code    string `json:"code"`
				Message string `json:"message"`
			} `json:"error"`
			Report *compat.Report `json:"report"`
			CPUMs  *float64       `json:"cpu_ms"`
		}
		if err := json.Unmarshal(sc.Bytes(), &r); err != nil {
			return nil, fmt.Errorf("read conform's results: %w", err)
		}
		_, d, _ := strings.Cut(r.ID[strings.LastIndexByte(r.ID, '|'):], "|")
		var o outcome
		switch {
		case r.Error != nil:
			o = outcome{verdict: "error", evidence: r.Error.Message}
		case r.Report != nil:
			o = evidence(*r.Report, d)
			o.rep = r.Report
		}
		if r.CPUMs != nil {
			o.cpuMs, o.hasCPU = *r.CPUMs, true
		}
		res[r.ID] = o
	}
	return res, sc.Err()
}

func writeExport(path string, cases []Case) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	w := bufio.NewWriter(f)
	enc := json.NewEncoder(w)
	for _, c := range cases {
		for _, dir := range []string{dirReader, dirWriter} {
			label, ok := c.Labels[dir]
			if !ok {
				continue
			}
			if err := enc.Encode(map[string]any{"key": key(c, dir), "direction": dir, "old": c.Old, "new": c.New, "compatible": label}); err != nil {
				return err
			}
		}
	}
	if err := w.Flush(); err != nil {
		return err
	}
	return f.Close()
}

func readPeer(path string) (map[string]outcome, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	out := map[string]outcome{}
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<26)
	for sc.Scan() {
		var r struct {
			Key        string   `json:"key"`
			Compatible *bool    `json:"compatible"`
			Error      string   `json:"error"`
			CPUMs      *float64 `json:"cpu_ms"`
		}
		if err := json.Unmarshal(sc.Bytes(), &r); err != nil {
			return nil, err
		}
		var o outcome
		switch {
		case r.Compatible == nil:
			o = outcome{verdict: "error", evidence: r.Error}
		case *r.Compatible:
			o = outcome{verdict: "compatible"}
		default:
			o = outcome{verdict: "breaking"}
		}
		if r.CPUMs != nil {
			o.cpuMs, o.hasCPU = *r.CPUMs, true
		}
		out[r.Key] = o
	}
	return out, sc.Err()
}

// strictOpen: the corpora label set inclusion, where an undocumented
// member of an open object is an instance like any other, so conform runs
// with --strict-open unless --defaults.
var strictOpen = true

type tally struct {
	n, agree, proven, errors int
	// m[label][verdict] counts; label "compatible"/"breaking".
	m map[string]map[string]int
}

func newTally() *tally {
	return &tally{m: map[string]map[string]int{"compatible": {}, "breaking": {}}}
}

func (t *tally) add(label bool, o outcome) bool {
	l := "breaking"
	if label {
		l = "compatible"
	}
	t.n++
	t.m[l][o.verdict]++
	if o.verdict == "error" || o.verdict == "missing" {
		t.errors++
	}
	if o.verdict == l {
		t.agree++
		return true
	}
	if o.proven {
		t.proven++
	}
	return false
}

func pct(a, n int) string {
	if n == 0 {
		return "-"
	}
	return fmt.Sprintf("%.1f%%", 100*float64(a)/float64(n))
}

func report(w io.Writer, cases []Case, ours map[string]outcome, peerNames []string, peerOut map[string]map[string]outcome, list bool) {
	type group struct{ corpus, dir string }
	var groups []group
	tallies := map[group]*tally{}
	peerTallies := map[string]map[group]*tally{}
	for _, p := range peerNames {
		peerTallies[p] = map[group]*tally{}
	}
	var disagreements []string
	for _, c := range cases {
		for _, dir := range []string{dirReader, dirWriter} {
			label, ok := c.Labels[dir]
			if !ok {
				continue
			}
			g := group{c.Corpus, dir}
			if tallies[g] == nil {
				tallies[g] = newTally()
				groups = append(groups, g)
				for _, p := range peerNames {
					peerTallies[p][g] = newTally()
				}
			}
			o, ok := ours[key(c, dir)]
			if !ok {
				o = outcome{verdict: "missing"}
			}
			agreed := tallies[g].add(label, o)
			var peerCol []string
			for _, p := range peerNames {
				po, ok := peerOut[p][key(c, dir)]
				if !ok {
					po = outcome{verdict: "missing"}
				}
				peerTallies[p][g].add(label, po)
				peerCol = append(peerCol, p+"="+po.verdict)
			}
			if !agreed && list {
				lbl := "breaking"
				if label {
					lbl = "compatible"
				}
				mark := "UNPROVEN"
				if o.proven {
					mark = "proven"
				}
				old, nw := jsonText(c.Old), jsonText(c.New)
				disagreements = append(disagreements, fmt.Sprintf("- [%s %s] %s (line %d)\n    label %s, conform %s (%s); %s\n    old: %s\n    new: %s\n    evidence: %s",
					c.Corpus, dir, c.ID, c.Line, lbl, o.verdict, mark, strings.Join(peerCol, " "), clip(old), clip(nw), o.evidence))
			}
		}
	}
	fmt.Fprintln(w, "Agreement with the labels (proven: conform's opposite verdict carries a checked witness or a stated subsumption)")
	fmt.Fprintln(w)
	fmt.Fprintf(w, "| tool | corpus | direction | cases | errors | agree | agree %% | agree %% of answered | proven | agree+proven %% |\n|---|---|---|---|---|---|---|---|---|---|\n")
	row := func(tool string, g group, t *tally) {
		fmt.Fprintf(w, "| %s | %s | %s | %d | %d | %d | %s | %s | %d | %s |\n", tool, g.corpus, g.dir, t.n, t.errors, t.agree, pct(t.agree, t.n), pct(t.agree, t.n-t.errors), t.proven, pct(t.agree+t.proven, t.n))
	}
	for _, g := range groups {
		row("conform", g, tallies[g])
	}
	for _, p := range peerNames {
		for _, g := range groups {
			t := peerTallies[p][g]
			fmt.Fprintf(w, "| %s | %s | %s | %d | %d | %d | %s | %s | - | - |\n", p, g.corpus, g.dir, t.n, t.errors, t.agree, pct(t.agree, t.n), pct(t.agree, t.n-t.errors))
		}
	}
	fmt.Fprintln(w)
	fmt.Fprintln(w, "Confusion matrices (rows: label; columns: verdict)")
	tools := append([]string{"conform"}, peerNames...)
	for _, tool := range tools {
		for _, g := range groups {
			t := tallies[g]
			if tool != "conform" {
				t = peerTallies[tool][g]
			}
			fmt.Fprintf(w, "\n%s, %s, %s:\n", tool, g.corpus, g.dir)
			fmt.Fprintf(w, "  %-12s %10s %10s %8s\n", "label\\verdict", "compatible", "breaking", "error")
			for _, l := range []string{"compatible", "breaking"} {
				fmt.Fprintf(w, "  %-13s %10d %10d %8d\n", l, t.m[l]["compatible"], t.m[l]["breaking"], t.m[l]["error"]+t.m[l]["missing"])
			}
		}
	}
	if list {
		fmt.Fprintf(w, "\nDisagreements (%d):\n", len(disagreements))
		for _, d := range disagreements {
			fmt.Fprintln(w, d)
		}
	}
}

func clip(s string) string {
	if len(s) > 400 {
		return s[:400] + "..."
	}
	return s
}
