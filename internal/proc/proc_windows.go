package proc

// Containment on Windows: a Job Object per IUT. What it guarantees:
//
//   - the IUT is created suspended, assigned to a job of its own, and only
//     then resumed, so every process it starts is in the job from its first
//     instruction (a job member cannot leave it: the job does not allow
//     breakaway). Stop lists the job's processes to count survivors and
//     ends them all at once with TerminateJobObject.
//   - this works when conform itself runs in a job (as CI runners often
//     do), since jobs nest (Windows 8 and later); where the IUT cannot be
//     put in a job, Start fails rather than run it uncontained.
//   - the job is created with JOB_OBJECT_LIMIT_KILL_ON_JOB_CLOSE: if
//     conform dies, however it dies, the system closes its handle to the
//     job and terminates every process in it.
//
// What it cannot do:
//
//   - ask politely: Windows has no SIGTERM for a process without a console
//     window of its own, so after the grace period the IUT is terminated at
//     once (Exit.Stopped "SIGKILL"), with exit status 1.
//   - hold work the IUT hands to a process that is not its descendant
//     (a service, a scheduled task, a COM server started by the system).
//   - isolate the IUT as another user: Config.Isolate is refused.

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"sync"
	"syscall"
	"time"
	"unsafe"

	"golang.org/x/sys/windows"
)

const canTerm = false

type control struct {
	// mu guards job, which release closes while a cancelled context may
	// still terminate it.
	mu  sync.Mutex
	job windows.Handle
	pid int
	cmd *exec.Cmd
}

func startContained(cfg Config, newCmd func() *exec.Cmd) (*exec.Cmd, *control, error) {
	if cfg.Isolate != nil {
		return nil, nil, errors.New("isolating the IUT as another user is only available on Linux")
	}
	job, err := windows.CreateJobObject(nil, nil)
	if err != nil {
		return nil, nil, fmt.Errorf("create job object: %w", err)
	}
	c := &control{job: job}
	var info windows.JOBOBJECT_EXTENDED_LIMIT_INFORMATION
	info.BasicLimitInformation.LimitFlags = windows.JOB_OBJECT_LIMIT_KILL_ON_JOB_CLOSE
	if _, err := windows.SetInformationJobObject(job, windows.JobObjectExtendedLimitInformation,
		uintptr(unsafe.Pointer(&info)), uint32(unsafe.Sizeof(info))); err != nil {
		c.release(false)
		return nil, nil, fmt.Errorf("set job object limits: %w", err)
	}
	cmd := newCmd()
	cmd.SysProcAttr = &syscall.SysProcAttr{CreationFlags: windows.CREATE_SUSPENDED | windows.CREATE_NEW_PROCESS_GROUP}
	c.cmd = cmd
	if err := cmd.Start(); err != nil {
		c.release(false)
		return nil, nil, err
	}
	c.pid = cmd.Process.Pid
	if err := c.adopt(); err != nil {
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
		c.release(false)
		return nil, nil, err
	}
	return cmd, c, nil
}

// adopt assigns the suspended main process to the job and resumes it.
func (c *control) adopt() error {
	h, err := windows.OpenProcess(windows.PROCESS_SET_QUOTA|windows.PROCESS_TERMINATE|windows.PROCESS_QUERY_LIMITED_INFORMATION, false, uint32(c.pid))
	if err != nil {
		return fmt.Errorf("open the IUT's process: %w", err)
	}
	defer windows.CloseHandle(h)
	if err := windows.AssignProcessToJobObject(c.job, h); err != nil {
		return fmt.Errorf("assign the IUT to a job object: %w", err)
	}
	snap, err := windows.CreateToolhelp32Snapshot(windows.TH32CS_SNAPTHREAD, 0)
	if err != nil {
		return fmt.Errorf("list the IUT's threads: %w", err)
	}
	defer windows.CloseHandle(snap)
	te := windows.ThreadEntry32{Size: uint32(unsafe.Sizeof(windows.ThreadEntry32{}))}
	resumed := 0
	for err = windows.Thread32First(snap, &te); err == nil; err = windows.Thread32Next(snap, &te) {
		if te.OwnerProcessID != uint32(c.pid) {
			continue
		}
		th, err := windows.OpenThread(windows.THREAD_SUSPEND_RESUME, false, te.ThreadID)
		if err != nil {
			continue
		}
		if _, err := windows.ResumeThread(th); err == nil {
			resumed++
		}
		windows.CloseHandle(th)
	}
	if resumed == 0 {
		return errors.New("resume the IUT: no thread of it was found")
	}
	return nil
}

func (c *control) reaped() {}

// wait waits for the main process and reaps it.
func (c *control) wait() Exit {
	_ = c.cmd.Wait()
	return exitOf(c.cmd.ProcessState)
}

// newPipe is os.Pipe here.
func newPipe(bool) (r, w *os.File, err error) { return os.Pipe() }

// writeNow writes nothing here: the writer goroutine writes all of it.
func writeNow(_ *os.File, input [][]byte) [][]byte { return input }

// signal terminates every process in the job; there is no polite request.
func (c *control) signal(sig stopSignal) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.job == 0 || sig != sigKill {
		return nil
	}
	return windows.TerminateJobObject(c.job, 1)
}

// jobAccounting is JOBOBJECT_BASIC_ACCOUNTING_INFORMATION (winnt.h).
type jobAccounting struct {
	TotalUserTime, TotalKernelTime                       int64
	ThisPeriodTotalUserTime, ThisPeriodTotalKernelTime   int64
	TotalPageFaultCount, TotalProcesses, ActiveProcesses uint32
	TotalTerminatedProcesses                             uint32
}

func (c *control) empty() bool {
	if c.job == 0 {
		return true
	}
	var a jobAccounting
	if err := windows.QueryInformationJobObject(c.job, windows.JobObjectBasicAccountingInformation,
		uintptr(unsafe.Pointer(&a)), uint32(unsafe.Sizeof(a)), nil); err != nil {
		return true
	}
	return a.ActiveProcesses == 0
}

// jobPids is JOBOBJECT_BASIC_PROCESS_ID_LIST (winnt.h) with room for 1024.
type jobPids struct {
	Assigned, Listed uint32
	Pids             [1024]uintptr
}

func (c *control) members() []int {
	if c.job == 0 {
		return nil
	}
	var l jobPids
	if err := windows.QueryInformationJobObject(c.job, windows.JobObjectBasicProcessIdList,
		uintptr(unsafe.Pointer(&l)), uint32(unsafe.Sizeof(l)), nil); err != nil && l.Listed == 0 {
		return nil
	}
	var out []int
	for _, pid := range l.Pids[:min(int(l.Listed), len(l.Pids))] {
		if int(pid) != c.pid {
			out = append(out, int(pid))
		}
	}
	return out
}

func (c *control) drain(d time.Duration) {
	deadline := time.Now().Add(d)
	for pause := time.Millisecond; !c.empty() && time.Now().Before(deadline); pause = min(2*pause, 25*time.Millisecond) {
		time.Sleep(pause)
	}
}

func (c *control) sweep() []orphan { return nil }

// pool holds nothing on Windows: a Job Object per IUT is cheap.
type pool struct{}

func newPool() *pool { return &pool{} }
func (*pool) close() {}

// release closes the job, which terminates whatever is still in it.
func (c *control) release(bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.job != 0 {
		windows.CloseHandle(c.job)
		c.job = 0
	}
}

// exitingNow cannot tell an exiting process here.
func exitingNow(int) (known, ending bool) { return false, false }

func exitOf(ps *os.ProcessState) Exit { return Exit{Code: ps.ExitCode()} }

// BecomeSubreaper is Linux-only; here it returns [errors.ErrUnsupported].
// The Job Object holds the whole tree instead.
func BecomeSubreaper() error { return errors.ErrUnsupported }

// IsSubreaper is always false here.
func IsSubreaper() bool { return false }

// exhaustion is empty: no limit is held on this system (see [Limits]).
func (c *control) exhaustion() Exhaustion { return Exhaustion{} }

// supports finds nothing that holds limits on this system.
func supports(*pool) LimitSupport { return LimitSupport{} }
