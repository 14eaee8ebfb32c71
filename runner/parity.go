package runner

import (
	"context"
	"slices"
	"sync"

	"github.com/conform-kit/conform/internal/compare"
	"github.com/conform-kit/conform/internal/suite"
)

// Target is one implementation of a parity run.
type Target struct {
	// Name labels the implementation's column ("python").
	Name string
	// Config is the run of this implementation; Suite, Version, Role,
	// Filters, Skip and Levels are taken from the parity call.
	Config Config
}

// Parity runs the suite against every target concurrently and builds the
// matrix of vectors by implementations, grouping implementations by the
// canonical bytes they wrote. Statuses are each implementation's
// conformance verdicts; the gate is exact parity: it fails when, on any
// required or recommended vector, some implementation did not run or did
// not write the golden bytes (whatever its expected-failure list says), or
// when an implementation's own run fails (a failure, stale or unexpectedly
// passing expected-failure entries, nothing passed). A required or
// recommended row that no implementation ran (every status SKIPPED, NOT_RUN
// or INVALID) compares nothing: it counts in Uncompared, not in Gated.
// Errors are those of [Run] (the first, by target order).
func Parity(ctx context.Context, base Config, targets []Target) (*ParityReport, error) {
	if base.Version == 0 {
		base.Version = 1
	}
	if base.Role == "" && base.Suite != nil {
		if v, err := base.Suite.Version(base.Version); err == nil {
			base.Role = v.DefaultRole()
		}
	}
	reports := make([]*Report, len(targets))
	errs := make([]error, len(targets))
	var wg sync.WaitGroup
	for i, t := range targets {
		cfg := t.Config
		cfg.Suite, cfg.Version, cfg.Role, cfg.Filters, cfg.Skip, cfg.Levels = base.Suite, base.Version, base.Role, base.Filters, base.Skip, base.Levels
		cfg.keepSummaries = true
		if cfg.Jobs == 0 {
			cfg.Jobs = base.Jobs
		}
		if cfg.Implementation == "" {
			cfg.Implementation = t.Name
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			reports[i], errs[i] = Run(ctx, cfg)
		}()
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			return nil, err
		}
	}
	pr := &ParityReport{Reports: reports, Passed: true}
	if len(reports) > 0 {
		pr.Suite = reports[0].Suite
	}
	names := make([]string, len(targets))
	for i, t := range targets {
		names[i] = t.Name
		impl := reports[i].Implementation
		impl.Name = t.Name
		pr.Implementations = append(pr.Implementations, impl)
		if reports[i].ExitCode() != 0 {
			pr.Passed = false
		}
	}
	if len(reports) == 0 {
		return pr, nil
	}
	env := mustVersion(base).Env()
	for row, first := range reports[0].Results {
		pv := ParityVector{ID: first.ID, Level: first.Level, Statuses: map[string]Status{}, Agree: true, Uncompared: true}
		byBytes := map[string]*Group{}
		var order []string
		for i, rep := range reports {
			res := rep.Results[row]
			pv.Statuses[names[i]] = res.Status
			if res.Failed() {
				pv.Failed = true
			}
			if res.Status == NotRun || res.Status == Invalid {
				pv.Agree = false
				continue
			}
			if res.Status != Skipped {
				pv.Uncompared = false
			}
			b := string(res.Canonical)
			g := byBytes[b]
			if g == nil {
				g = &Group{Bytes: b}
				byBytes[b] = g
				order = append(order, b)
			}
			g.Implementations = append(g.Implementations, names[i])
		}
		golden := first.Golden // as the run compared it (a golden file or fixtures)
		pv.Golden = string(golden)
		for _, b := range order {
			g := byBytes[b]
			g.Golden = b == pv.Golden
			if !g.Golden {
				pv.Agree = false
				if ds, err := compare.Differences(golden, []byte(b), nil, nil, env); err == nil {
					if len(ds) > MaxDifferences {
						ds = ds[:MaxDifferences]
					}
					g.Differences = boundValues(ds)
				}
			}
			pv.Groups = append(pv.Groups, *g)
		}
		slices.SortStableFunc(pv.Groups, func(a, b Group) int {
			switch {
			case a.Golden != b.Golden:
				if a.Golden {
					return -1
				}
				return 1
			case len(a.Implementations) != len(b.Implementations):
				return len(b.Implementations) - len(a.Implementations)
			}
			return 0
		})
		switch {
		case pv.Level == "informational":
		case pv.Uncompared:
			// Skipped, not run or invalid everywhere: nothing compared. A
			// NOT_RUN or INVALID status has already failed the row.
			pr.Uncompared++
		default:
			pr.Gated++
			if !pv.Agree {
				pv.Failed = true
				pr.Disagree++
			}
		}
		if pv.Failed {
			pr.Passed = false
		}
		pr.Vectors = append(pr.Vectors, pv)
	}
	return pr, nil
}

func mustVersion(c Config) *suite.Version {
	v, _ := c.Suite.Version(c.Version)
	return v
}
