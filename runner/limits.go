package runner

import (
	"github.com/conform-kit/conform/internal/kiterr"
	"github.com/conform-kit/conform/internal/proc"
)

// Finding codes of an IUT's limits (Config.MaxProcs, Config.MaxMemory;
// docs/containment.md "Containment"). Public API, like those in result.go.
const (
	// FindingProcessLimit (CRASH): the IUT reached its limit of processes
	// and threads (a fork bomb, or an IUT that needs more than
	// --max-procs) and conform killed it; the message says what held the
	// limit.
	FindingProcessLimit = "PROCESS_LIMIT"
	// FindingMemoryLimit (CRASH): the kernel killed a process of the IUT
	// at its memory limit (--max-memory).
	FindingMemoryLimit = "MEMORY_LIMIT"
)

// limits are the proc limits of one IUT of the plan.
func (p *plan) limits() proc.Limits {
	return proc.Limits{Procs: p.cfg.MaxProcs, Memory: p.cfg.MaxMemory, Concurrent: p.cfg.Jobs}
}

// checkLimits refuses limits the system cannot hold: a memory bound
// without a memory controller. Errors: USAGE.
func checkLimits(cfg Config, pool *proc.Pool) error {
	if cfg.MaxProcs < 0 || cfg.MaxMemory < 0 {
		return kiterr.New(kiterr.Usage, "the process and memory limits must be positive")
	}
	if cfg.MaxMemory > 0 && pool.Supports().Memory == "" {
		return kiterr.New(kiterr.Usage, "a memory bound (--max-memory) needs a memory controller, and this system offers conform none: no cgroup v2 that delegates memory to conform's own cgroup (cgroup.subtree_control), and no writable cgroup v1 memory hierarchy")
	}
	return nil
}

// exhausted adds the findings of the limits the IUT reached.
func exhausted(o *outcome, e proc.Exhaustion) {
	if e.Procs > 0 {
		o.add(FindingProcessLimit, Crash, "the IUT reached its limit of %d processes and threads (held by %s; --max-procs): it was given no more and was ended (a fork bomb, or an IUT that needs more)", e.Procs, e.By)
	}
	if e.OOMKills > 0 {
		o.add(FindingMemoryLimit, Crash, "the kernel killed %d process(es) of the IUT at its memory limit of %d bytes (--max-memory)", e.OOMKills, e.Memory)
	}
}
