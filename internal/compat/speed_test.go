//go:build unix

package compat_test

import (
	"bytes"
	"compress/gzip"
	"context"
	"io"
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/conform-kit/conform/internal/canon"
	"github.com/conform-kit/conform/internal/compat"
)

// The large pairs of issue 23's speed item (bench/README.md, "CPU against
// jsoncompat 0.5.0"): the control protocol's schemas v1 → v2
// (schemas/control.v*.json) and two SchemaStore pairs. The SchemaStore
// documents are committed byte for byte, gzipped, under testdata/speed
// (testdata/speed/SOURCE says where each comes from); as in the bench,
// their $schema is set to 2020-12, the only draft jsoncompat 0.5.0 reads.

// speedPair is one large pair: old and new decoded as the CLI decodes them.
type speedPair struct {
	name     string
	old, new any
}

func readSpeedDoc(tb testing.TB, path string, to2020 bool) any {
	tb.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		tb.Fatalf("read %s: %v", path, err)
	}
	if filepath.Ext(path) == ".gz" {
		zr, err := gzip.NewReader(bytes.NewReader(data))
		if err != nil {
			tb.Fatalf("gunzip %s: %v", path, err)
		}
		if data, err = io.ReadAll(zr); err != nil {
			tb.Fatalf("gunzip %s: %v", path, err)
		}
	}
	v, err := canon.Parse(data)
	if err != nil {
		tb.Fatalf("parse %s: %v", path, err)
	}
	if m, ok := v.(map[string]any); ok && to2020 {
		m["$schema"] = "https://json-schema.org/draft/2020-12/schema"
	}
	return v
}

func speedPairs(tb testing.TB) []speedPair {
	sp := filepath.Join("testdata", "speed")
	return []speedPair{
		{"control-v1-v2", readSpeedDoc(tb, filepath.Join("..", "..", "schemas", "control.v1.json"), false),
			readSpeedDoc(tb, filepath.Join("..", "..", "schemas", "control.v2.json"), false)},
		{"gitlab-ci", readSpeedDoc(tb, filepath.Join(sp, "gitlab-ci-2f797da2f.json.gz"), true),
			readSpeedDoc(tb, filepath.Join(sp, "gitlab-ci-fa738caa8.json.gz"), true)},
		{"renovate-39-40", readSpeedDoc(tb, filepath.Join(sp, "renovate-39-3b6446ad8.json.gz"), true),
			readSpeedDoc(tb, filepath.Join(sp, "renovate-40-3b6446ad8.json.gz"), true)},
	}
}

// processCPU is the CPU time (user and system, every thread) the process
// has used.
func processCPU(tb testing.TB) time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		tb.Fatalf("getrusage: %v", err)
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// BenchmarkLargePairs measures each large pair per direction, as one line
// of a `conform compat --pairs` batch compares it (one Catalog for all),
// in wall time (ns/op) and CPU time (cpu-ms/op: every thread, the
// garbage collector's included, as `conform compat --pairs` reports it).
func BenchmarkLargePairs(b *testing.B) {
	cat := compat.NewCatalog() // as a batch (compat --pairs) builds it once
	for _, p := range speedPairs(b) {
		for _, dir := range []string{compat.DirectionReader, compat.DirectionWriter} {
			b.Run(p.name+"/"+dir, func(b *testing.B) {
				cpu0 := processCPU(b)
				n := 0
				for b.Loop() {
					if _, err := compat.Compare(context.Background(), p.old, p.new, compat.Options{Direction: dir, Catalog: cat}); err != nil {
						b.Fatal(err)
					}
					n++
				}
				b.ReportMetric(float64((processCPU(b)-cpu0).Microseconds())/1000/float64(n), "cpu-ms/op")
			})
		}
	}
}
