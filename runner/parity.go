package runner

import (
	"context"
	"slices"
	"sync"

	"github.com/conform-kit/conform/internal/suite"
)

// Target is one implementation of a parity run.
type Target struct {
	// Name labels the implementation's column ("python").
	Name string
	// Config is the run of this implementation; Suite, Version, Role and
	// Filters are taken from the parity call.
	Config Config
}

// Group is a set of implementations that wrote the same canonical bytes for
// one vector.
type Group struct {
	Implementations []string `json:"implementations"`
	// Golden is true when the bytes equal the golden file.
	Golden bool   `json:"golden"`
	Bytes  string `json:"bytes"`
}

// ParityVector is one row of the parity matrix.
type ParityVector struct {
	ID    string `json:"id"`
	Level string `json:"level"`
	// Statuses maps implementation name to its verdict.
	Statuses map[string]Status `json:"statuses"`
	// Groups partitions the implementations by canonical bytes, the golden
	// group first, then by size and name; one group means full agreement.
	Groups []Group `json:"groups"`
	// Golden is the golden bytes.
	Golden string `json:"golden"`
	// Agree is true when every implementation ran the vector and wrote the
	// golden bytes. Expected-failure lists do not excuse a difference here:
	// parity is byte for byte.
	Agree bool `json:"agree"`
	// Failed is true when the row fails the gate: a required or
	// recommended row where the implementations do not all agree with the
	// golden bytes, or where an implementation failed its own run
	// (informational rows never fail).
	Failed bool `json:"failed"`
}

// ParityReport is the outcome of [Parity].
type ParityReport struct {
	Suite           SuiteInfo        `json:"suite"`
	Implementations []Implementation `json:"implementations"`
	// Reports holds each implementation's own report, in target order.
	Reports []*Report      `json:"reports"`
	Vectors []ParityVector `json:"vectors"`
	// Passed is true when no row failed and every report exits 0.
	Passed bool `json:"passed"`
	// Gated is the number of required and recommended rows (the rows the
	// gate judges); Disagree is how many of them do not agree.
	Gated    int `json:"gated"`
	Disagree int `json:"disagree"`
}

// Parity runs the suite against every target concurrently and builds the
// matrix of vectors by implementations, grouping implementations by the
// canonical bytes they wrote. Statuses are each implementation's
// conformance verdicts; the gate is exact parity: it fails when, on any
// required or recommended vector, some implementation did not run or did
// not write the golden bytes (whatever its expected-failure list says), or
// when an implementation's own run fails (a failure, stale or unexpectedly
// passing expected-failure entries, nothing passed).
// Errors are those of [Run] (the first, by target order).
func Parity(ctx context.Context, base Config, targets []Target) (*ParityReport, error) {
	if base.Version == 0 {
		base.Version = 1
	}
	if base.Role == "" {
		base.Role = "agent"
	}
	reports := make([]*Report, len(targets))
	errs := make([]error, len(targets))
	var wg sync.WaitGroup
	for i, t := range targets {
		cfg := t.Config
		cfg.Suite, cfg.Version, cfg.Role, cfg.Filters = base.Suite, base.Version, base.Role, base.Filters
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
	for row, first := range reports[0].Results {
		pv := ParityVector{ID: first.ID, Level: first.Level, Statuses: map[string]Status{}, Agree: true}
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
			b := string(res.summary)
			g := byBytes[b]
			if g == nil {
				g = &Group{Bytes: b}
				byBytes[b] = g
				order = append(order, b)
			}
			g.Implementations = append(g.Implementations, names[i])
		}
		golden, _ := base.Suite.ReadGolden(mustVersion(base), base.Role, first.ID)
		pv.Golden = string(golden) // one read per row, not per implementation
		for _, b := range order {
			g := byBytes[b]
			g.Golden = b == pv.Golden
			if !g.Golden {
				pv.Agree = false
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
		if pv.Level != "informational" {
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
