package runner

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"sync"
	"syscall"
	"testing"
)

// An executable the runner writes (the agent double's wrapper) runs even
// while other goroutines start processes: none of them inherits its
// descriptor while it is being written, which made its execution fail
// with ETXTBSY under load (-j above 1). Written and run 150 times beside
// four goroutines that start processes without pause; with os.WriteFile
// instead of writeExecutable this fails within the first few dozen runs
// on this project's 2-core machine.
func TestWriteExecutableRaceFree(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("no ETXTBSY: Windows does not share a file being written with a process it starts")
	}
	t.Parallel()
	dir := t.TempDir()
	stop := make(chan struct{})
	var wg sync.WaitGroup
	for range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				select {
				case <-stop:
					return
				default:
				}
				_ = exec.Command("/bin/true").Run()
			}
		}()
	}
	defer func() { close(stop); wg.Wait() }()
	for i := range 150 {
		name := filepath.Join(dir, "w")
		_ = os.Remove(name)
		if err := writeExecutable(name, []byte("#!/bin/sh\nexit 0\n")); err != nil {
			t.Fatal(err)
		}
		if err := exec.Command(name).Run(); err != nil {
			if errors.Is(err, syscall.ETXTBSY) {
				t.Fatalf("run %d: %v (a started process held the file open for writing)", i, err)
			}
			t.Fatalf("run %d: %v", i, err)
		}
	}
}
