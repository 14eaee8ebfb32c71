package runner

import (
	"fmt"
	"time"

	"github.com/conform-kit/conform/internal/suite"
)

// Defaults of the quiet bound (Config.Quiet); DefaultGrace is beside
// DefaultTimeout.
const (
	// DefaultQuiet is the quiet bound of a suite version that sets none: 2 s.
	DefaultQuiet = 2 * time.Second
	// NoQuiet, as Config.Quiet, turns the quiet bound off: only Timeout
	// ends a wait (--quiet 0).
	NoQuiet time.Duration = -1
)

// slowStartGap is how long after stdin closed the IUT's first line may come
// and still be read as a stdout that was held until exit (written as the IUT
// ends at end of input); a first line later than that is a slow start.
const slowStartGap = time.Second

// bounds resolves the run's exit grace and quiet bound: the Config's (the
// command line, or a profile through it), else the suite version's
// (suite.json grace, quiet), else DefaultGrace and DefaultQuiet. The quiet
// bound returned is 0 when there is none.
func bounds(cfg Config, ver *suite.Version) (grace, quiet time.Duration) {
	grace = cfg.Grace
	if grace <= 0 {
		grace = ver.GraceBound()
	}
	if grace <= 0 {
		grace = DefaultGrace
	}
	switch d, set := ver.QuietBound(); {
	case cfg.Quiet < 0:
	case cfg.Quiet > 0:
		quiet = cfg.Quiet
	case set:
		quiet = d
	default:
		quiet = DefaultQuiet
	}
	return grace, quiet
}

// quietBound returns the session's quiet bound, 0 for none: the run's
// (Config.Quiet, resolved by [bounds]), raised to the vector's expect.quiet
// when that is larger, or turned off by an expect.quiet of 0. It bounds only
// waits for replies (and awaited frames) the IUT owes: in a vector that
// expects the IUT to exit with stdin open (expect.exit) it bounds the waits
// of its await items, but once every await is met the wait for the exit is
// the whole timeout's, as an IUT may be silent while it ends (exitWait); in
// spawned mode the host's own lines are read after the session. A bound not
// below the timeout is none.
func (s *session) quietBound() time.Duration {
	q := s.p.cfg.Quiet
	if s.spawned || q <= 0 {
		return 0
	}
	if d, set := s.v.Expect.QuietBound(); set {
		if d == 0 {
			return 0
		}
		q = max(q, d)
	}
	if q >= s.p.cfg.Timeout {
		return 0
	}
	return q
}

// quietWait watches the silence of one session's IUT: it is armed once the
// IUT wrote its first line, and each line it writes, each line sent to it
// and each byte it writes to stderr restarts the bound.
type quietWait struct {
	bound time.Duration
	timer *time.Timer
	// last is when the IUT last wrote a line or was sent one; stderr the
	// bytes it had written to stderr when last was set by the timer.
	last   time.Time
	stderr int64
}

// c is the timer's channel, nil (never ready) while it is not armed.
func (q *quietWait) c() <-chan time.Time {
	if q.timer == nil {
		return nil
	}
	return q.timer.C
}

// active records that the IUT wrote or was sent a line now; the first line
// it wrote arms the timer (stderr is its stderr byte count then).
func (q *quietWait) active(now time.Time, wrote bool, stderr func() int64) {
	q.last = now
	if q.bound > 0 && q.timer == nil && wrote {
		q.stderr = stderr()
		q.timer = time.NewTimer(q.bound)
	}
}

// expired is called when the timer fires: it reports whether the IUT has
// been silent for the whole bound, and otherwise sets the timer for the rest
// of it. Stderr output since the last check (stderr is the IUT's stderr
// byte count) and a line read but not yet handled (pending) are activity.
func (q *quietWait) expired(now time.Time, stderr int64, pending bool) bool {
	if stderr != q.stderr || pending {
		q.stderr, q.last = stderr, now
	}
	idle := now.Sub(q.last)
	if idle >= q.bound {
		return true
	}
	q.timer.Reset(q.bound - idle)
	return false
}

// exitWait reports whether the session only waits for the IUT to end by
// itself (expect.exit, every await met): a wait the quiet bound does not end.
func (s *session) exitWait() bool {
	return (s.mustExit || s.mayExit) && s.next >= len(s.l.gates)
}

func (q *quietWait) stop() {
	if q.timer != nil {
		q.timer.Stop()
	}
}

// waitEnd says, for a finding of a wait that ended without the reply, what
// ended it: the quiet bound, or the timeout.
func (s *session) waitEnd() string {
	if s.quietEnded {
		return fmt.Sprintf("the IUT was silent for %s after its last line, the quiet bound, which ended the wait (it wrote nothing and was sent nothing for that long; --quiet, or quiet in the profile or suite; the timeout is %s)",
			s.quiet.bound, s.p.cfg.Timeout)
	}
	return "the timeout of " + s.p.cfg.Timeout.String() + " ended the wait"
}

// startNote says, for a wait that the timeout ended before the IUT wrote a
// line, that it may be a slow start, with when its first line came: a slow
// start is told apart from a stdout held until exit by how long after stdin
// closed the first line came ([slowStartGap]). "" when the IUT wrote a line
// while stdin was open, or its first line came right as stdin closed (a
// stdout held until exit: the finding's own hint says so).
func (s *session) startNote() (note string, slow bool) {
	if s.earlyLines > 0 || s.quietEnded {
		return "", false
	}
	if s.firstLine == 0 {
		return fmt.Sprintf("the IUT wrote nothing at all, neither within the timeout of %s nor after stdin closed: a slow start? (the timeout, --timeout or the profile's, bounds its start too)", s.p.cfg.Timeout), true
	}
	after := s.firstLine - s.closedAt
	if after > slowStartGap {
		return fmt.Sprintf("the IUT wrote its first line %s after its start, %s after conform closed stdin at the timeout of %s: a slow start (the timeout, --timeout or the profile's, bounds its start too)",
			s.firstLine.Round(100*time.Millisecond), after.Round(100*time.Millisecond), s.p.cfg.Timeout), true
	}
	return "", false
}
