package runner

import (
	"slices"
	"strings"

	"github.com/bmatcuk/doublestar/v4"

	"github.com/conform-kit/conform/internal/kiterr"
	"github.com/conform-kit/conform/internal/suggest"
	"github.com/conform-kit/conform/internal/suite"
)

// Levels a run can select (Config.Levels), in order.
var selectableLevels = []string{suite.LevelRequired, suite.LevelRecommended, suite.LevelInformational}

// selectVectors applies a run's selection to the role's session vectors,
// in this order: Filters (a vector runs when any glob matches its id),
// Levels (when set, only vectors of those levels), Skip (a vector any skip
// glob matches does not run). Every filter and skip glob must match at
// least one of sessions, and the selection must leave a vector: otherwise
// FILTER_NO_MATCH, naming the closest ids ("did you mean"). A bad glob or
// level is USAGE.
func selectVectors(sessions []suite.Ref, filters, skip, levels []string, role string, version int) ([]suite.Ref, error) {
	ids := make([]string, len(sessions))
	for i, v := range sessions {
		ids[i] = v.ID
	}
	for _, l := range levels {
		if !slices.Contains(selectableLevels, l) {
			return nil, kiterr.New(kiterr.Usage, "level %q is not one of %s%s", l, strings.Join(selectableLevels, ", "), suggest.Phrase(l, selectableLevels))
		}
	}
	for _, set := range []struct {
		flag  string
		globs []string
	}{{"filter", filters}, {"skip", skip}} {
		for _, g := range set.globs {
			if !doublestar.ValidatePattern(g) {
				return nil, kiterr.New(kiterr.Usage, "%s %q is not a valid glob", set.flag, g)
			}
			if !slices.ContainsFunc(ids, func(id string) bool { return matchID(g, id) }) {
				return nil, kiterr.New(kiterr.FilterNoMatch, "%s %q matches no %s-role vector of protocol version %d%s", set.flag, g, role, version, suggest.Phrase(g, ids))
			}
		}
	}
	out, err := suite.Select(sessions, filters)
	if err != nil {
		return nil, err
	}
	if len(levels) == 0 && len(skip) == 0 {
		return out, nil
	}
	kept := make([]suite.Ref, 0, len(out))
	for _, v := range out {
		if len(levels) > 0 && !slices.Contains(levels, v.Level) {
			continue
		}
		if slices.ContainsFunc(skip, func(g string) bool { return matchID(g, v.ID) }) {
			continue
		}
		kept = append(kept, v)
	}
	if len(kept) == 0 {
		return nil, kiterr.New(kiterr.FilterNoMatch, "the selection (--filter, --level, --skip) leaves no %s-role vector of protocol version %d to run", role, version)
	}
	return kept, nil
}

// matchID reports whether the (valid) doublestar glob g matches id.
func matchID(g, id string) bool {
	ok, err := doublestar.Match(g, id)
	return err == nil && ok
}

// VectorRef identifies a selected vector: its id, level and suite path.
type VectorRef = suite.Ref

// Select returns the session vectors a [Run] of cfg would run, in id
// order, after its Filters, Levels, Skip and Shard, without starting
// anything: conform list's dry run. Vector files that do not load are left
// out (Run reports them as problems). Errors: those Run returns before it
// starts an IUT: USAGE, VERSION_UNKNOWN, FILTER_NO_MATCH, SUITE_INVALID.
func Select(cfg Config) ([]VectorRef, error) {
	cfg.defaults()
	if cfg.Suite == nil {
		return nil, kiterr.New(kiterr.Usage, "no suite")
	}
	ver, err := cfg.Suite.Version(cfg.Version)
	if err != nil {
		return nil, err
	}
	sessions, _, err := cfg.Suite.VectorIndex(ver, cfg.Role)
	if err != nil {
		return nil, err
	}
	if len(sessions) == 0 {
		return nil, kiterr.New(kiterr.FilterNoMatch, "suite version %d has no %s-role session vectors", cfg.Version, cfg.Role)
	}
	out, err := selectVectors(sessions, cfg.Filters, cfg.Skip, cfg.Levels, cfg.Role, cfg.Version)
	if err != nil {
		return nil, err
	}
	if cfg.Shard != nil {
		if out, _, err = shardVectors(out, *cfg.Shard); err != nil {
			return nil, err
		}
	}
	return out, nil
}
