package runner

import (
	"context"
	"sync"
)

// alongside is a partial run's selected vectors run at the same time as
// the version's preflight and discover vectors, when the preflight cache
// has no entry for the IUT (preflightcache.go): a one-vector run then
// waits for one IUT start, not for two or three in series.
//
// The vectors run whatever their class and requires; once the preflight
// and discover frames are known each is admitted as it would have been
// ([plan.admit]): a vector that would not have run gets the result it
// would have had (SKIPPED, FAIL REQUIREMENT_UNMET, INVALID), and the
// result of its early run is dropped. So the statuses are those of the
// run in series; only the IUT may have been sent a vector it would not
// have been (of a feature it did not declare), in a run that certifies
// nothing. When the preflight fails, the early runs are stopped and
// dropped. Only for a partial run that is not a shard, when the selected
// vectors fit beside the preflight in -j, and without Config.Record
// (which would see the dropped results).
type alongside struct {
	cancel context.CancelFunc
	wg     sync.WaitGroup
	// res, err are by index in plan.vectors; ran says which ran early.
	res []Result
	err []error
	ran []bool
}

// runAlongside starts the selected vectors when they may run alongside the
// preflight (see [alongside]); nil when not.
func (p *plan) runAlongside(ctx context.Context) *alongside {
	if p.ver.Preflight == "" || p.cfg.Record != nil || p.cfg.Spawn != nil || len(p.vectors) == 0 || len(p.vectors) >= p.cfg.Jobs {
		return nil
	}
	ctx, cancel := context.WithCancel(ctx)
	a := &alongside{cancel: cancel, res: make([]Result, len(p.vectors)), err: make([]error, len(p.vectors)), ran: make([]bool, len(p.vectors))}
	for i, v := range p.vectors {
		l, err := p.load(v)
		if err != nil {
			continue // admitted (INVALID) in order, later
		}
		a.ran[i] = true
		a.wg.Add(1)
		go func() {
			defer a.wg.Done()
			a.res[i], _, a.err[i] = p.runLoaded(ctx, v, l)
		}()
	}
	return a
}

// discard stops the early runs and waits for them.
func (a *alongside) discard() {
	if a == nil {
		return
	}
	a.cancel()
	a.wg.Wait()
}

// results waits for the early runs and returns, by index in p.vectors,
// each vector's result as the run in series would have it; an IUT_START
// error of an early run that is admitted is returned as that run would.
func (a *alongside) results(p *plan) (map[int]Result, error) {
	if a == nil {
		return nil, nil
	}
	a.wg.Wait()
	defer a.cancel()
	done := map[int]Result{}
	for i, v := range p.vectors {
		res, _, stop := p.admit(v)
		switch {
		case stop:
			done[i] = res
		case !a.ran[i]:
			continue // runs in order
		case a.err[i] != nil:
			return nil, a.err[i]
		default:
			done[i] = a.res[i]
		}
		r := done[i]
		applyExpectations(&r, p.cfg.ExpectFail)
		done[i] = r
		if p.cfg.Progress != nil {
			p.cfg.Progress(r)
		}
	}
	return done, nil
}
