// Command canonbench measures RFC 8785 canonicalization throughput of
// internal/canon: it reads a file of JSON lines, then canonicalizes every
// line (strict parse, then canonical bytes) -rounds times and prints
// "<MB/s> <seconds> <input bytes>", where MB is 10^6 bytes of input. Only
// the canonicalization loop is timed, not reading the file or process
// start. With -out it writes the canonical lines (LF-terminated) of the
// last round, so the output can be compared with another implementation's.
package main

import (
	"bufio"
	"bytes"
	"flag"
	"fmt"
	"os"
	"time"

	"github.com/conform-kit/conform/internal/canon"
)

func main() {
	rounds := flag.Int("rounds", 3, "passes over the input")
	out := flag.String("out", "", "write the canonical lines of the last pass to `file`")
	flag.Parse()
	if flag.NArg() != 1 {
		fmt.Fprintln(os.Stderr, "usage: canonbench [-rounds N] [-out FILE] FILE.jsonl")
		os.Exit(2)
	}
	data, err := os.ReadFile(flag.Arg(0))
	if err != nil {
		fmt.Fprintln(os.Stderr, "canonbench:", err)
		os.Exit(1)
	}
	lines := bytes.Split(bytes.TrimSuffix(data, []byte("\n")), []byte("\n"))
	results := make([][]byte, len(lines))
	start := time.Now()
	for range *rounds {
		for i, ln := range lines {
			b, err := canon.CanonicalBytes(ln)
			if err != nil {
				fmt.Fprintf(os.Stderr, "canonbench: line %d: %v\n", i+1, err)
				os.Exit(1)
			}
			results[i] = b
		}
	}
	secs := time.Since(start).Seconds()
	total := float64(len(data)) * float64(*rounds)
	fmt.Printf("%.2f %.3f %d\n", total/secs/1e6, secs, len(data))
	if *out != "" {
		f, err := os.Create(*out)
		if err != nil {
			fmt.Fprintln(os.Stderr, "canonbench:", err)
			os.Exit(1)
		}
		w := bufio.NewWriter(f)
		for _, b := range results {
			w.Write(b)
			w.WriteByte('\n')
		}
		if err := w.Flush(); err != nil {
			fmt.Fprintln(os.Stderr, "canonbench:", err)
			os.Exit(1)
		}
		f.Close()
	}
}
