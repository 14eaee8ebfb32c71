package reference_test

import (
	"bytes"
	"context"
	"strings"
	"testing"

	"github.com/conform-kit/conform/reference"
)

func TestMainRoleAndVersion(t *testing.T) {
	interrupt := `{"type":"control_request","request_id":"r1","request":{"subtype":"interrupt"}}` + "\n"
	tests := []struct {
		name   string
		args   []string
		env    map[string]string
		stdin  string
		code   int
		stdout string // substring
		stderr string // substring
	}{
		{name: "defaults: agent v1", stdin: interrupt, code: 0, stdout: `"request_id":"r1"`},
		{name: "env picks host v1 (its policy is checked)", env: map[string]string{"CONFORM_ROLE": "host", "CONFORM_POLICY": "not json"}, code: 2, stderr: "conform reference:"},
		{name: "flag overrides env", args: []string{"--role", "agent"}, env: map[string]string{"CONFORM_ROLE": "host", "CONFORM_POLICY": "not json"}, stdin: interrupt, code: 0, stdout: `"request_id":"r1"`},
		{name: "env version 3", env: map[string]string{"CONFORM_PROTOCOL_VERSION": "3"}, code: 2, stderr: "no agent role for version 3"},
		{name: "env version not a number", env: map[string]string{"CONFORM_PROTOCOL_VERSION": "two"}, code: 2, stderr: "not a number"},
		{name: "unknown role", args: []string{"--role", "judge"}, code: 2, stderr: "no judge role"},
		{name: "bad flag", args: []string{"--nope"}, code: 2},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var out, errb bytes.Buffer
			getenv := func(k string) string { return tt.env[k] }
			code := reference.Main(context.Background(), tt.args, strings.NewReader(tt.stdin), &out, &errb, getenv)
			if code != tt.code {
				t.Fatalf("exit %d, want %d; stderr %q", code, tt.code, errb.String())
			}
			if !strings.Contains(out.String(), tt.stdout) {
				t.Errorf("stdout %q lacks %q", out.String(), tt.stdout)
			}
			if !strings.Contains(errb.String(), tt.stderr) {
				t.Errorf("stderr %q lacks %q", errb.String(), tt.stderr)
			}
		})
	}
}
