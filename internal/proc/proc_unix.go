//go:build unix && !linux

package proc

// Containment on Unix systems other than Linux (macOS, FreeBSD, ...): the
// IUT's own process group. What it guarantees:
//
//   - every process that stays in the IUT's process group (the default for
//     anything it forks) gets SIGTERM and SIGKILL with it, and Stop waits for
//     the group to be empty; a group with members left after the main
//     process ended counts as one survivor (these systems have no /proc to
//     list a group's members).
//
// What it cannot do:
//
//   - see or kill a process that leaves the group (setsid or setpgid): it is
//     re-parented to init and lives on. There is no child subreaper here
//     (FreeBSD's procctl(PROC_REAP_ACQUIRE) would be one; it is not used).
//   - end the IUT if conform itself is killed with SIGKILL: there is no
//     parent-death signal. SIGINT and SIGTERM are handled (the CLI cancels
//     and every group is killed).
//   - isolate the IUT as another user: Config.Isolate is refused.

import (
	"errors"
	"os"
	"os/exec"
	"sync/atomic"
	"syscall"
	"time"
)

const canTerm = true

type control struct {
	cmd  *exec.Cmd
	pgid int
	// released: Stop has finished; the group id may name another group
	// by now, so nothing is signalled any more.
	released atomic.Bool
}

func startContained(cfg Config, newCmd func() *exec.Cmd) (*exec.Cmd, *control, error) {
	if cfg.Isolate != nil {
		return nil, nil, errors.New("isolating the IUT as another user is only available on Linux")
	}
	c := &control{}
	cmd := newCmd()
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	c.cmd = cmd
	if err := cmd.Start(); err != nil {
		return nil, nil, err
	}
	c.pgid = cmd.Process.Pid
	return cmd, c, nil
}

func (c *control) reaped() {}

// wait waits for the main process and reaps it.
func (c *control) wait() Exit {
	_ = c.cmd.Wait()
	return exitOf(c.cmd.ProcessState)
}

// newPipe is os.Pipe here.
func newPipe(bool) (r, w *os.File, err error) { return os.Pipe() }

func (c *control) signal(sig stopSignal) error {
	if c.pgid == 0 || c.released.Load() {
		return nil
	}
	s := syscall.SIGTERM
	if sig == sigKill {
		s = syscall.SIGKILL
	}
	if err := syscall.Kill(-c.pgid, s); err != nil && !errors.Is(err, syscall.ESRCH) {
		return err
	}
	return nil
}

func (c *control) empty() bool {
	return errors.Is(syscall.Kill(-c.pgid, 0), syscall.ESRCH)
}

// members stands for the group by its negated id when it has members.
func (c *control) members() []int {
	if c.empty() {
		return nil
	}
	return []int{-c.pgid}
}

func (c *control) drain(d time.Duration) {
	deadline := time.Now().Add(d)
	for pause := time.Millisecond; !c.empty() && time.Now().Before(deadline); pause = min(2*pause, 25*time.Millisecond) {
		time.Sleep(pause)
	}
}

func (c *control) sweep() []orphan { return nil }

func (c *control) release(bool) { c.released.Store(true) }

// pool holds nothing on these systems.
type pool struct{}

func newPool() *pool { return &pool{} }
func (*pool) close() {}

// exitingNow cannot read another process's state here.
func exitingNow(int) (known, ending bool) { return false, false }

// BecomeSubreaper is Linux-only; here it returns [errors.ErrUnsupported].
func BecomeSubreaper() error { return errors.ErrUnsupported }

// IsSubreaper is always false here.
func IsSubreaper() bool { return false }

// exhaustion is empty: no limit is held on this system (see [Limits]).
func (c *control) exhaustion() Exhaustion { return Exhaustion{} }

// supports finds nothing that holds limits on this system.
func supports(*pool) LimitSupport { return LimitSupport{} }
