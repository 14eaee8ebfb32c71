package compat

import (
	"strconv"
	"strings"

	"github.com/conform-kit/conform/internal/canon"
)

// Locate returns the 1-based line and column (in bytes) where the value at
// JSON Pointer ptr starts in the JSON text data; for an object member, the
// position of its name. When ptr does not exist in data, it returns the
// position of its longest existing ancestor and exact false. Malformed data
// gives line 1, column 1.
func Locate(data []byte, ptr string) (line, col int, exact bool) {
	var toks []string
	if ptr != "" {
		for _, t := range strings.Split(strings.TrimPrefix(ptr, "/"), "/") {
			toks = append(toks, canon.UnescapePointer(t))
		}
	}
	l := &locator{data: data}
	off, depth := l.find(toks)
	line, col = 1, 1
	for i := 0; i < off && i < len(data); i++ {
		if data[i] == '\n' {
			line++
			col = 1
		} else {
			col++
		}
	}
	return line, col, depth == len(toks)
}

type locator struct {
	data []byte
	i    int
}

func (l *locator) ws() {
	for l.i < len(l.data) {
		switch l.data[l.i] {
		case ' ', '\t', '\n', '\r':
			l.i++
		default:
			return
		}
	}
}

// find walks to the value named by toks; it returns the offset reached and
// how many tokens were found.
func (l *locator) find(toks []string) (int, int) {
	l.ws()
	best := l.i
	for depth, tok := range toks {
		l.ws()
		if l.i >= len(l.data) {
			return best, depth
		}
		switch l.data[l.i] {
		case '{':
			l.i++
			found := false
			for {
				l.ws()
				if l.i >= len(l.data) || l.data[l.i] == '}' {
					break
				}
				keyAt := l.i
				key, ok := l.str()
				if !ok {
					return best, depth
				}
				l.ws()
				if l.i < len(l.data) && l.data[l.i] == ':' {
					l.i++
				}
				if key == tok {
					best = keyAt
					found = true
					break
				}
				l.skip()
				l.ws()
				if l.i < len(l.data) && l.data[l.i] == ',' {
					l.i++
				}
			}
			if !found {
				return best, depth
			}
		case '[':
			n, err := strconv.Atoi(tok)
			if err != nil || n < 0 {
				return best, depth
			}
			l.i++
			for k := 0; k < n; k++ {
				l.ws()
				if l.i >= len(l.data) || l.data[l.i] == ']' {
					return best, depth
				}
				l.skip()
				l.ws()
				if l.i < len(l.data) && l.data[l.i] == ',' {
					l.i++
				}
			}
			l.ws()
			if l.i >= len(l.data) || l.data[l.i] == ']' {
				return best, depth
			}
			best = l.i
		default:
			return best, depth
		}
	}
	return best, len(toks)
}

// str reads a JSON string at l.i and decodes it.
func (l *locator) str() (string, bool) {
	if l.i >= len(l.data) || l.data[l.i] != '"' {
		return "", false
	}
	start := l.i
	l.i++
	for l.i < len(l.data) {
		switch l.data[l.i] {
		case '\\':
			l.i += 2
			continue
		case '"':
			l.i++
			v, err := canon.Parse(l.data[start:l.i])
			if err != nil {
				return "", false
			}
			s, _ := v.(string)
			return s, true
		}
		l.i++
	}
	return "", false
}

// skip moves past one JSON value.
func (l *locator) skip() {
	l.ws()
	if l.i >= len(l.data) {
		return
	}
	switch l.data[l.i] {
	case '"':
		l.str()
	case '{', '[':
		depth := 0
		for l.i < len(l.data) {
			switch l.data[l.i] {
			case '"':
				l.str()
				continue
			case '{', '[':
				depth++
			case '}', ']':
				depth--
				if depth == 0 {
					l.i++
					return
				}
			}
			l.i++
		}
	default:
		for l.i < len(l.data) && !strings.ContainsRune(",}] \t\r\n", rune(l.data[l.i])) {
			l.i++
		}
	}
}
