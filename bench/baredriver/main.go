// Command baredriver is the floor that bench/run.sh compares `conform run`
// with: it drives the same command over the same vectors the way the runner
// does, and does nothing else. For each vector file (one fresh process per
// vector, -j at once) it starts the command, writes every send item as one
// line (the same bytes the runner writes), counts stdout lines until there
// are as many as the vector expects replies, then closes stdin and reads to
// end of output; a vector that expects the command to exit by itself keeps
// stdin open until it does. No schema validation, normalization,
// canonicalization of output, golden comparison, temporary directories or
// report: only process start, the pipes and the wait.
//
//	baredriver [-j N] DIR -- COMMAND [ARG...]
//
// DIR is a vectors folder (every *.json below it is a session vector). It
// prints "<vectors> <lines read>" and exits 1 if any vector timed out.
package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"sync/atomic"
	"time"

	"github.com/conform-kit/conform/internal/suite"
)

type job struct {
	input    [][]byte
	replies  int
	mustExit bool
}

func main() {
	jobs := flag.Int("j", 2, "vectors run at once")
	timeout := flag.Duration("timeout", 10*time.Second, "per-vector bound")
	flag.Parse()
	args := flag.Args()
	if len(args) < 3 || args[1] != "--" {
		fmt.Fprintln(os.Stderr, "usage: baredriver [-j N] DIR -- COMMAND [ARG...]")
		os.Exit(2)
	}
	dir, argv := args[0], args[2:]
	var paths []string
	err := filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() && filepath.Ext(p) == ".json" {
			paths = append(paths, p)
		}
		return err
	})
	if err != nil || len(paths) == 0 {
		fmt.Fprintln(os.Stderr, "baredriver: no vectors in", dir, err)
		os.Exit(2)
	}
	work := make(chan string)
	var lines, failed atomic.Int64
	var wg sync.WaitGroup
	for range *jobs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for p := range work {
				j, err := load(p)
				if err != nil {
					fmt.Fprintln(os.Stderr, "baredriver:", p, err)
					os.Exit(2)
				}
				n, ok := drive(argv, j, *timeout)
				lines.Add(int64(n))
				if !ok {
					failed.Add(1)
					fmt.Fprintln(os.Stderr, "baredriver: timeout:", p)
				}
			}
		}()
	}
	for _, p := range paths {
		work <- p
	}
	close(work)
	wg.Wait()
	fmt.Println(len(paths), lines.Load())
	if failed.Load() > 0 {
		os.Exit(1)
	}
}

func load(path string) (job, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return job{}, err
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	var v suite.Vector
	if err := dec.Decode(&v); err != nil {
		return job{}, err
	}
	j := job{replies: len(v.Expect.Replies), mustExit: v.Expect.Exit != "" && len(v.Expect.Replies) == 0}
	for _, it := range v.Send {
		if _, await := it.AwaitKey(); await {
			continue // the bench suites have none; a floor does not wait
		}
		b, err := it.Bytes()
		if err != nil {
			return job{}, err
		}
		j.input = append(j.input, b)
	}
	return j, nil
}

// drive runs one vector; it returns the stdout lines read and false on timeout.
func drive(argv []string, j job, timeout time.Duration) (int, bool) {
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Env = []string{"PATH=" + os.Getenv("PATH"), "LANG=C.UTF-8"}
	stdin, _ := cmd.StdinPipe()
	stdout, _ := cmd.StdoutPipe()
	cmd.Stderr = io.Discard
	if err := cmd.Start(); err != nil {
		fmt.Fprintln(os.Stderr, "baredriver:", err)
		os.Exit(3)
	}
	closeIn := make(chan struct{})
	var once sync.Once
	closeStdin := func() { once.Do(func() { close(closeIn) }) }
	go func() {
		defer stdin.Close()
		for _, b := range j.input {
			if _, err := stdin.Write(b); err != nil {
				return
			}
		}
		<-closeIn
	}()
	timer := time.AfterFunc(timeout, func() { cmd.Process.Kill() })
	defer timer.Stop()
	if j.replies == 0 && !j.mustExit {
		closeStdin()
	}
	br := bufio.NewReaderSize(stdout, 64<<10)
	n := 0
	for {
		_, err := br.ReadSlice('\n')
		if err == bufio.ErrBufferFull {
			continue
		}
		if err != nil {
			break
		}
		n++
		if n == j.replies && !j.mustExit {
			closeStdin()
		}
	}
	closeStdin()
	cmd.Wait()
	return n, timer.Stop()
}
