//go:build linux

// Command abtime times whole processes side by side, the way bench/run.sh
// compares conform with the bare pipe driver: each command runs once
// unmeasured (warm-up), then the commands run in turn, round after round
// (A B A B ...), so that a change in the machine's load falls on all of
// them alike. Each round starts one command later (A B C, B C A, C A B;
// -rotate=false keeps A B C): measured here, the same conform binary run
// right after itself took 7% less CPU and 20% less wall than right after
// the bare driver (bench/README.md, issue 25 item 1), so a fixed order
// can favour one command over another. For every command it prints the median wall time, the median
// CPU time (user + system, of the process and every child it waited for,
// from wait4's rusage, in microseconds), the median CPU of the process
// alone (from /proc/<pid>/stat of the ended, not yet reaped process, in
// clock ticks: 10 ms), the largest peak RSS (ru_maxrss: the largest of the
// process and its waited-for children), and the median over the rounds of
// its wall and CPU ratios to the first command.
//
//	abtime [-rounds N] [-warmup N] [-rotate=false] [-out DIR] [-v] ::: LABEL CMD [ARG...] ::: LABEL CMD [ARG...] ...
//
// Output, one line per command (times in seconds, RSS in KiB):
//
//	LABEL wall=W cpu=C self=S rss=R wallratio=X cpuratio=Y rc=N
//
// With -out, each command's stdout and stderr of its last round are kept
// in DIR/LABEL.out. The load average is printed on stderr before and
// after. Linux only (the own-CPU figure reads /proc and waitid's siginfo).
package main

import (
	"bytes"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

type command struct {
	label string
	argv  []string
	// per round
	wall, cpu, self []float64
	rss             int64
	rc              int
}

func main() {
	rounds := flag.Int("rounds", 3, "measured rounds")
	warmup := flag.Int("warmup", 1, "unmeasured rounds first")
	out := flag.String("out", "", "keep each command's output of the last round in `dir`/LABEL.out")
	verbose := flag.Bool("v", false, "print each round's wall and CPU times on stderr")
	rotate := flag.Bool("rotate", true, "start round r with command r (mod the number of commands), so that no command always follows the same one")
	flag.Parse()
	var cmds []*command
	for _, a := range flag.Args() {
		if a == ":::" {
			cmds = append(cmds, &command{})
			continue
		}
		if len(cmds) == 0 {
			usage()
		}
		c := cmds[len(cmds)-1]
		if c.label == "" {
			c.label = a
		} else {
			c.argv = append(c.argv, a)
		}
	}
	if len(cmds) == 0 {
		usage()
	}
	for _, c := range cmds {
		if len(c.argv) == 0 {
			usage()
		}
	}
	fmt.Fprintln(os.Stderr, "abtime: load", loadavg())
	for r := range *warmup + *rounds {
		for k := range cmds {
			c := cmds[k]
			if *rotate {
				c = cmds[(k+r)%len(cmds)]
			}
			var sink bytes.Buffer
			wall, cpu, self, rss, rc, err := run(c.argv, &sink)
			if err != nil {
				fmt.Fprintf(os.Stderr, "abtime: %s: %v\n", c.label, err)
				os.Exit(2)
			}
			if r == *warmup+*rounds-1 && *out != "" {
				_ = os.WriteFile(filepath.Join(*out, c.label+".out"), sink.Bytes(), 0o644)
			}
			if r < *warmup {
				continue
			}
			c.wall, c.cpu, c.self = append(c.wall, wall), append(c.cpu, cpu), append(c.self, self)
			if *verbose {
				fmt.Fprintf(os.Stderr, "abtime: round %d %s wall=%.4f cpu=%.4f self=%.2f\n", r-*warmup+1, c.label, wall, cpu, self)
			}
			c.rss = max(c.rss, rss)
			if rc != 0 && c.rc == 0 {
				c.rc = rc
			}
		}
	}
	fmt.Fprintln(os.Stderr, "abtime: load", loadavg())
	base := cmds[0]
	for _, c := range cmds {
		wr := make([]float64, len(c.wall))
		cr := make([]float64, len(c.cpu))
		for i := range c.wall {
			wr[i] = c.wall[i] / base.wall[i]
			cr[i] = c.cpu[i] / base.cpu[i]
		}
		fmt.Printf("%s wall=%.4f cpu=%.4f self=%.2f rss=%d wallratio=%.3f cpuratio=%.3f rc=%d\n",
			c.label, median(c.wall), median(c.cpu), median(c.self), c.rss, median(wr), median(cr), c.rc)
	}
}

func usage() {
	fmt.Fprintln(os.Stderr, "usage: abtime [-rounds N] [-warmup N] [-rotate=false] [-out DIR] ::: LABEL CMD [ARG...] ...")
	os.Exit(2)
}

// run runs argv with stdout and stderr to w and returns its wall time,
// CPU time (its own and its waited-for children's), its own CPU time,
// peak RSS (KiB) and exit status.
func run(argv []string, w *bytes.Buffer) (wall, cpu, self float64, rss int64, rc int, err error) {
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Stdout, cmd.Stderr = w, w
	start := time.Now()
	if err := cmd.Start(); err != nil {
		return 0, 0, 0, 0, 0, err
	}
	pid := cmd.Process.Pid
	// Wait without reaping, read the zombie's own CPU, then reap.
	var info unix.Siginfo
	for {
		err := unix.Waitid(unix.P_PID, pid, &info, unix.WEXITED|unix.WNOWAIT, nil)
		if err != unix.EINTR {
			break
		}
	}
	self = ownCPU(pid)
	err = cmd.Wait()
	wall = time.Since(start).Seconds()
	ru := cmd.ProcessState.SysUsage().(*syscall.Rusage)
	cpu = tv(ru.Utime) + tv(ru.Stime)
	rss = ru.Maxrss
	if err != nil {
		if _, ok := err.(*exec.ExitError); !ok {
			return 0, 0, 0, 0, 0, err
		}
	}
	return wall, cpu, self, rss, cmd.ProcessState.ExitCode(), nil
}

func tv(t syscall.Timeval) float64 { return float64(t.Sec) + float64(t.Usec)/1e6 }

// ownCPU returns utime + stime of the ended process pid, in seconds.
func ownCPU(pid int) float64 {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return -1
	}
	i := bytes.LastIndexByte(b, ')')
	f := strings.Fields(string(b[i+2:]))
	if len(f) < 13 {
		return -1
	}
	u, _ := strconv.ParseFloat(f[11], 64)
	s, _ := strconv.ParseFloat(f[12], 64)
	return (u + s) / 100 // USER_HZ
}

func median(xs []float64) float64 {
	if len(xs) == 0 {
		return 0
	}
	s := slices.Clone(xs)
	slices.Sort(s)
	if len(s)%2 == 1 {
		return s[len(s)/2]
	}
	return (s[len(s)/2-1] + s[len(s)/2]) / 2
}

func loadavg() string {
	b, _ := os.ReadFile("/proc/loadavg")
	f := strings.Fields(string(b))
	if len(f) < 3 {
		return "?"
	}
	return strings.Join(f[:3], " ")
}
