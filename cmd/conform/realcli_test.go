package main

import (
	"bytes"
	"context"
	"encoding/base64"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestAgentTapKeepsTheSessionRecords: the tap that stands in for the agent
// double in `run --agent` takes the options the runner gives the double
// (--argv, --end, --max-line, then -- and the host's argv) and keeps the
// same records: the host's argv and an end record, which the runner needs
// to judge the session (without them every vector was AGENT_NOT_STARTED).
func TestAgentTapKeepsTheSessionRecords(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	cli := filepath.Join(dir, "cli.sh")
	writeScript(t, cli, "#!/bin/sh\nexit 0\n")
	frame := `{"type":"control_request","request_id":"req-1","request":{"subtype":"can_use_tool","tool_name":"Bash","input":{"command":"touch x"},"tool_use_id":"toolu_01"}}`
	plan := `{"send":["` + base64.StdEncoding.EncodeToString([]byte(frame)) + `"],"replies":["req-1"],"timeout_ms":3000}`
	path := func(name string) string { return filepath.Join(dir, name) }
	if err := os.WriteFile(path("plan.json"), []byte(plan), 0o600); err != nil {
		t.Fatal(err)
	}
	var stderr bytes.Buffer
	cmdAgentTap(context.Background(), []string{"--cli", cli, "--plan", path("plan.json"), "--transcript", path("t"),
		"--observed", path("o"), "--argv", path("argv"), "--end", path("end.json"), "--max-line", "1048576", "--",
		"--output-format", "stream-json", "--permission-prompt-tool=stdio"}, strings.NewReader(""), &bytes.Buffer{}, &stderr)
	if strings.Contains(stderr.String(), "unknown option") || strings.Contains(stderr.String(), "USAGE") {
		t.Fatalf("the tap refused the runner's options: %s", stderr.String())
	}
	argv, err := os.ReadFile(path("argv"))
	if err != nil || string(argv) != `["--output-format","stream-json","--permission-prompt-tool=stdio"]`+"\n" {
		t.Errorf("argv record %q (%v), want the host's argv after --", argv, err)
	}
	if _, err := os.Stat(path("end.json")); err != nil {
		t.Errorf("no end record: %v (stderr %s)", err, stderr.String())
	}
}
