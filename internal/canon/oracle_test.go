package canon

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"unicode/utf8"

	"github.com/conform-kit/conform/internal/kiterr"
)

// parseOracle is the json.Decoder.Token based reader that [Parse] replaced,
// kept verbatim as the oracle of FuzzParseDifferential: Parse must give the
// same values and fail with the same codes (and messages).
func parseOracle(data []byte) (any, error) {
	if !utf8.Valid(data) {
		off := invalidUTF8Offset(data)
		return nil, kiterr.New(kiterr.JSONInvalidUTF8, "invalid UTF-8 at byte offset %d", off)
	}
	if off, ok := loneSurrogate(data); ok {
		line, col := position(data, off)
		return nil, kiterr.New(kiterr.JSONLoneSurrogate, "lone surrogate escape at %d:%d", line, col)
	}
	if bytes.HasPrefix(data, []byte("\xef\xbb\xbf")) {
		return nil, kiterr.New(kiterr.JSONSyntax, "at 1:1: byte order mark (U+FEFF) before the JSON value; JSON text must not begin with one (RFC 8259 §8.1)")
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	p := oracleParser{dec: dec, data: data}
	v, err := p.value("", 0)
	if err != nil {
		return nil, err
	}
	end := int(dec.InputOffset())
	if _, err := dec.Token(); err != io.EOF {
		for end < len(data) && isSpace(data[end]) {
			end++
		}
		line, col := position(data, end)
		return nil, kiterr.New(kiterr.JSONSyntax, "trailing data after JSON value at %d:%d", line, col)
	}
	return v, nil
}

type oracleParser struct {
	dec  *json.Decoder
	data []byte
}

func (p *oracleParser) syntax(err error) error {
	off, msg := int(p.dec.InputOffset()), err.Error()
	// A Decoder's SyntaxError.Offset can be relative to the token it was
	// reading; json.Unmarshal of the whole input reports the absolute one.
	var whole any
	var se *json.SyntaxError
	switch uerr := json.Unmarshal(p.data, &whole); {
	case err == io.EOF || err == io.ErrUnexpectedEOF:
		off, msg = len(p.data), "unexpected end of input"
	case errors.As(uerr, &se) && strings.Contains(se.Error(), "unexpected end"):
		off, msg = len(p.data), "unexpected end of input"
	case errors.As(uerr, &se):
		off, msg = max(0, int(se.Offset)-1), se.Error() // Offset counts the offending byte
	}
	line, col := position(p.data, off)
	return &kiterr.Error{Code: kiterr.JSONSyntax, Msg: fmt.Sprintf("at %d:%d: %s", line, col, msg)}
}

func (p *oracleParser) value(ptr string, depth int) (any, error) {
	tok, err := p.dec.Token()
	if err != nil {
		return nil, p.syntax(err)
	}
	return p.fromToken(tok, ptr, depth)
}

func (p *oracleParser) fromToken(tok json.Token, ptr string, depth int) (any, error) {
	switch t := tok.(type) {
	case json.Delim:
		if depth >= MaxDepth {
			return nil, kiterr.New(kiterr.JSONTooDeep, "nesting deeper than %d at %q", MaxDepth, ptr)
		}
		switch t {
		case '{':
			obj := map[string]any{}
			for p.dec.More() {
				kt, err := p.dec.Token()
				if err != nil {
					return nil, p.syntax(err)
				}
				key, ok := kt.(string)
				if !ok {
					return nil, p.syntax(fmt.Errorf("object key is not a string"))
				}
				if _, dup := obj[key]; dup {
					return nil, kiterr.New(kiterr.JSONDuplicateKey, "duplicate member %q in object at %q", key, ptrOrRoot(ptr))
				}
				v, err := p.value(ptr+"/"+EscapePointer(key), depth+1)
				if err != nil {
					return nil, err
				}
				obj[key] = v
			}
			if _, err := p.dec.Token(); err != nil {
				return nil, p.syntax(err)
			}
			return obj, nil
		case '[':
			arr := []any{}
			for i := 0; p.dec.More(); i++ {
				v, err := p.value(fmt.Sprintf("%s/%d", ptr, i), depth+1)
				if err != nil {
					return nil, err
				}
				arr = append(arr, v)
			}
			if _, err := p.dec.Token(); err != nil {
				return nil, p.syntax(err)
			}
			return arr, nil
		}
		return nil, p.syntax(fmt.Errorf("unexpected %q", t))
	case json.Number:
		if err := CheckNumber(t); err != nil {
			return nil, kiterr.Wrap(kiterr.JSONNumberInexact, err, "number at %q", ptrOrRoot(ptr))
		}
		return t, nil
	default:
		return t, nil // string, bool, nil
	}
}
