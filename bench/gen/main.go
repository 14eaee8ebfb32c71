// Command gen writes the inputs of bench/run.sh.
//
//	gen vectors -n N -out DIR   copy suite.json and schemas/ into DIR and write
//	                            N session vectors into DIR/vectors/v1/agent,
//	                            cycling through the repository's agent
//	                            vectors (ids g<NNNNN>-<original id>)
//	gen corpus -n N -out FILE   write N JSONL control lines, every one valid
//	                            against schemas/control.v1.json: the frame
//	                            requests of the agent and host vectors and
//	                            the reference's replies to them, in pairs,
//	                            cycled (see corpus)
//
// It runs from the repository root and reads the suite from disk.
package main

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"sort"

	"github.com/conform-kit/conform/internal/canon"
	"github.com/conform-kit/conform/internal/schema"
	"github.com/conform-kit/conform/reference"
)

func main() {
	if len(os.Args) < 2 {
		fmt.Fprintln(os.Stderr, "usage: gen vectors|corpus -n N -out PATH")
		os.Exit(2)
	}
	fl := flag.NewFlagSet(os.Args[1], flag.ExitOnError)
	n := fl.Int("n", 1000, "how many vectors or lines")
	out := fl.String("out", "", "output directory (vectors) or file (corpus)")
	fl.Parse(os.Args[2:])
	if *out == "" {
		fmt.Fprintln(os.Stderr, "gen: -out is required")
		os.Exit(2)
	}
	var err error
	switch os.Args[1] {
	case "vectors":
		err = vectors(*n, *out)
	case "corpus":
		err = corpus(*n, *out)
	default:
		err = fmt.Errorf("unknown mode %q", os.Args[1])
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "gen:", err)
		os.Exit(1)
	}
}

// agentVectors returns the repository's agent vectors, decoded, in file order.
func agentVectors() ([]map[string]any, error) { return roleVectors("agent") }

// roleVectors returns the repository's v1 vectors of role, decoded, in
// file order.
func roleVectors(role string) ([]map[string]any, error) {
	paths, err := filepath.Glob("vectors/v1/" + role + "/*.json")
	if err != nil || len(paths) == 0 {
		return nil, fmt.Errorf("no vectors/v1/%s/*.json (run from the repository root)", role)
	}
	sort.Strings(paths)
	var out []map[string]any
	for _, p := range paths {
		data, err := os.ReadFile(p)
		if err != nil {
			return nil, err
		}
		v, err := canon.Parse(data)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", p, err)
		}
		out = append(out, v.(map[string]any))
	}
	return out, nil
}

func vectors(n int, dir string) error {
	src, err := agentVectors()
	if err != nil {
		return err
	}
	if err := copyFile("suite.json", filepath.Join(dir, "suite.json")); err != nil {
		return err
	}
	err = fs.WalkDir(os.DirFS("."), "schemas", func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		return copyFile(p, filepath.Join(dir, p))
	})
	if err != nil {
		return err
	}
	agent := filepath.Join(dir, "vectors/v1/agent")
	if err := os.MkdirAll(agent, 0o755); err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Join(dir, "golden/v1"), 0o755); err != nil {
		return err
	}
	for i := range n {
		// A copy: the source vector keeps its own id (writing the new id
		// into it made every later copy's id carry the earlier prefixes,
		// "g00078-g00000-...", up to 96 bytes).
		v := maps.Clone(src[i%len(src)])
		id := fmt.Sprintf("g%05d-%s", i, v["id"])
		if len(id) > 96 {
			id = id[:96]
		}
		v["id"] = id
		b, err := json.MarshalIndent(v, "", "  ")
		if err != nil {
			return err
		}
		if err := os.WriteFile(filepath.Join(agent, id+".json"), append(b, '\n'), 0o644); err != nil {
			return err
		}
	}
	return nil
}

func copyFile(from, to string) error {
	data, err := os.ReadFile(from)
	if err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(to), 0o755); err != nil {
		return err
	}
	return os.WriteFile(to, data, 0o644)
}

// corpus writes n lines cycling through request/reply pairs: each frame
// request of the v1 agent vectors answered by the reference agent, and each
// of the v1 host vectors answered by the reference host under the vector's
// policy. A pair is kept only when the request validates against the root
// Message and the reply against the root and, for a success reply, against
// ReplyBySubtype/<subtype>, so the corpus is valid for ajv-cli and
// check-jsonschema (root only) and for conform validate (which matches
// replies to requests) alike. Pairs are never split across the cycle, so
// every reply answers a request of the same cycle; a cut at line n can
// leave one request unanswered (a note, not a failure).
func corpus(n int, file string) error {
	set := schema.NewSet(os.DirFS("."))
	root, err := set.Compile("schemas/control.v1.json")
	if err != nil {
		return err
	}
	valid := func(loc string, line []byte) bool {
		v, err := canon.Parse(line)
		if err != nil {
			return false
		}
		sch := root
		if loc != "" {
			if sch, err = set.Compile(loc); err != nil {
				return false
			}
		}
		return sch.Validate(v) == nil
	}
	var lines [][]byte
	pairs, skipped := 0, 0
	collect := func(vs []map[string]any, handler func(v map[string]any) (func([]byte) ([]byte, error), error)) error {
		for _, v := range vs {
			handle, err := handler(v)
			if err != nil {
				return fmt.Errorf("%s: %w", v["id"], err)
			}
			for _, it := range v["send"].([]any) {
				f, ok := it.(map[string]any)["frame"]
				if !ok {
					continue
				}
				req, err := canon.Canonical(f)
				if err != nil {
					return err
				}
				reply, err := handle(req)
				if err != nil || reply == nil || !valid("", req) {
					skipped++
					continue
				}
				reply = bytes.TrimSpace(reply)
				sub, _ := f.(map[string]any)["request"].(map[string]any)["subtype"].(string)
				if !valid("", reply) || bytes.Contains(reply, []byte(`"subtype":"success"`)) &&
					!valid("schemas/control.v1.json#/$defs/ReplyBySubtype/properties/"+sub, reply) {
					skipped++
					continue
				}
				lines = append(lines, req, reply)
				pairs++
			}
		}
		return nil
	}
	agents, err := roleVectors("agent")
	if err != nil {
		return err
	}
	hosts, err := roleVectors("host")
	if err != nil {
		return err
	}
	if err := collect(agents, func(map[string]any) (func([]byte) ([]byte, error), error) {
		return reference.NewAgent().Handle, nil
	}); err != nil {
		return err
	}
	if err := collect(hosts, func(v map[string]any) (func([]byte) ([]byte, error), error) {
		var pol []byte
		if p, ok := v["policy"]; ok {
			var err error
			if pol, err = canon.Canonical(p); err != nil {
				return nil, err
			}
		}
		h, err := reference.NewHost(pol)
		if err != nil {
			return nil, err
		}
		return h.Handle, nil
	}); err != nil {
		return err
	}
	if len(lines) == 0 {
		return fmt.Errorf("no valid request/reply pairs")
	}
	var buf bytes.Buffer
	for i := range n {
		buf.Write(lines[i%len(lines)])
		buf.WriteByte('\n')
	}
	fmt.Fprintf(os.Stderr, "gen: %d request/reply pairs (%d requests skipped: invalid, unanswered or an invalid reply), %d lines written\n", pairs, skipped, n)
	return os.WriteFile(file, buf.Bytes(), 0o644)
}
