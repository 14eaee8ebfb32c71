package main

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// Position encodings (LSP 3.17 "Basic JSON Structures" / "Position"
// and PositionEncodingKind): how a Position's character counts.
const (
	encUTF8  = "utf-8"
	encUTF16 = "utf-16"
	encUTF32 = "utf-32"
)

// negotiate picks the position encoding from the client's
// general.positionEncodings: the first one it lists that the server knows
// (all three), else utf-16, the only value a server may return when the
// client offered none (ServerCapabilities.positionEncoding).
func negotiate(offered []string) string {
	for _, e := range offered {
		switch e {
		case encUTF8, encUTF16, encUTF32:
			return e
		}
	}
	return encUTF16
}

// lineStarts returns the byte offsets at which each line of text starts.
// Line ends are "\n", "\r\n" and "\r" (LSP 3.17 "Text Documents": "the
// protocol supports the following end-of-line sequences").
func lineStarts(text string) []int {
	starts := []int{0}
	for i := 0; i < len(text); i++ {
		switch text[i] {
		case '\n':
			starts = append(starts, i+1)
		case '\r':
			if i+1 < len(text) && text[i+1] == '\n' {
				i++
			}
			starts = append(starts, i+1)
		}
	}
	return starts
}

// lineAt returns line n of text without its line end, and its start
// offset; ok is false past the last line.
func lineAt(text string, starts []int, n int) (line string, start int, ok bool) {
	if n < 0 || n >= len(starts) {
		return "", 0, false
	}
	start = starts[n]
	end := len(text)
	if n+1 < len(starts) {
		end = starts[n+1]
	}
	line = strings.TrimRight(text[start:end], "\r\n")
	return line, start, true
}

// units is the length of r in enc's code units.
func units(r rune, enc string) int {
	switch enc {
	case encUTF8:
		return utf8.RuneLen(r)
	case encUTF32:
		return 1
	}
	if r >= 0x10000 {
		return 2
	}
	return 1
}

// byteCol converts a character offset in enc units into a byte offset in
// line. A value past the line's end is the line's end ("Position":
// "If the character value is greater than the line length it defaults back
// to the line length"); one inside a character is that character's start.
func byteCol(line string, character int, enc string) int {
	n := 0
	for i, r := range line {
		u := units(r, enc)
		if n+u > character {
			return i
		}
		n += u
	}
	return len(line)
}

// unitCol converts a byte offset in line into enc units.
func unitCol(line string, b int, enc string) int {
	n := 0
	for i, r := range line {
		if i >= b {
			break
		}
		n += units(r, enc)
	}
	return n
}

// offset converts a Position into a byte offset in text. A line past the
// end is the end of text.
func offset(text string, line, character int, enc string) int {
	starts := lineStarts(text)
	l, start, ok := lineAt(text, starts, line)
	if !ok {
		return len(text)
	}
	return start + byteCol(l, character, enc)
}

// isWord reports whether r belongs to a word of the toy language.
func isWord(r rune) bool { return r == '_' || unicode.IsLetter(r) || unicode.IsNumber(r) }

// wordAt returns the word around byte offset b of line (b inside it or
// right after it) and its byte bounds; ok is false when there is none.
func wordAt(line string, b int) (word string, from, to int, ok bool) {
	from, to = b, b
	for from > 0 {
		r, size := utf8.DecodeLastRuneInString(line[:from])
		if !isWord(r) {
			break
		}
		from -= size
	}
	for to < len(line) {
		r, size := utf8.DecodeRuneInString(line[to:])
		if !isWord(r) {
			break
		}
		to += size
	}
	if from == to {
		return "", 0, 0, false
	}
	return line[from:to], from, to, true
}
