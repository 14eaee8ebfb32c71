package main

import (
	"io"
	"path/filepath"
	"strings"

	"github.com/conform-kit/conform/internal/kiterr"
	"github.com/conform-kit/conform/internal/profile"
	"github.com/conform-kit/conform/runner"
	"github.com/conform-kit/conform/suites"
)

// implementation is one implementation under test, as every command names
// it: run (--profile DIR, or a command after --, or nothing for the
// built-in reference), parity and matrix (--impl NAME=PROFILE_DIR|
// reference|COMMAND) and record. One parser ([parseImplementation]) and one
// way to configure a run ([implementation.configure]) serve them all.
type implementation struct {
	// Name labels the implementation (a matrix column, a parity row); ""
	// takes the profile's or the command's name.
	Name string
	// Exactly one of Reference, Profile (a profile folder) and Command
	// (argv, never run through a shell) is set.
	Reference bool
	Profile   string
	Command   []string
}

// parseImplementation reads NAME=PROFILE_DIR|reference|COMMAND: a value that
// is a folder with a profile.json is a profile, "reference" the built-in
// reference, anything else a command split on white space. Errors: USAGE.
func parseImplementation(spec string) (implementation, error) {
	name, value, ok := strings.Cut(spec, "=")
	if !ok || name == "" || value == "" {
		return implementation{}, kiterr.New(kiterr.Usage, "--impl %q: want NAME=PROFILE_DIR|reference|COMMAND", spec)
	}
	im := implementation{Name: name}
	switch {
	case value == "reference":
		im.Reference = true
	case isProfileDir(value):
		im.Profile = value
	default:
		im.Command = strings.Fields(value)
	}
	return im, nil
}

// configure sets cfg to run the implementation in cfg.Role and
// cfg.Version: the reference's command, the profile's command, environment,
// timeout (unless keepTimeout), mode and expected failures, or the command
// (a relative file argument made absolute, noted on stderr). It returns
// the profile, or nil. Errors: those of the profile, IUT_START, USAGE.
func (im implementation) configure(cfg *runner.Config, keepTimeout bool, stderr io.Writer) (*profile.Profile, error) {
	var prf *profile.Profile
	var err error
	switch {
	case im.Reference:
		if cfg.Command, err = referenceCommand(cfg.Role, cfg.Version); err != nil {
			return nil, err
		}
		cfg.Implementation = "conform reference (Go)"
	case im.Profile != "":
		if prf, err = applyProfileExpect(cfg, im.Profile, keepTimeout); err != nil {
			return nil, err
		}
	default:
		if cfg.Command, err = resolveArgs(stderr, im.Command); err != nil {
			return nil, err
		}
		cfg.Implementation = filepath.Base(cfg.Command[0])
	}
	if im.Name != "" && im.Profile == "" && !im.Reference {
		cfg.Implementation = im.Name
	}
	return prf, nil
}

// invocation returns the conform run arguments that name the
// implementation (after the run's own flags), as reports record them.
func (im implementation) invocation(cmd []string) []string {
	switch {
	case im.Profile != "":
		return []string{"--profile", im.Profile}
	case im.Reference:
		return nil
	}
	return append([]string{"--"}, cmd...)
}

// suiteOf returns the suite and role a profile names (profile.json
// "suite" and "role"), or "" for a command or the reference. The suite is
// a --suite value: the name of an embedded suite ("mcp") as the profile
// gives it, or a folder relative to the profile's folder, returned joined
// to that (absolute) folder (suites.IsPathIn). Errors: PROFILE_INVALID.
func (im implementation) suiteOf() (dir, role string, err error) {
	if im.Profile == "" {
		return "", "", nil
	}
	p, err := profile.Load(im.Profile)
	if err != nil {
		return "", "", err
	}
	switch {
	case p.Suite == "":
	case suites.IsPathIn(p.Dir, p.Suite):
		dir = filepath.Join(p.Dir, filepath.FromSlash(p.Suite))
	default:
		dir = p.Suite
	}
	return dir, p.Role, nil
}

// suiteOfAll parses every --impl spec and returns them with the suite
// folder their profiles name, when dir (--suite) is empty: the one folder
// all profiles that name one agree on, or "". Errors: USAGE (a bad spec,
// a name used twice, profiles that name different suites),
// PROFILE_INVALID.
func suiteOfAll(specs []string, dir string) ([]implementation, string, error) {
	var out []implementation
	seen := map[string]bool{}
	named := ""
	for _, spec := range specs {
		im, err := parseImplementation(spec)
		if err != nil {
			return nil, "", err
		}
		if seen[im.Name] {
			return nil, "", kiterr.New(kiterr.Usage, "implementation name %q used twice", im.Name)
		}
		seen[im.Name] = true
		d, _, err := im.suiteOf()
		if err != nil {
			return nil, "", err
		}
		if d != "" && named != "" && filepath.Clean(d) != filepath.Clean(named) {
			return nil, "", kiterr.New(kiterr.Usage, "the profiles name different suites (%s and %s): give --suite, or compare implementations of one suite", named, d)
		}
		if d != "" {
			named = d
		}
		out = append(out, im)
	}
	if dir != "" {
		return out, dir, nil
	}
	return out, named, nil
}
