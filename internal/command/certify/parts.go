package certify

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"time"

	"github.com/conform-kit/conform/internal/input"
	"github.com/conform-kit/conform/internal/kiterr"
	"github.com/conform-kit/conform/internal/profile"
	"github.com/conform-kit/conform/internal/suggest"
	"github.com/conform-kit/conform/runner"
)

// Bounds returns a usage message for a bound that makes no sense, or "".
// Zero jobs means the runner's default (runner.Config.Jobs); every duration and size must be positive.
func Bounds(jobs int, timeout, grace, killAfter time.Duration, maxLine, stderrMax, maxFrames int) string {
	switch {
	case jobs < 0:
		return "-j must be 0 (the default width) or more"
	case timeout <= 0 || grace <= 0 || killAfter <= 0:
		return "--timeout, --grace and --kill-after must be positive durations"
	case maxLine <= 0 || stderrMax <= 0 || maxFrames <= 0:
		return "--max-line, --stderr-max and --max-frames must be positive"
	}
	return ""
}

// splitList splits each value of a repeatable flag at commas (trimmed,
// each item once, in order); none gives nil (for --level: every level).
// Which names are levels or classes the runner decides. Errors: USAGE for
// an empty item, naming flag.
func splitList(flag string, values []string) ([]string, error) {
	var out []string
	seen := map[string]bool{}
	for _, v := range values {
		for item := range strings.SplitSeq(v, ",") {
			item = strings.TrimSpace(item)
			if item == "" {
				return nil, kiterr.New(kiterr.Usage, "%s: empty item in %q", flag, v)
			}
			if !seen[item] {
				seen[item] = true
				out = append(out, item)
			}
		}
	}
	return out, nil
}

// Isolation parses --isolate-user ("uid:gid") for --isolate, or returns a
// usage message: isolation switches the IUT to another user, which takes
// Linux and root. Neither id may be 0 (root) or 4294967295 (the kernel's
// "no id").
func Isolation(user string) (*runner.Isolation, string) {
	if runtime.GOOS != "linux" {
		return nil, "--isolate is only available on Linux"
	}
	if os.Geteuid() != 0 {
		return nil, "--isolate needs root (the IUT is switched to another user)"
	}
	return parseIsolateUser(user)
}

// parseIsolateUser is the parsing half of [Isolation].
func parseIsolateUser(user string) (*runner.Isolation, string) {
	u, g, ok := strings.Cut(user, ":")
	uid, err1 := strconv.ParseUint(u, 10, 32)
	gid, err2 := strconv.ParseUint(g, 10, 32)
	if !ok || err1 != nil || err2 != nil || uid == 0 || gid == 0 || uid == 1<<32-1 || gid == 1<<32-1 {
		return nil, fmt.Sprintf("--isolate-user %q must be uid:gid, neither 0 (root) nor 4294967295", user)
	}
	return &runner.Isolation{UID: uint32(uid), GID: uint32(gid), Namespaces: true}, ""
}

// ResolveRole returns role, or the default role of version n when role is
// empty; an error names the version's roles when role is not one of them
// (or the version does not exist). The error has no code: callers make it
// a USAGE error.
func ResolveRole(s *runner.Suite, n int, role string) (string, error) {
	ver, err := s.Version(n)
	if err != nil {
		return "", err
	}
	if role == "" {
		return ver.DefaultRole(), nil
	}
	if ver.Role(role) == nil {
		return "", fmt.Errorf("--role %q is not a role of suite version %d (%s)", role, n, strings.Join(ver.RoleNames(), ", "))
	}
	return role, nil
}

// Selection is the role and version a run asks for, and whether each was
// given on the command line; [Rerun] replaces them with a report's.
type Selection struct {
	Role         string
	Version      int
	RoleGiven    bool
	VersionGiven bool
}

// Rerun reads the JSON report at path (through read; nil: os.ReadFile; an
// error without a kit code is PATH_NOT_FOUND) and
// returns the ids of its required and recommended vectors that did not
// pass (FAIL and the other failing statuses, XPASS, INVALID, NOT_RUN) that
// the suite still has for the report's role and version; it sets sel's
// Role and Version to the report's, which a role or version given on the
// command line must not contradict (USAGE). A vector the suite no longer
// has is named in a note on stderr and left out. Errors: PATH_NOT_FOUND,
// REPORT_INVALID, USAGE, and those of runner.Select.
func Rerun(stderr io.Writer, s *runner.Suite, path string, read func(string) ([]byte, error), sel *Selection) ([]string, error) {
	data, err := readFileOf(read)(path)
	if err != nil {
		if kiterr.CodeOf(err) != "" {
			return nil, err // a reader that gives its own code
		}
		return nil, kiterr.Wrap(kiterr.PathNotFound, err, "--rerun-failed report %q", path)
	}
	rep, err := runner.ReadReport(s, data)
	if err != nil {
		return nil, fmt.Errorf("--rerun-failed report %s: %w", path, err)
	}
	if sel.RoleGiven && sel.Role != rep.Suite.Role || sel.VersionGiven && sel.Version != rep.Suite.Version {
		return nil, kiterr.New(kiterr.Usage, "--rerun-failed: %s is a report of the %s role, protocol v%d, and --role %s --version %d asks for another",
			path, rep.Suite.Role, rep.Suite.Version, sel.Role, sel.Version)
	}
	sel.Role, sel.Version = rep.Suite.Role, rep.Suite.Version
	refs, err := runner.Select(runner.Config{Suite: s, Role: sel.Role, Version: sel.Version})
	if err != nil {
		return nil, err
	}
	known := map[string]bool{}
	for _, r := range refs {
		known[r.ID] = true
	}
	var ids []string
	for _, res := range rep.Results {
		if !res.Failed() {
			continue
		}
		if !known[res.ID] {
			fmt.Fprintf(stderr, "conform: note: %s names vector %q, which this suite has not for the %s role, v%d: not rerun\n", path, res.ID, sel.Role, sel.Version)
			continue
		}
		ids = append(ids, res.ID)
	}
	return ids, nil
}

// SuggestID is a " (did you mean ...?)" for id among the session vectors
// of role and version, or "".
func SuggestID(s *runner.Suite, role string, version int, id string) string {
	refs, err := runner.Select(runner.Config{Suite: s, Role: role, Version: version})
	if err != nil {
		return ""
	}
	ids := make([]string, len(refs))
	for i, r := range refs {
		ids[i] = r.ID
	}
	return suggest.Phrase(id, ids)
}

// noteDigest notes on stderr when s, a suite loaded from a directory, is
// a copy of the one embedded in the binary (same name) that differs from
// it, so a modified copy is never mistaken for the published suite (the
// digest in every report tells them apart); another protocol's suite gets
// no note, nor does any suite when embedded is nil.
func noteDigest(stderr io.Writer, embedded func() (*runner.Suite, error), s *runner.Suite) {
	if embedded == nil {
		return
	}
	emb, err := embedded()
	if err == nil && emb.Manifest.Name == s.Manifest.Name && emb.Digest != s.Digest {
		fmt.Fprintf(stderr, "conform: note: this suite (%s) differs from the suite embedded in conform (%s)\n", s.Digest, emb.Digest)
	}
}

// Describe copies what the profile p says about its implementation
// (version, language, source and issue tracker) into rep; nothing when p
// is nil.
func Describe(rep *runner.Report, p *profile.Profile) {
	if p == nil {
		return
	}
	impl := &rep.Implementation
	impl.Version, impl.Language, impl.Source, impl.Issues = p.Version, p.Language, p.Source, p.Issues
}

// DescribeReference says what the reference is: conform's own Go
// implementation, with its source and issue tracker.
func DescribeReference(rep *runner.Report) {
	impl := &rep.Implementation
	impl.Language, impl.Source, impl.Issues = "Go", "https://"+runner.ModulePath+"/tree/main/reference", "https://"+runner.ModulePath+"/issues"
}

// iutDigest is what identifies an IUT for the runner's preflight cache
// beyond its command, environment and the files they name
// (runner.Config.IUTDigest): the kit (the running binary) and the SHA-256
// of the profile's profile.json (which pins the artifact, when it does),
// "-" when there is no profile or it cannot be read.
func iutDigest(kit, profileDir string) string {
	sum := "-"
	if profileDir != "" {
		file := profileDir
		if !strings.HasSuffix(file, ".json") {
			file = filepath.Join(profileDir, "profile.json")
		}
		if b, err := input.ReadFile(file, profile.MaxFile, "profile"); err == nil {
			h := sha256.Sum256(b)
			sum = hex.EncodeToString(h[:])
		}
	}
	return kit + "\x00profile.json " + sum
}
