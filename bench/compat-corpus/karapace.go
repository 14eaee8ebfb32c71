package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/conform-kit/conform/internal/canon"
)

// Karapace's JSON Schema compatibility unit tests are Python: the schemas are
// module constants of tests/schemas/json_schemas.py written as
//
//	NAME = parse_jsonschema_definition('<json>' '<json continued>')
//	NAME = (OTHER, OTHER, ...)
//	NAME = A + B + C
//
// and the labels are calls in tests/unit/compatibility/jsonschema/
// test_jsonschema_compatibility.py:
//
//	schemas_are_compatible(reader=R, writer=W, msg=...)
//	not_schemas_are_compatible(reader=R, writer=W, msg=...)
//
// inside test functions, sometimes in "for schema in A + B:" loops with an
// "if schema != NAME:" filter. This file reads exactly that subset of Python
// as data (a tokenizer and a small statement walker); it runs none of
// Karapace's code. Commented-out calls are comments and are not cases.

const (
	karapaceSchemas = "tests/schemas/json_schemas.py"
	karapaceTests   = "tests/unit/compatibility/jsonschema/test_jsonschema_compatibility.py"
)

// loadKarapace reads a Karapace checkout (or a directory holding the two
// files at their paths) and returns one case per assertion. Karapace's
// compatibility(reader, writer) asks whether the reader schema accepts every
// value the writer schema accepts: old = writer, new = reader, checked in the
// reader direction; the same label is also checked in the writer direction
// with the schemas swapped (old = reader, new = writer: old consumers must
// accept every new value).
func loadKarapace(root string) ([]Case, error) {
	consts, err := readKarapaceSchemas(filepath.Join(root, karapaceSchemas))
	if err != nil {
		return nil, err
	}
	data, err := os.ReadFile(filepath.Join(root, karapaceTests))
	if err != nil {
		return nil, err
	}
	lines, err := pyLines(string(data))
	if err != nil {
		return nil, fmt.Errorf("%s: %w", karapaceTests, err)
	}
	w := &pyWalker{consts: consts}
	if err := w.block(lines, map[string]pyValue{}, ""); err != nil {
		return nil, fmt.Errorf("%s: %w", karapaceTests, err)
	}
	return w.cases, nil
}

// pyValue is a schema constant (JSON) or a tuple of them.
type pyValue struct {
	name  string
	json  any
	tuple []pyValue
	isTup bool
}

func readKarapaceSchemas(path string) (map[string]pyValue, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	lines, err := pyLines(string(data))
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	consts := map[string]pyValue{}
	for _, ln := range lines {
		t := ln.toks
		if ln.indent != 0 || len(t) < 3 || t[0].kind != tkName || t[1].text != "=" {
			continue
		}
		name := t[0].text
		rhs := t[2:]
		switch {
		case rhs[0].kind == tkName && rhs[0].text == "parse_jsonschema_definition":
			var sb strings.Builder
			for _, x := range rhs[1:] {
				if x.kind == tkString {
					sb.WriteString(x.text)
				}
			}
			v, err := canon.Parse([]byte(sb.String()))
			if err != nil {
				return nil, fmt.Errorf("%s line %d: schema %s: %w", path, ln.line, name, err)
			}
			consts[name] = pyValue{name: name, json: v}
		default:
			v, err := evalExpr(rhs, consts, nil)
			if err != nil {
				continue // not a schema constant (imports, helpers)
			}
			v.name = name
			consts[name] = v
		}
	}
	return consts, nil
}

// evalExpr evaluates NAME, (NAME, ...), and + of those.
func evalExpr(t []pyTok, consts, env map[string]pyValue) (pyValue, error) {
	var parts []pyValue
	for len(t) > 0 {
		var v pyValue
		switch {
		case t[0].kind == tkName:
			var ok bool
			if v, ok = env[t[0].text]; !ok {
				if v, ok = consts[t[0].text]; !ok {
					return pyValue{}, fmt.Errorf("unknown name %s", t[0].text)
				}
			}
			t = t[1:]
		case t[0].text == "(":
			v = pyValue{isTup: true}
			t = t[1:]
			for len(t) > 0 && t[0].text != ")" {
				if t[0].text == "," {
					t = t[1:]
					continue
				}
				if t[0].kind != tkName {
					return pyValue{}, fmt.Errorf("unexpected %q in tuple", t[0].text)
				}
				e, err := evalExpr(t[:1], consts, env)
				if err != nil {
					return pyValue{}, err
				}
				v.tuple = append(v.tuple, e)
				t = t[1:]
			}
			if len(t) == 0 {
				return pyValue{}, fmt.Errorf("unclosed tuple")
			}
			t = t[1:]
		default:
			return pyValue{}, fmt.Errorf("unexpected %q", t[0].text)
		}
		parts = append(parts, v)
		if len(t) > 0 {
			if t[0].text != "+" {
				return pyValue{}, fmt.Errorf("unexpected %q", t[0].text)
			}
			t = t[1:]
		}
	}
	if len(parts) == 1 {
		return parts[0], nil
	}
	out := pyValue{isTup: true}
	for _, p := range parts {
		if !p.isTup {
			return pyValue{}, fmt.Errorf("+ of a non-tuple")
		}
		out.tuple = append(out.tuple, p.tuple...)
	}
	return out, nil
}

type pyWalker struct {
	consts map[string]pyValue
	cases  []Case
	fn     string
	n      int
}

// block walks logical lines at one indentation level and deeper.
func (w *pyWalker) block(lines []pyLine, env map[string]pyValue, _ string) error {
	for i := 0; i < len(lines); i++ {
		ln := lines[i]
		t := ln.toks
		// the body of a compound statement: following lines indented deeper
		body := func() []pyLine {
			j := i + 1
			for j < len(lines) && lines[j].indent > ln.indent {
				j++
			}
			b := lines[i+1 : j]
			i = j - 1
			return b
		}
		switch {
		case t[0].text == "def" && len(t) > 1:
			w.fn, w.n = t[1].text, 0
			if err := w.block(body(), env, ""); err != nil {
				return err
			}
		case t[0].text == "for" && len(t) > 4 && t[2].text == "in" && t[len(t)-1].text == ":":
			v, err := evalExpr(t[3:len(t)-1], w.consts, env)
			if err != nil || !v.isTup {
				return fmt.Errorf("line %d: for over %v: %v", ln.line, t[3:len(t)-1], err)
			}
			b := body()
			for _, e := range v.tuple {
				inner := map[string]pyValue{}
				for k, x := range env {
					inner[k] = x
				}
				inner[t[1].text] = e
				if err := w.block(b, inner, ""); err != nil {
					return err
				}
			}
		case t[0].text == "if" && len(t) == 5 && (t[2].text == "!=" || t[2].text == "==") && t[4].text == ":":
			a, err1 := evalExpr(t[1:2], w.consts, env)
			b, err2 := evalExpr(t[3:4], w.consts, env)
			if err1 != nil || err2 != nil {
				return fmt.Errorf("line %d: if: %v %v", ln.line, err1, err2)
			}
			eq := jsonText(a.json) == jsonText(b.json)
			bl := body()
			if eq == (t[2].text == "==") {
				if err := w.block(bl, env, ""); err != nil {
					return err
				}
			}
		case t[0].kind == tkName && (t[0].text == "schemas_are_compatible" || t[0].text == "not_schemas_are_compatible") && len(t) > 1 && t[1].text == "(":
			args := map[string]pyValue{}
			for k := 2; k+2 < len(t); k++ {
				if t[k].kind == tkName && t[k+1].text == "=" && (t[k].text == "reader" || t[k].text == "writer") {
					v, err := evalExpr(t[k+2:k+3], w.consts, env)
					if err != nil {
						return fmt.Errorf("line %d: %w", ln.line, err)
					}
					args[t[k].text] = v
				}
			}
			r, okR := args["reader"]
			wr, okW := args["writer"]
			if !okR || !okW || r.isTup || wr.isTup {
				return fmt.Errorf("line %d: call without reader= and writer= schemas", ln.line)
			}
			w.n++
			compatible := t[0].text == "schemas_are_compatible"
			id := fmt.Sprintf("%s#%d reader=%s writer=%s", w.fn, w.n, r.name, wr.name)
			w.cases = append(w.cases, Case{Corpus: "karapace", ID: id, Line: ln.line, Old: wr.json, New: r.json, Labels: map[string]bool{dirReader: compatible}},
				Case{Corpus: "karapace", ID: id, Line: ln.line, Old: r.json, New: wr.json, Labels: map[string]bool{dirWriter: compatible}, Swapped: true})
		}
	}
	return nil
}

func jsonText(v any) string {
	b, err := canon.Canonical(v)
	if err != nil {
		return fmt.Sprint(v)
	}
	return string(b)
}

// --- a tokenizer for the Python subset ---------------------------------

type tokKind int

const (
	tkName tokKind = iota
	tkString
	tkOp
	tkNumber
)

type pyTok struct {
	kind tokKind
	text string // for strings: the decoded value
}

type pyLine struct {
	indent int
	line   int
	toks   []pyTok
}

// pyLines splits source into logical lines (joined inside brackets), drops
// comments and blank lines, and decodes string literals (escapes \\ \' \"
// \n \t; prefixes f, r, b, u are accepted, f-strings are taken literally).
func pyLines(src string) ([]pyLine, error) {
	var out []pyLine
	var cur *pyLine
	depth := 0
	line := 1
	atLineStart := true
	indent := 0
	i := 0
	for i < len(src) {
		c := src[i]
		if atLineStart && depth == 0 {
			indent = 0
			for i < len(src) && (src[i] == ' ' || src[i] == '\t') {
				indent++
				i++
			}
			atLineStart = false
			continue
		}
		switch {
		case c == '\n':
			line++
			i++
			if depth == 0 {
				if cur != nil {
					out = append(out, *cur)
					cur = nil
				}
				atLineStart = true
			}
		case c == ' ' || c == '\t' || c == '\r':
			i++
		case c == '\\' && i+1 < len(src) && src[i+1] == '\n':
			i += 2
			line++
		case c == '#':
			for i < len(src) && src[i] != '\n' {
				i++
			}
		default:
			if cur == nil {
				cur = &pyLine{indent: indent, line: line}
			}
			tok, n, nl, err := pyToken(src[i:])
			if err != nil {
				return nil, fmt.Errorf("line %d: %w", line, err)
			}
			line += nl
			i += n
			switch tok.text {
			case "(", "[", "{":
				if tok.kind == tkOp {
					depth++
				}
			case ")", "]", "}":
				if tok.kind == tkOp {
					depth--
				}
			}
			cur.toks = append(cur.toks, tok)
		}
	}
	if cur != nil {
		out = append(out, *cur)
	}
	return out, nil
}

func isNameByte(c byte) bool {
	return c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9'
}

// pyToken reads one token; it returns the token, the bytes consumed and the
// newlines inside it.
func pyToken(s string) (pyTok, int, int, error) {
	c := s[0]
	if isNameByte(c) && !(c >= '0' && c <= '9') {
		j := 0
		for j < len(s) && isNameByte(s[j]) {
			j++
		}
		if j < len(s) && (s[j] == '\'' || s[j] == '"') && j <= 2 && strings.Trim(strings.ToLower(s[:j]), "frbu") == "" {
			raw := strings.ContainsAny(s[:j], "rR")
			t, n, nl, err := pyString(s[j:], raw)
			return t, n + j, nl, err
		}
		return pyTok{kind: tkName, text: s[:j]}, j, 0, nil
	}
	if c >= '0' && c <= '9' {
		j := 0
		for j < len(s) && (isNameByte(s[j]) || s[j] == '.') {
			j++
		}
		return pyTok{kind: tkNumber, text: s[:j]}, j, 0, nil
	}
	if c == '\'' || c == '"' {
		return pyString(s, false)
	}
	for _, op := range []string{"->", "!=", "==", "**", "<=", ">="} {
		if strings.HasPrefix(s, op) {
			return pyTok{kind: tkOp, text: op}, len(op), 0, nil
		}
	}
	return pyTok{kind: tkOp, text: s[:1]}, 1, 0, nil
}

func pyString(s string, raw bool) (pyTok, int, int, error) {
	q := s[:1]
	if strings.HasPrefix(s, q+q+q) {
		q = q + q + q
	}
	var sb strings.Builder
	nl := 0
	for i := len(q); i < len(s); {
		if strings.HasPrefix(s[i:], q) {
			return pyTok{kind: tkString, text: sb.String()}, i + len(q), nl, nil
		}
		c := s[i]
		if c == '\n' {
			if len(q) == 1 {
				return pyTok{}, 0, 0, fmt.Errorf("newline in string")
			}
			nl++
		}
		if c == '\\' && !raw && i+1 < len(s) {
			switch s[i+1] {
			case 'n':
				sb.WriteByte('\n')
			case 't':
				sb.WriteByte('\t')
			case '\n':
				nl++
			default:
				sb.WriteByte(s[i+1])
			}
			i += 2
			continue
		}
		sb.WriteByte(c)
		i++
	}
	return pyTok{}, 0, 0, fmt.Errorf("unterminated string")
}
