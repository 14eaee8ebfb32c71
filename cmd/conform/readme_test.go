package main

import (
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/conform-kit/conform/internal/command/matrix"
	"github.com/conform-kit/conform/internal/profile"
)

// handCounts are result claims written by hand, which go stale: counts of
// passed or excused vectors, and a profile said to be certified.
var handCounts = regexp.MustCompile(`(?i)\b[0-9]+ (passed|xfail|expected failures?)\b|\bcertified\*\*|\*\*certified\b`)

// entriesLine is the block's count of expected-failure entries.
var entriesLine = regexp.MustCompile(`(?m)^Expected-failure entries its runs used: ([0-9]+)\.$`)

// TestProfileReadmes: every profile README under impl/ states its results
// only in the block `conform matrix --readmes` writes from the profile's
// last run (scripts/matrix.sh; CI stage 85 fails when a block is not what
// the last run gives), and that block agrees with the profile as it is
// now: it counts as many expected-failure entries as the profile's list
// has. Outside the block no line claims counts or a certificate, so an
// edit to the list or a new release cannot leave a stale claim behind.
func TestProfileReadmes(t *testing.T) {
	t.Parallel()
	readmes, err := filepath.Glob(filepath.Join("..", "..", "impl", "*", "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	checked := 0
	for _, f := range readmes {
		dir := filepath.Dir(f)
		if _, err := os.Stat(filepath.Join(dir, profile.File)); err != nil {
			continue // not a profile (templates)
		}
		checked++
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		doc := string(data)
		begin, end := strings.Index(doc, matrix.ReadmeBegin+"\n"), strings.Index(doc, matrix.ReadmeEnd+"\n")
		if begin < 0 || end < begin || strings.Count(doc, matrix.ReadmeBegin) != 1 || strings.Count(doc, matrix.ReadmeEnd) != 1 {
			t.Errorf("%s: want one generated results block (%q ... %q)", f, matrix.ReadmeBegin, matrix.ReadmeEnd)
			continue
		}
		block := doc[begin+len(matrix.ReadmeBegin)+1 : end]
		outside := doc[:begin] + doc[end:]
		for _, line := range strings.Split(outside, "\n") {
			if m := handCounts.FindString(line); m != "" {
				t.Errorf("%s: %q outside the generated block claims results by hand: %s", f, m, line)
			}
		}
		m := entriesLine.FindStringSubmatch(block)
		if m == nil {
			t.Errorf("%s: the results block is empty or has no entry count: run scripts/matrix.sh", f)
			continue
		}
		p, err := profile.Load(dir)
		if err != nil {
			t.Fatal(err)
		}
		want := 0
		if ef := p.ExpectFailPath(); ef != "" {
			list, err := profile.ReadExpectFail(ef)
			if err != nil {
				t.Fatal(err)
			}
			want = len(list)
		}
		if got, _ := strconv.Atoi(m[1]); got != want {
			t.Errorf("%s: the results block counts %d expected-failure entries, %s has %d: run scripts/matrix.sh", f, got, p.ExpectFail, want)
		}
	}
	if checked < 5 {
		t.Fatalf("checked %d profile READMEs, want those of impl/", checked)
	}
}
