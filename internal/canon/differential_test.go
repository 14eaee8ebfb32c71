package canon

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/conform-kit/conform/internal/kiterr"
)

// rfc8259Edges are inputs at the edges of the RFC 8259 grammar and of the
// strict rules, for FuzzParseDifferential.
func rfc8259Edges() []string {
	deep := func(n int, open, close string) string {
		return strings.Repeat(open, n) + strings.Repeat(close, n)
	}
	members := func(n int, dupAt int) string {
		var b strings.Builder
		b.WriteByte('{')
		for i := range n {
			if i > 0 {
				b.WriteByte(',')
			}
			k := i
			if i == dupAt {
				k = 0
			}
			fmt.Fprintf(&b, `"k%d":[%d]`, k, i)
		}
		b.WriteByte('}')
		return b.String()
	}
	return []string{
		// Whitespace: only the four JSON bytes.
		" \t\r\n1 \t\r\n", "\f1", "\v1", "\u00a01", "\xef\xbb\xbf{}", "1\u2028", "[1\x00]",
		// Numbers.
		"-", "-0", "-01", "00", "0.", ".5", "1.", "1e", "1e+", "1E-0", "+1", "0x10", "Infinity", "-Infinity",
		"NaN", "1.0e+308", "1e309", "-0.0e-0", "-0.e1", "1.e1", "1e1.5", "123456789012345", "1234567890123456",
		"9007199254740993", "-9007199254740993.5", "4e-9999", "1_000", "[-]", "[1.]", "[1e]", "[01]", "[-x]",
		"[1x]", "[1.5.]", "18446744073709551616", "1000000000000000000000", "1E400", "0e0", "-0E-0",
		"[" + strings.Repeat("9", 400) + "]", "0." + strings.Repeat("1", 400), "1e" + strings.Repeat("9", 30),
		// Literals.
		"tru", "truee", "nulL", "True", "false ", "fals", "nul x", "[t]", "[nul]", "{\"a\":f}", "null null",
		// Strings.
		`"\u"`, `"\u12"`, `"\u12G4"`, `"\U0041"`, `"\a"`, `"\'"`, `"\x41"`, "\"\t\"", "\"\x7f\"", "\"\x1f\"",
		`"\ud83d\ude00"`, `"\ud83d"`, `"\ude00"`, `"\ud83d\u0041"`, `"\ud83d\\ude00"`, `"\ud83dx\ude00"`,
		`"\uDBFF\uDFFF"`, `"\uD800\uDC00"`, `"\u0000"`, "\"\x00\"", `"\/"`, "\"\xc0\xaf\"", "\"\xf4\x90\x80\x80\"",
		"\"\xef\xbf\xbd\"", `"\uFFFD"`, `"\`, `"\\`, `"\ud83d\ude0`, `"\ud83d\u`, `"a\"b\\c\/d\be\ff\ng\rh\ti"`,
		`"\u12"x"\ud800"`, `["\u12", "\ud800"]`, "\"\xed\xa0\x80\"", "\"\xe2\x82\"", "\"é\"", "é",
		// Structure.
		"[1,]", "[,1]", "[1 2]", "{,}", `{"a":1,}`, `{"a" 1}`, `{"a":}`, `{"a"}`, `{a:1}`, `{"a":1 "b":2}`,
		"[", "]", "{", "}", "[]]", "[[]", "{}}", `{"a":1}}`, "/*c*/1", "1//c", "# c\n1", "[1]\x00", "\x00",
		"", "  ", "[\n1\n,\n]", `{"":1,"":2}`, `{"a":{"a":1},"a":2}`, `{"a":1,"a"`, `{"a":1,"a" 2}`,
		`{"a":1,"a":[12345678901234567890]}`, `{"a":[12345678901234567890x`, `[12345678901234567890`, `{"a":[1,{"b":2,"b"`,
		"{\"a\"\n:\n1\n}", "[1,\n 2,,]", "{\n  \"a\": ,\n}", `{"a":1,"b":[true,false,null,{}],"c":{"d":[]}}`,
		`{"a/b":{"~":[0,1,12345678901234567890]}}`, `{"x~1/":[[{"":1e400}]]}`,
		// Errors in several places: which one wins.
		"[1,] \"\\ud800\"", "{\"a\":1,\"a\":2} \"\xff\"", `12345678901234567890 "\udc00"`, "{} x", `{} "\ud800"`,
		"[1,]\xff", `[1e400,"\udc00"]`, `{"a":1,"a":2,"b":"\ud800"}`, `[` + deep(600, "[", "]") + `,"\ud800"]`,
		"{} {", "{}\n\n  [1]", `{} "abc`, "1 2", "\"a\x01\" \"\\ud800\"",
		// Depth and size.
		deep(MaxDepth, "[", "]"), deep(MaxDepth+1, "[", "]"), deep(MaxDepth-1, `{"a":`, "}") + "}",
		strings.Repeat(`{"a":`, MaxDepth-1) + "{}" + strings.Repeat("}", MaxDepth-1),
		strings.Repeat(`{"a/~":[`, MaxDepth/2) + "0" + strings.Repeat("]}", MaxDepth/2),
		strings.Repeat(`[{"a":`, 300) + "[1,", deep(MaxDepth+1, "[", ""),
		members(15, -1), members(16, -1), members(17, -1), members(40, -1),
		members(15, 14), members(16, 15), members(17, 16), members(40, 16), members(40, 39),
	}
}

// corpusSeeds returns the inputs of the stored seed corpora of FuzzParse and
// FuzzCanonical.
func corpusSeeds(tb testing.TB) [][]byte {
	tb.Helper()
	var seeds [][]byte
	for _, dir := range []string{"testdata/fuzz/FuzzParse", "testdata/fuzz/FuzzCanonical"} {
		entries, err := os.ReadDir(dir)
		if err != nil {
			tb.Fatalf("seed corpus: %v", err)
		}
		if len(entries) == 0 {
			tb.Fatalf("seed corpus %s is empty", dir)
		}
		for _, e := range entries {
			raw, err := os.ReadFile(filepath.Join(dir, e.Name()))
			if err != nil {
				tb.Fatal(err)
			}
			header, body, _ := strings.Cut(strings.TrimSpace(string(raw)), "\n")
			lit, ok := strings.CutPrefix(strings.TrimSpace(body), "[]byte(")
			lit, ok2 := strings.CutSuffix(lit, ")")
			s, err := strconv.Unquote(lit)
			if header != "go test fuzz v1" || !ok || !ok2 || err != nil {
				tb.Fatalf("seed %s/%s is not one []byte in go test fuzz v1 format", dir, e.Name())
			}
			seeds = append(seeds, []byte(s))
		}
	}
	return seeds
}

// FuzzParseDifferential checks that Parse gives what the json.Decoder based
// reader it replaced gives: equal values, or errors with the same code and
// the same message.
func FuzzParseDifferential(f *testing.F) {
	for _, s := range corpusSeeds(f) {
		f.Add(s)
	}
	for _, s := range rfc8259Edges() {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		want, wantErr := parseOracle(data)
		got, gotErr := Parse(data)
		switch {
		case wantErr == nil && gotErr == nil:
			// reflect.DeepEqual first: cmp's slice diff is exponential in
			// the nesting depth, and seeds nest 512 deep.
			if !reflect.DeepEqual(want, got) {
				t.Fatalf("Parse(%q) mismatch (-oracle +got):\n%s", data, cmp.Diff(want, got))
			}
		case wantErr == nil || gotErr == nil:
			t.Fatalf("Parse(%q) = %#v, %v; oracle = %#v, %v", data, got, gotErr, want, wantErr)
		default:
			var ke *kiterr.Error
			if !errors.As(gotErr, &ke) {
				t.Fatalf("Parse(%q): error %v (%T) is not a *kiterr.Error", data, gotErr, gotErr)
			}
			if got != nil {
				t.Fatalf("Parse(%q) returned %#v together with an error", data, got)
			}
			if kiterr.CodeOf(gotErr) != kiterr.CodeOf(wantErr) {
				t.Fatalf("Parse(%q): code %s (%v), oracle %s (%v)", data, kiterr.CodeOf(gotErr), gotErr, kiterr.CodeOf(wantErr), wantErr)
			}
			if gotErr.Error() != wantErr.Error() {
				t.Fatalf("Parse(%q): message differs (-oracle +got):\n-%s\n+%s", data, wantErr, gotErr)
			}
		}
	})
}
