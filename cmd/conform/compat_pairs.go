package main

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"time"

	"github.com/conform-kit/conform/internal/compat"
	"github.com/conform-kit/conform/internal/input"
	"github.com/conform-kit/conform/internal/kiterr"
)

// pairsConfig is what every pair of a --pairs run shares: the options of
// the command line (a line may override direction, default_draft and
// strict_open), the policy, the --fail-on level and the per-pair timeout.
type pairsConfig struct {
	opt     compat.Options
	policy  compat.Policy
	failOn  string
	timeout time.Duration
}

// pairLine is one input line of --pairs: the documents inline (old, new)
// or as paths (old_file, new_file, relative to the working directory).
type pairLine struct {
	ID           string          `json:"id"`
	Old          json.RawMessage `json:"old"`
	New          json.RawMessage `json:"new"`
	OldFile      string          `json:"old_file"`
	NewFile      string          `json:"new_file"`
	Direction    *string         `json:"direction"`
	DefaultDraft *string         `json:"default_draft"`
	StrictOpen   *bool           `json:"strict_open"`
}

// pairResult is one output line of --pairs.
type pairResult struct {
	// ID echoes the input line's id; Line is its 1-based line number.
	ID   string `json:"id"`
	Line int    `json:"line"`
	// Exit is the status `conform compat` would have for this pair alone.
	Exit  int            `json:"exit"`
	Error *pairError     `json:"error,omitempty"`
	Rep   *compat.Report `json:"report,omitempty"`
	// Ms is the wall time of the comparison, CPUMs the CPU time the
	// process used during it (user and system, every thread), both in
	// milliseconds; parsing the line is not counted.
	Ms    float64  `json:"ms"`
	CPUMs *float64 `json:"cpu_ms,omitempty"`
}

type pairError struct {
	Code    string `json:"code"`
	Message string `json:"message"`
}

// compatPairs runs --pairs: every line of path ("-": stdin) is compared as
// `conform compat` would compare its two documents, and one JSON line is
// written per pair, in input order. A bad line is a result with exit 2
// and its error, never the end of the run. Exit status: the largest of
// the pairs' statuses (0 every pair holds, 1 one breaks, 2 a bad line, 3 a
// bound passed), 2 when the file cannot be read, 130 when interrupted.
func compatPairs(ctx context.Context, path string, cfg pairsConfig, stdin io.Reader, stdout, stderr io.Writer) int {
	in := stdin
	if path != "-" {
		f, err := os.Open(path)
		if err != nil {
			fmt.Fprintf(stderr, "conform compat: %v\n", kiterr.Wrap(kiterr.IO, err, "read pairs %s", path))
			return exitUsage
		}
		defer f.Close()
		in = f
	}
	if cfg.opt.Catalog == nil {
		cfg.opt.Catalog = compat.NewCatalog() // one-time set-up, outside every pair's time
	}
	r := bufio.NewReaderSize(in, 1<<16)
	w := bufio.NewWriter(stdout)
	defer w.Flush()
	enc := json.NewEncoder(w)
	worst := exitPass
	for line := 1; ; line++ {
		data, err := r.ReadBytes('\n')
		if len(data) > 0 && !isBlank(data) {
			res := comparePairLine(ctx, data, line, cfg)
			if err := enc.Encode(res); err != nil {
				fmt.Fprintf(stderr, "conform compat: write result: %v\n", err)
				return exitBroken
			}
			if err := w.Flush(); err != nil {
				fmt.Fprintf(stderr, "conform compat: write result: %v\n", err)
				return exitBroken
			}
			if res.Exit == exitInterrupted {
				return exitInterrupted
			}
			worst = max(worst, res.Exit)
		}
		if errors.Is(err, io.EOF) {
			return worst
		}
		if err != nil {
			fmt.Fprintf(stderr, "conform compat: %v\n", kiterr.Wrap(kiterr.IO, err, "read pairs %s", path))
			return exitUsage
		}
	}
}

func isBlank(b []byte) bool {
	for _, c := range b {
		if c != ' ' && c != '\t' && c != '\r' && c != '\n' {
			return false
		}
	}
	return true
}

func comparePairLine(ctx context.Context, data []byte, line int, cfg pairsConfig) pairResult {
	res := pairResult{Line: line}
	fail := func(err error) pairResult {
		res.Exit = compatErrorExit(err)
		res.Error = &pairError{Code: string(kiterr.CodeOf(err)), Message: err.Error()}
		return res
	}
	var pl pairLine
	if err := json.Unmarshal(data, &pl); err != nil {
		return fail(kiterr.Wrap(kiterr.JSONSyntax, err, "pairs line %d", line))
	}
	res.ID = pl.ID
	var docs [2]any
	for i, side := range []struct {
		name   string
		inline json.RawMessage
		file   string
	}{{"old", pl.Old, pl.OldFile}, {"new", pl.New, pl.NewFile}} {
		raw := []byte(side.inline)
		switch {
		case side.file != "" && len(raw) > 0:
			return fail(kiterr.New(kiterr.Usage, "pairs line %d: both %s and %s_file", line, side.name, side.name))
		case side.file != "":
			b, err := input.ReadFile(side.file, input.MaxSchema, "schema")
			if err != nil {
				return fail(err)
			}
			raw = b
		case len(raw) == 0:
			return fail(kiterr.New(kiterr.Usage, "pairs line %d: no %s schema (%s or %s_file)", line, side.name, side.name, side.name))
		}
		v, err := readSchema(raw)
		if err != nil {
			return fail(kiterr.Wrap(kiterr.CodeOf(err), err, "pairs line %d: %s schema", line, side.name))
		}
		docs[i] = v
	}
	opt := cfg.opt
	if pl.Direction != nil {
		opt.Direction = *pl.Direction
	}
	if pl.DefaultDraft != nil {
		opt.DefaultDraft = *pl.DefaultDraft
	}
	if pl.StrictOpen != nil {
		opt.StrictOpen = *pl.StrictOpen
	}
	pctx := ctx
	if cfg.timeout > 0 {
		var cancel context.CancelFunc
		pctx, cancel = context.WithTimeout(ctx, cfg.timeout)
		defer cancel()
	}
	cpu0, cpuOK := processCPU()
	start := time.Now()
	rep, err := compat.Compare(pctx, docs[0], docs[1], opt)
	res.Ms = float64(time.Since(start).Microseconds()) / 1000
	if cpu1, ok := processCPU(); ok && cpuOK {
		ms := float64((cpu1 - cpu0).Microseconds()) / 1000
		res.CPUMs = &ms
	}
	if err != nil {
		return fail(err)
	}
	cfg.policy.Apply(&rep)
	res.Rep = &rep
	if rep.Fails(cfg.failOn) {
		res.Exit = exitFail
	}
	return res
}
