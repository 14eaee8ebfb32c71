// Command compat-large measures the CPU time of `conform compat` against
// jsoncompat 0.5.0 on the large pairs of issue 23 (bench/README.md, "CPU
// against jsoncompat 0.5.0"), per pair and direction. run.sh drives it:
//
//	compat-large --export DIR [--repeat K]
//	compat-large --report DIR
//
// --export writes DIR/pairs.jsonl (for `conform compat --pairs`) and
// DIR/cases.jsonl (for bench/compat-corpus/peers.py) from the same decoded
// documents: control.v1 → v2 (schemas/) and the SchemaStore pairs
// committed under internal/compat/testdata/speed (SOURCE says where each
// comes from), with $schema set to 2020-12 as BenchmarkLargePairs does
// (jsoncompat refuses every other draft). Each (pair, direction) is
// written K times (default 3), so that each process measures it K times.
//
// --report reads every DIR/conform.*.jsonl and DIR/jsoncompat.*.jsonl (one
// per round; run.sh interleaves the two tools' rounds), and
// DIR/before.*.jsonl when present (an older conform build run in the same
// rounds, run.sh's BEFORE), and prints, per
// pair and direction, the minimum CPU time of each tool over every
// measurement, their ratio, the number of measurements, and each tool's
// verdict (which must be the same in every measurement; a change is an
// error). conform's time is its cpu_ms (process CPU during the one
// comparison, every thread); jsoncompat's is peers.py's cpu_ms
// (time.process_time around one check_compat call).
package main

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/conform-kit/conform/internal/canon"
)

// pair is one large pair; to2020 sets its $schema to 2020-12.
type pair struct {
	name, old, new string
	to2020         bool
}

var pairs = []pair{
	{"control v1 → v2", "schemas/control.v1.json", "schemas/control.v2.json", false},
	{"gitlab-ci 2f797da2f → fa738caa8", "internal/compat/testdata/speed/gitlab-ci-2f797da2f.json.gz", "internal/compat/testdata/speed/gitlab-ci-fa738caa8.json.gz", true},
	{"renovate-39 → renovate-40", "internal/compat/testdata/speed/renovate-39-3b6446ad8.json.gz", "internal/compat/testdata/speed/renovate-40-3b6446ad8.json.gz", true},
}

var directions = []string{"reader", "writer"}

func main() {
	export := flag.String("export", "", "write pairs.jsonl and cases.jsonl into this directory")
	report := flag.String("report", "", "print the table from the results in this directory")
	repeat := flag.Int("repeat", 3, "with --export: lines per (pair, direction)")
	root := flag.String("root", ".", "the repository's root")
	flag.Parse()
	var err error
	switch {
	case *export != "":
		err = writeInputs(*root, *export, *repeat)
	case *report != "":
		err = printReport(os.Stdout, *report)
	default:
		err = fmt.Errorf("want --export DIR or --report DIR")
	}
	if err != nil {
		fmt.Fprintf(os.Stderr, "compat-large: %v\n", err)
		os.Exit(2)
	}
}

func readDoc(path string, to2020 bool) (any, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	if strings.HasSuffix(path, ".gz") {
		zr, err := gzip.NewReader(bytes.NewReader(data))
		if err != nil {
			return nil, fmt.Errorf("%s: %w", path, err)
		}
		if data, err = io.ReadAll(zr); err != nil {
			return nil, fmt.Errorf("%s: %w", path, err)
		}
	}
	v, err := canon.Parse(data)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	if m, ok := v.(map[string]any); ok && to2020 {
		m["$schema"] = "https://json-schema.org/draft/2020-12/schema"
	}
	return v, nil
}

func key(p pair, dir string) string { return p.name + "|" + dir }

func writeInputs(root, dir string, repeat int) error {
	pf, err := os.Create(filepath.Join(dir, "pairs.jsonl"))
	if err != nil {
		return err
	}
	cf, err := os.Create(filepath.Join(dir, "cases.jsonl"))
	if err != nil {
		return err
	}
	pw, cw := bufio.NewWriter(pf), bufio.NewWriter(cf)
	pe, ce := json.NewEncoder(pw), json.NewEncoder(cw)
	for _, p := range pairs {
		old, err := readDoc(filepath.Join(root, p.old), p.to2020)
		if err != nil {
			return err
		}
		nw, err := readDoc(filepath.Join(root, p.new), p.to2020)
		if err != nil {
			return err
		}
		for _, d := range directions {
			for range repeat {
				if err := pe.Encode(map[string]any{"id": key(p, d), "old": old, "new": nw, "direction": d}); err != nil {
					return err
				}
				if err := ce.Encode(map[string]any{"key": key(p, d), "direction": d, "old": old, "new": nw}); err != nil {
					return err
				}
			}
		}
	}
	for _, w := range []*bufio.Writer{pw, cw} {
		if err := w.Flush(); err != nil {
			return err
		}
	}
	if err := pf.Close(); err != nil {
		return err
	}
	return cf.Close()
}

// times is one tool's measurements of one (pair, direction).
type times struct {
	min     float64
	n       int
	verdict string
	err     string
}

func (t *times) add(ms float64, verdict string) {
	if t.n == 0 || ms < t.min {
		t.min = ms
	}
	t.n++
	if t.verdict == "" {
		t.verdict = verdict
	} else if t.verdict != verdict && t.err == "" {
		t.err = fmt.Sprintf("verdict %s, then %s", t.verdict, verdict)
	}
}

// readResults reads every file of dir matching glob into per-key times;
// line decodes one line into its key, CPU ms and verdict (ok false: no
// time).
func readResults(dir, glob string, line func([]byte) (string, float64, string, bool, error)) (map[string]*times, int, error) {
	files, err := filepath.Glob(filepath.Join(dir, glob))
	if err != nil {
		return nil, 0, err
	}
	out := map[string]*times{}
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			return nil, 0, err
		}
		sc := bufio.NewScanner(bytes.NewReader(data))
		sc.Buffer(make([]byte, 1<<20), 1<<28)
		for sc.Scan() {
			k, ms, verdict, ok, err := line(sc.Bytes())
			if err != nil {
				return nil, 0, fmt.Errorf("%s: %w", f, err)
			}
			t := out[k]
			if t == nil {
				t = &times{}
				out[k] = t
			}
			if !ok {
				if t.err == "" {
					t.err = verdict
				}
				continue
			}
			t.add(ms, verdict)
		}
		if err := sc.Err(); err != nil {
			return nil, 0, fmt.Errorf("%s: %w", f, err)
		}
	}
	return out, len(files), nil
}

func conformLine(b []byte) (string, float64, string, bool, error) {
	var r struct {
		ID    string `json:"id"`
		Error *struct {
			Code string `json:"code"`
		} `json:"error"`
		Report *struct {
			Breaking int `json:"breaking"`
			Additive int `json:"additive"`
		} `json:"report"`
		CPUMs *float64 `json:"cpu_ms"`
	}
	if err := json.Unmarshal(b, &r); err != nil {
		return "", 0, "", false, err
	}
	switch {
	case r.Error != nil:
		return r.ID, 0, "error " + r.Error.Code, false, nil
	case r.Report == nil || r.CPUMs == nil:
		return r.ID, 0, "no report or no cpu_ms", false, nil
	}
	v := "compatible"
	if r.Report.Breaking > 0 {
		v = "breaking"
	}
	return r.ID, *r.CPUMs, fmt.Sprintf("%s (%d breaking, %d additive)", v, r.Report.Breaking, r.Report.Additive), true, nil
}

func peerLine(b []byte) (string, float64, string, bool, error) {
	var r struct {
		Key        string   `json:"key"`
		Compatible *bool    `json:"compatible"`
		Error      string   `json:"error"`
		CPUMs      *float64 `json:"cpu_ms"`
	}
	if err := json.Unmarshal(b, &r); err != nil {
		return "", 0, "", false, err
	}
	if r.Compatible == nil || r.CPUMs == nil {
		return r.Key, 0, "error " + r.Error, false, nil
	}
	v := "breaking"
	if *r.Compatible {
		v = "compatible"
	}
	return r.Key, *r.CPUMs, v, true, nil
}

func printReport(w io.Writer, dir string) error {
	ours, nc, err := readResults(dir, "conform.*.jsonl", conformLine)
	if err != nil {
		return err
	}
	peer, np, err := readResults(dir, "jsoncompat.*.jsonl", peerLine)
	if err != nil {
		return err
	}
	if nc == 0 || np == 0 {
		return fmt.Errorf("%s: no conform.*.jsonl or jsoncompat.*.jsonl", dir)
	}
	before, nb, err := readResults(dir, "before.*.jsonl", conformLine)
	if err != nil {
		return err
	}
	fmt.Fprintf(w, "CPU ms per comparison, minimum over every measurement (%d conform rounds, %d jsoncompat rounds, %d before rounds, interleaved)\n\n", nc, np, nb)
	head, rule := "", ""
	if nb > 0 {
		head, rule = " before ms | before / jsoncompat |", "---|---|"
	}
	fmt.Fprintf(w, "| pair | direction | jsoncompat ms |%s conform ms | conform / jsoncompat | measurements (conform, jsoncompat) | conform verdict | jsoncompat verdict |\n", head)
	fmt.Fprintf(w, "|---|---|---|%s---|---|---|---|---|\n", rule)
	var bad []string
	for _, p := range pairs {
		for _, d := range directions {
			k := key(p, d)
			o, j := ours[k], peer[k]
			if o == nil || j == nil {
				return fmt.Errorf("no measurement of %s", k)
			}
			for _, t := range []*times{o, j} {
				if t.err != "" {
					bad = append(bad, k+": "+t.err)
				}
			}
			ratio := func(t *times) string {
				if j.n > 0 && t.n > 0 && j.min > 0 {
					return fmt.Sprintf("%.2f", t.min/j.min)
				}
				return "-"
			}
			cols := ""
			if nb > 0 {
				b := before[k]
				if b == nil {
					return fmt.Errorf("no before measurement of %s", k)
				}
				if b.err != "" {
					bad = append(bad, k+" (before): "+b.err)
				}
				if b.verdict != o.verdict {
					bad = append(bad, fmt.Sprintf("%s: before %s, conform %s", k, b.verdict, o.verdict))
				}
				cols = fmt.Sprintf(" %.1f | %s |", b.min, ratio(b))
			}
			fmt.Fprintf(w, "| %s | %s | %.1f |%s %.1f | %s | %d, %d | %s | %s |\n", p.name, d, j.min, cols, o.min, ratio(o), o.n, j.n, o.verdict, j.verdict)
		}
	}
	if len(bad) > 0 {
		sort.Strings(bad)
		return fmt.Errorf("inconsistent measurements:\n  %s", strings.Join(bad, "\n  "))
	}
	return nil
}
