package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"

	"github.com/conform-kit/conform/internal/kiterr"
	"github.com/conform-kit/conform/runner"
	"github.com/conform-kit/conform/suites"
)

// cmdInit is `conform init DIR`: a new suite that validates, for a JSON-lines
// request/reply protocol, to edit into the team's own (docs/writing-a-suite.md).
func cmdInit(args []string, stdout, stderr io.Writer) int {
	fl := flag.NewFlagSet("init", flag.ContinueOnError)
	name := fl.String("name", "", "the suite's `name` (default: the directory's name)")
	role := fl.String("role", "server", "the `role` the IUT plays in the example vector")
	if code, ok := parseFlags(fl, args, stdout, stderr); !ok {
		return code
	}
	if fl.NArg() != 1 {
		return usageError(stderr, "init", "give one directory to create the suite in (new, or empty)")
	}
	dir := fl.Arg(0)
	if !regexp.MustCompile(`^[a-z][a-z0-9-]{0,31}$`).MatchString(*role) {
		return usageError(stderr, "init", "--role %q: a role is lowercase letters, digits and '-', starting with a letter", *role)
	}
	if *name == "" {
		abs, err := filepath.Abs(dir)
		if err != nil {
			return fail(stderr, kiterr.Wrap(kiterr.IO, err, "init %s", dir))
		}
		*name = filepath.Base(abs) + " suite"
	}
	made, err := emptyDir(dir)
	if err != nil {
		return fail(stderr, err)
	}
	// A suite half written is no suite: on a failure, what init wrote is
	// removed (the directory too, when init made it).
	undo := func(err error) int {
		if made {
			_ = os.RemoveAll(dir)
		} else if ents, rerr := os.ReadDir(dir); rerr == nil {
			for _, e := range ents {
				_ = os.RemoveAll(filepath.Join(dir, e.Name()))
			}
		}
		return fail(stderr, err)
	}
	files := scaffold(*name, *role)
	for _, rel := range sortedFiles(files) {
		target := filepath.Join(dir, filepath.FromSlash(rel))
		if err := os.MkdirAll(filepath.Dir(target), 0o755); err != nil {
			return undo(kiterr.Wrap(kiterr.InitDirUnusable, err, "init %s: make %s", dir, filepath.Dir(rel)))
		}
		if err := os.WriteFile(target, []byte(files[rel]), 0o644); err != nil {
			return undo(kiterr.Wrap(kiterr.InitDirUnusable, err, "init %s: write %s", dir, rel))
		}
	}
	digest, err := runner.WriteManifest(dir)
	if err != nil {
		return undo(kiterr.Wrap(kiterr.InitDirUnusable, err, "init %s: write MANIFEST.sha256", dir))
	}
	fmt.Fprintf(stdout, "created suite %q in %s (%s)\n", *name, dir, digest)
	fmt.Fprintf(stdout, "next: edit %s, %s and %s; then\n",
		filepath.Join(dir, "suite.json"), filepath.Join(dir, "schemas", "protocol.v1.json"), filepath.Join(dir, "vectors", "v1", *role, "echo.json"))
	fmt.Fprintf(stdout, "  conform golden --update --suite %s -- ./your-reference   # goldens from your reference implementation\n", dir)
	fmt.Fprintf(stdout, "  conform run --suite %s -- ./your-implementation          # certify an implementation\n", dir)
	fmt.Fprintln(stdout, "docs/writing-a-suite.md walks the whole path.")
	return exitPass
}

// emptyDir makes dir (made is then true), or checks that it is an empty
// directory. Errors: USAGE (not empty, not a directory),
// INIT_DIR_UNUSABLE (a symbolic link to nothing, or a directory that
// cannot be made or read: a read-only or forbidden place).
func emptyDir(dir string) (made bool, err error) {
	st, err := os.Stat(dir)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		if lst, lerr := os.Lstat(dir); lerr == nil && lst.Mode()&fs.ModeSymlink != 0 {
			target, _ := os.Readlink(dir)
			return false, kiterr.New(kiterr.InitDirUnusable, "%s is a symbolic link to %q, which does not exist: give the directory itself", dir, target)
		}
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return false, kiterr.Wrap(kiterr.InitDirUnusable, err, "make %s", dir)
		}
		return true, nil
	case err != nil:
		return false, kiterr.Wrap(kiterr.InitDirUnusable, err, "stat %s", dir)
	case !st.IsDir():
		return false, kiterr.New(kiterr.Usage, "%s exists and is not a directory", dir)
	}
	ents, err := os.ReadDir(dir)
	if err != nil {
		return false, kiterr.Wrap(kiterr.InitDirUnusable, err, "read %s", dir)
	}
	if len(ents) > 0 {
		return false, kiterr.New(kiterr.Usage, "%s is not empty: conform init writes a new suite into a new or empty directory", dir)
	}
	return false, nil
}

func sortedFiles(m map[string]string) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	for i := range out {
		for j := i + 1; j < len(out); j++ {
			if out[j] < out[i] {
				out[i], out[j] = out[j], out[i]
			}
		}
	}
	return out
}

// scaffold returns the files of a new suite: a JSON-lines protocol whose
// requests are {"id", "method", "params"} and whose replies are {"id",
// "result"} or {"id", "error"} (the shape of JSON-RPC 2.0 without its
// version member), one role, one vector, and a README for the team.
func scaffold(name, role string) map[string]string {
	q := func(s string) string { b, _ := jsonString(s); return b }
	manifest := `{
  "name": ` + q(name) + `,
  "description": "A JSON-lines request/reply protocol: one JSON object a line; requests carry id and method, replies the same id and result or error.",
  "versions": [
    {
      "version": 1,
      "status": "draft",
      "schema": "schemas/protocol.v1.json",
      "vectors": "vectors/v1",
      "golden": "golden/v1",
      "roles": [{"name": ` + q(role) + `, "description": "The IUT answers the requests the runner sends."}],
      "classes": [
        {"name": "core", "role": ` + q(role) + `, "title": "core",
         "description": "What every implementation of the role does: echo, and the reply to each request. Add a class per optional feature, with derive predicates over the frames of a preflight vector when the protocol negotiates it.",
         "source": "your protocol's specification, section ...", "always": true}
      ],
      "envelope": {
        "frames": [
          {"name": "reply", "kind": "reply", "when": [{"path": "/method", "absent": true}, {"path": "/id", "present": true}],
           "id": "/id", "success": [{"path": "/result", "present": true}], "error": [{"path": "/error", "present": true}]},
          {"name": "request", "kind": "request", "when": [{"path": "/method", "present": true}, {"path": "/id", "present": true}],
           "id": "/id", "method": "/method"},
          {"name": "notification", "kind": "notification", "when": [{"path": "/method", "present": true}, {"path": "/id", "absent": true}],
           "method": "/method", "key": ["/method"]}
        ],
        "replyBody": "#/$defs/ResultByMethod/properties"
      },
      "conformance": {
        "text": [{"path": "/error/message", "format": "string", "reason": "error messages are for people; error.code is compared"}]
      }
    }
  ]
}
`
	schema := `{
  "$schema": "https://json-schema.org/draft/2020-12/schema",
  "title": "protocol v1: one JSON object a line",
  "oneOf": [{"$ref": "#/$defs/Request"}, {"$ref": "#/$defs/Notification"}, {"$ref": "#/$defs/Reply"}, {"$ref": "#/$defs/ErrorReply"}],
  "$defs": {
    "Id": {"type": ["string", "integer"]},
    "Request": {"type": "object", "required": ["id", "method"], "properties": {"id": {"$ref": "#/$defs/Id"}, "method": {"type": "string"}, "params": {"type": "object"}}},
    "Notification": {"type": "object", "required": ["method"], "not": {"required": ["id"]}, "properties": {"method": {"type": "string"}, "params": {"type": "object"}}},
    "Reply": {"type": "object", "required": ["id", "result"], "not": {"required": ["method"]}, "properties": {"id": {"$ref": "#/$defs/Id"}, "result": true}},
    "ErrorReply": {"type": "object", "required": ["id", "error"], "not": {"required": ["method"]},
      "properties": {"id": {"$ref": "#/$defs/Id"}, "error": {"type": "object", "required": ["code", "message"], "properties": {"code": {"type": "integer"}, "message": {"type": "string"}}}}},
    "ResultByMethod": {
      "description": "A success reply to a request of each method must validate against its member.",
      "properties": {
        "echo": {"type": "object", "required": ["result"], "properties": {"result": {"type": "object", "required": ["text"], "properties": {"text": {"type": "string"}}}}}
      }
    }
  }
}
`
	vector := `{
  "id": "echo",
  "class": "core",
  "version": 1,
  "kind": "session",
  "level": "required",
  "role": ` + q(role) + `,
  "description": "An echo request gets one reply with the same id and the text it was sent.",
  "source": "your protocol's specification, section ...",
  "send": [{"frame": {"id": 1, "method": "echo", "params": {"text": "hello"}}}],
  "expect": {"replies": [1]}
}
`
	// One valid message vector per schema definition, so that the new suite
	// validates with every definition covered once it has its goldens.
	message := func(id, def, description, msg string, valid bool) string {
		return `{
  "id": ` + q(id) + `,
  "version": 1,
  "kind": "message",
  "level": "required",
  "description": ` + q(description) + `,
  "source": "your protocol's specification, section ...",
  "definition": ` + q(def) + `,
  "message": ` + msg + `,
  "valid": ` + fmt.Sprint(valid) + `
}
`
	}
	messages := map[string]string{
		"msg-id":                 message("msg-id", "#/$defs/Id", "An id is a string or an integer.", `"req-1"`, true),
		"msg-request":            message("msg-request", "#/$defs/Request", "A request carries an id and a method.", `{"id": 1, "method": "echo", "params": {"text": "hello"}}`, true),
		"msg-notification":       message("msg-notification", "#/$defs/Notification", "A notification carries a method and no id.", `{"method": "log", "params": {"line": "started"}}`, true),
		"msg-notification-id":    message("msg-notification-id", "#/$defs/Notification", "A frame with an id is not a notification.", `{"id": 1, "method": "log"}`, false),
		"msg-reply":              message("msg-reply", "#/$defs/Reply", "A success reply carries the request's id and a result.", `{"id": 1, "result": {}}`, true),
		"msg-error-reply":        message("msg-error-reply", "#/$defs/ErrorReply", "An error reply carries the request's id and an error with a code and a message.", `{"id": 1, "error": {"code": -32601, "message": "no such method"}}`, true),
		"msg-echo-result":        message("msg-echo-result", "#/$defs/ResultByMethod/properties/echo", "A reply to echo has the text as its result.", `{"id": 1, "result": {"text": "hello"}}`, true),
		"msg-echo-result-number": message("msg-echo-result-number", "#/$defs/ResultByMethod/properties/echo", "The echoed text is a string.", `{"id": 1, "result": {"text": 1}}`, false),
	}
	readme := "# " + name + "\n\n" +
		"A conform suite (docs/suite-format.md and docs/vector-format.md in the conform kit say what each file means).\n\n" +
		"```sh\n" +
		"conform list --suite .                               # the vectors\n" +
		"conform golden --update --suite . -- ./reference     # golden summaries from your reference implementation\n" +
		"conform run --suite . -- ./an-implementation         # certify an implementation\n" +
		"conform manifest --suite .                           # rewrite MANIFEST.sha256 after editing files by hand\n" +
		"```\n"
	files := map[string]string{
		"suite.json":                        manifest,
		"schemas/protocol.v1.json":          schema,
		"vectors/v1/" + role + "/echo.json": vector,
		"README.md":                         readme,
	}
	for id, m := range messages {
		files["vectors/v1/message/"+id+".json"] = m
	}
	return files
}

// jsonString renders s as a JSON string.
func jsonString(s string) (string, error) {
	var b strings.Builder
	b.WriteByte('"')
	for _, r := range s {
		switch {
		case r == '"' || r == '\\':
			b.WriteByte('\\')
			b.WriteRune(r)
		case r < 0x20:
			fmt.Fprintf(&b, `\u%04x`, r)
		default:
			b.WriteRune(r)
		}
	}
	b.WriteByte('"')
	return b.String(), nil
}

// cmdManifest is `conform manifest [--suite DIR]`: rewrite MANIFEST.sha256
// over the suite's files (after editing a vector or schema by hand).
func cmdManifest(args []string, stdout, stderr io.Writer) int {
	fl := flag.NewFlagSet("manifest", flag.ContinueOnError)
	suiteDir := fl.String("suite", ".", "suite root `dir` on disk")
	if code, ok := parseFlags(fl, args, stdout, stderr); !ok {
		return code
	}
	if fl.NArg() > 0 {
		return usageError(stderr, "manifest", "unexpected argument %q (conform manifest -h lists the flags)", fl.Arg(0))
	}
	if !suites.IsPath(*suiteDir) {
		return usageError(stderr, "manifest", "--suite %q names a suite embedded in conform, which cannot be written: give its folder (%s in a clone of conform)", *suiteDir, suiteFolderHint(*suiteDir))
	}
	digest, err := runner.WriteManifest(*suiteDir)
	if err != nil {
		return fail(stderr, err)
	}
	fmt.Fprintf(stdout, "wrote %s (suite digest %s)\n", filepath.Join(*suiteDir, "MANIFEST.sha256"), digest)
	return exitPass
}
