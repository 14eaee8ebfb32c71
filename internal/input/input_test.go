//go:build unix

package input_test

import (
	"os"
	"path/filepath"
	"runtime"
	"syscall"
	"testing"
	"time"

	"github.com/conform-kit/conform/internal/input"
	"github.com/conform-kit/conform/internal/kiterr"
	"github.com/conform-kit/conform/internal/kiterr/kiterrtest"
)

// TestReadFile: a regular file within its cap is read; a larger one is
// refused by its size without being read (a sparse 1 GiB file costs no
// memory); a FIFO without a writer, a directory and a missing file are
// refused at once, each with its code.
func TestReadFile(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	small := filepath.Join(dir, "small.json")
	if err := os.WriteFile(small, []byte(`{"a":1}`), 0o644); err != nil {
		t.Fatal(err)
	}
	data, err := input.ReadFile(small, 7, "report")
	if err != nil || string(data) != `{"a":1}` {
		t.Fatalf("ReadFile(small) = %q, %v", data, err)
	}
	_, err = input.ReadFile(small, 6, "report")
	kiterrtest.WantCode(t, err, kiterr.InputTooLarge, "report", "7 bytes", "over the 6")

	sparse := filepath.Join(dir, "sparse.json")
	if err := os.WriteFile(sparse, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Truncate(sparse, 1<<30); err != nil {
		t.Fatal(err)
	}
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	_, err = input.ReadFile(sparse, input.MaxReport, "shard")
	runtime.ReadMemStats(&after)
	kiterrtest.WantCode(t, err, kiterr.InputTooLarge, "shard", "1073741824 bytes")
	if grew := after.TotalAlloc - before.TotalAlloc; grew > 1<<20 {
		t.Errorf("refusing a 1 GiB file allocated %d bytes", grew)
	}

	_, err = input.ReadFile(dir, input.MaxReport, "report")
	kiterrtest.WantCode(t, err, kiterr.InputNotRegular, "a directory")
	_, err = input.ReadFile(filepath.Join(dir, "missing.json"), input.MaxReport, "report")
	kiterrtest.WantCode(t, err, kiterr.PathNotFound)

	fifo := filepath.Join(dir, "fifo.json")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Skipf("no FIFOs: %v", err)
	}
	done := make(chan error, 1)
	go func() { _, err := input.ReadFile(fifo, input.MaxReport, "report"); done <- err }()
	select {
	case err := <-done:
		kiterrtest.WantCode(t, err, kiterr.InputNotRegular, "a FIFO")
	case <-time.After(10 * time.Second):
		t.Fatal("ReadFile of a FIFO with no writer blocked")
	}
	// Between the stat and the open the name may become a FIFO: the
	// descriptor is checked too, and the open does not wait.
	f, err := os.OpenFile(fifo, input.OpenFlags, 0)
	if err != nil {
		t.Fatalf("a non-blocking open of a FIFO: %v", err)
	}
	defer f.Close()
	_, err = input.Regular(f, "report", fifo)
	kiterrtest.WantCode(t, err, kiterr.InputNotRegular, "a FIFO")
}
