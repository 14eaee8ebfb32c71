// Command silent makes a server that stays silent on three requests out of
// one that answers them, for the bench/run.sh row "a server silent on
// three requests / the same server answering them" (issue 31 item 5). It
// starts COMMAND with its stdout and stderr as its own and copies its own
// stdin to COMMAND's line by line; with -drop it swallows the lines of the
// three JSON-RPC requests that some MCP servers ignore (the TypeScript SDK
// server among them): a batch (a line that is a JSON array), a message of
// "jsonrpc": "1.0", and a request whose id is null. COMMAND never sees them,
// so it never answers them; every other line reaches it unchanged. Without
// -drop every line reaches it, so both runs pay the same proxy.
//
//	silent [-drop] -- COMMAND [ARG...]
//
// It exits with COMMAND's exit status once COMMAND has ended (its stdin is
// closed when silent's is).
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
)

func main() {
	drop := flag.Bool("drop", false, "swallow batches, \"jsonrpc\": \"1.0\" and id null requests")
	flag.Parse()
	args := flag.Args() // the flag package takes the "--"
	if len(args) < 1 {
		fmt.Fprintln(os.Stderr, "usage: silent [-drop] -- COMMAND [ARG...]")
		os.Exit(2)
	}
	cmd := exec.Command(args[0], args[1:]...)
	cmd.Stdout, cmd.Stderr = os.Stdout, os.Stderr
	in, err := cmd.StdinPipe()
	if err == nil {
		err = cmd.Start()
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "silent:", err)
		os.Exit(2)
	}
	br := bufio.NewReaderSize(os.Stdin, 64<<10)
	for {
		line, err := br.ReadBytes('\n')
		if len(line) > 0 && !(*drop && ignored(line)) {
			if _, werr := in.Write(line); werr != nil {
				break
			}
		}
		if err != nil {
			if err != io.EOF {
				fmt.Fprintln(os.Stderr, "silent:", err)
			}
			break
		}
	}
	in.Close()
	if err := cmd.Wait(); err != nil {
		if ee, ok := err.(*exec.ExitError); ok {
			os.Exit(ee.ExitCode())
		}
		os.Exit(2)
	}
}

// ignored reports whether line is one of the three requests -drop swallows.
func ignored(line []byte) bool {
	t := bytes.TrimSpace(line)
	if len(t) > 0 && t[0] == '[' {
		return true
	}
	var m map[string]json.RawMessage
	if json.Unmarshal(t, &m) != nil {
		return false
	}
	if v, ok := m["jsonrpc"]; ok && string(bytes.TrimSpace(v)) == `"1.0"` {
		return true
	}
	_, isReq := m["method"]
	id, hasID := m["id"]
	return isReq && hasID && string(bytes.TrimSpace(id)) == "null"
}
