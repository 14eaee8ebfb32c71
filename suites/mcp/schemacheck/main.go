// Command schemacheck validates captured MCP traffic against the suite's
// schema: every line a server wrote in the transcripts under
// suites/mcp/observed/<server>/*.log (written by suites/mcp/observe.py) is
// checked against the root of schemas/mcp.v1.json, and every success
// response also against #/$defs/ResultByMethod/properties/<method> of the
// request with its id in the same transcript.
//
//	go run ./suites/mcp/schemacheck [DIR]    # DIR defaults to suites/mcp/observed
//
// It prints one line per violation and a count per server; exit status 1
// when any line is invalid. Lines that are not JSON objects are reported
// as such (a server MUST NOT write them: Basic, "Transports" / "stdio").
package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/conform-kit/conform/internal/canon"
	"github.com/conform-kit/conform/internal/schema"
)

func main() {
	dir := filepath.Join("suites", "mcp", "observed")
	if len(os.Args) > 1 {
		dir = os.Args[1]
	}
	os.Exit(run(dir))
}

func run(dir string) int {
	set := schema.NewSet(os.DirFS(filepath.Join(dir, "..")))
	root, err := set.Compile("schemas/mcp.v1.json")
	if err != nil {
		fmt.Fprintln(os.Stderr, "schemacheck:", err)
		return 2
	}
	servers, err := os.ReadDir(dir)
	if err != nil {
		fmt.Fprintln(os.Stderr, "schemacheck:", err)
		return 2
	}
	bad := 0
	for _, s := range servers {
		if !s.IsDir() {
			continue
		}
		logs, _ := filepath.Glob(filepath.Join(dir, s.Name(), "*.log"))
		sort.Strings(logs)
		lines, invalid := 0, 0
		for _, log := range logs {
			n, errs := checkLog(set, root, log)
			lines += n
			for _, e := range errs {
				fmt.Printf("%s: %s\n", log, e)
			}
			invalid += len(errs)
		}
		fmt.Printf("%-22s %4d lines checked, %d invalid\n", s.Name(), lines, invalid)
		bad += invalid
	}
	if bad > 0 {
		return 1
	}
	return 0
}

// decode reads one JSON value as the runner would (canon.Parse), falling
// back to json.Number decoding for integers beyond binary64, which MCP ids
// may be.
func decode(text string) (any, error) {
	v, err := canon.Parse([]byte(text))
	if err == nil {
		return v, nil
	}
	dec := json.NewDecoder(strings.NewReader(text))
	dec.UseNumber()
	var w any
	if dec.Decode(&w) != nil || !strings.Contains(err.Error(), "JSON_NUMBER_INEXACT") {
		return nil, err
	}
	return w, nil
}

func checkLog(set *schema.Set, root *schema.Schema, path string) (int, []string) {
	f, err := os.Open(path)
	if err != nil {
		return 0, []string{err.Error()}
	}
	defer f.Close()
	methods := map[string]string{} // sent request id (canonical JSON) -> method
	var errs []string
	n := 0
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 64<<20)
	for sc.Scan() {
		text := sc.Text()
		sent := strings.Contains(text, "ms > ")
		recv := strings.Contains(text, "ms < ")
		if !sent && !recv {
			continue
		}
		sep := " > "
		if recv {
			sep = " < "
		}
		body := text[strings.Index(text, sep)+3:]
		if recv && body == "(end of output)" {
			continue
		}
		var m map[string]json.RawMessage
		isObj := json.Unmarshal([]byte(body), &m) == nil
		if sent {
			if isObj && m["method"] != nil && m["id"] != nil {
				var method string
				_ = json.Unmarshal(m["method"], &method)
				methods[string(m["id"])] = method
			}
			continue
		}
		n++
		v, err := decode(body)
		if err != nil || !isObj {
			errs = append(errs, fmt.Sprintf("not a JSON object: %s", clip(body)))
			continue
		}
		if viol := root.Validate(v); viol != nil {
			errs = append(errs, fmt.Sprintf("%v: %s", viol, clip(body)))
			continue
		}
		if m["result"] != nil && m["method"] == nil {
			method, ok := methods[string(m["id"])]
			if !ok {
				continue
			}
			body, err := set.Compile("schemas/mcp.v1.json#/$defs/ResultByMethod/properties/" + strings.ReplaceAll(method, "/", "~1"))
			if err != nil {
				continue // a method the table does not list
			}
			if viol := body.Validate(v); viol != nil {
				errs = append(errs, fmt.Sprintf("ResultByMethod/%s %v: %s", method, viol, clip(body2(text))))
			}
		}
	}
	return n, errs
}

func body2(line string) string {
	if i := strings.Index(line, " < "); i >= 0 {
		return line[i+3:]
	}
	return line
}

func clip(s string) string {
	if len(s) > 300 {
		return s[:300] + "..."
	}
	return s
}
