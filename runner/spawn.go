package runner

import (
	"bufio"
	"bytes"
	"encoding/base64"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"

	"github.com/conform-kit/conform/internal/kiterr"
	"github.com/conform-kit/conform/internal/proc"
	"github.com/conform-kit/conform/internal/suite"
)

// Plan is what the agent double plays in spawned mode, written as JSON to a
// file whose path the double gets with --plan:
//
//	{"send":["<base64 line without LF>",...],"replies":[<request_id>,...],"timeout_ms":10000}
//
// The double answers the host's own requests (initialize, then the user
// turn), writes each send line to the host, waits up to TimeoutMS for a
// control_response to every request_id in Replies, then ends the session.
// It appends every line the host wrote, except the host's own control
// requests and user turns, to the --transcript file (one line each, as
// received), and those to the --observed file.
type Plan struct {
	Send      []string `json:"send"`
	Replies   []any    `json:"replies"`
	TimeoutMS int64    `json:"timeout_ms"`
}

type spawnFiles struct {
	agent, plan, transcript, observed string
}

// writeSpawn writes the plan and an executable "agent" wrapper that starts
// the agent double (Config.Spawn) with the plan's paths. Only paths go
// through the wrapper's shell line, each single-quoted; vector content
// stays in the plan file.
func (p *plan) writeSpawn(dir string, v *suite.Vector, input [][]byte) (*spawnFiles, error) {
	sf := &spawnFiles{
		agent:      filepath.Join(dir, "agent"),
		plan:       filepath.Join(dir, "plan.json"),
		transcript: filepath.Join(dir, "transcript.jsonl"),
		observed:   filepath.Join(dir, "observed.jsonl"),
	}
	pl := Plan{Replies: v.Expect.Replies, TimeoutMS: p.cfg.Timeout.Milliseconds()}
	if pl.Replies == nil {
		pl.Replies = []any{}
	}
	for _, b := range input {
		pl.Send = append(pl.Send, base64.StdEncoding.EncodeToString(bytes.TrimSuffix(b, []byte("\n"))))
	}
	data, err := json.Marshal(pl)
	if err != nil {
		return nil, kiterr.Wrap(kiterr.IO, err, "encode plan")
	}
	if err := os.WriteFile(sf.plan, data, 0o600); err != nil {
		return nil, kiterr.Wrap(kiterr.IO, err, "write plan")
	}
	argv := append(append([]string{}, p.cfg.Spawn...), "--plan", sf.plan, "--transcript", sf.transcript, "--observed", sf.observed)
	quoted := make([]string, len(argv))
	for i, a := range argv {
		quoted[i] = "'" + strings.ReplaceAll(a, "'", `'\''`) + "'"
	}
	script := "#!/bin/sh\nexec " + strings.Join(quoted, " ") + ` "$@"` + "\n"
	if err := os.WriteFile(sf.agent, []byte(script), 0o700); err != nil {
		return nil, kiterr.Wrap(kiterr.IO, err, "write agent wrapper")
	}
	if o := p.cfg.Isolate; o != nil {
		// The isolated host runs the wrapper, and the double reads the plan.
		for _, f := range []string{sf.plan, sf.agent} {
			if err := os.Chown(f, int(o.UID), int(o.GID)); err != nil {
				return nil, kiterr.Wrap(kiterr.IO, err, "give the agent double's files to the isolated user")
			}
		}
	}
	return sf, nil
}

// replay feeds the transcript to handle as if the host had written it on
// stdout, and records the host's own requests as notes.
func (sf *spawnFiles) replay(o *outcome, handle func(proc.Line), maxLine int) {
	eachLine(sf.transcript, func(line []byte) {
		if len(line) > maxLine {
			handle(proc.Line{Size: len(line), Err: proc.ErrLineTooLong})
			return
		}
		handle(proc.Line{Data: line, Size: len(line)})
	})
	eachLine(sf.observed, func(line []byte) {
		o.add(FindingHostSent, "", "the host sent the agent %s", quote(line))
	})
}

func eachLine(path string, fn func([]byte)) {
	f, err := os.Open(path)
	if err != nil {
		return // no file: the double never started or saw nothing
	}
	defer f.Close()
	br := bufio.NewReader(f)
	for {
		line, err := br.ReadBytes('\n')
		if len(line) > 0 {
			fn(bytes.TrimSuffix(line, []byte("\n")))
		}
		if err != nil {
			return
		}
	}
}
