//go:build unix

package suite

import (
	"os"

	"golang.org/x/sys/unix"
)

// plainDir returns a second descriptor of the directory f (opened through
// an os.Root) as a file of its own, whose ReadDir takes each entry's type
// from the directory itself (getdents' d_type) and lstats only an entry
// of unknown type, as os.ReadDir does. The os package lstats every entry
// of a directory opened in a Root: 2,000 lstat calls for the two folders
// of a 1,000-vector suite, about 1.5% of a run's CPU (bench/README.md,
// issue 25 item 1). The types are the same: d_type is the type lstat
// gives. nil when the descriptor cannot be duplicated (the caller reads f
// itself).
func plainDir(f *os.File) *os.File {
	fd, err := unix.FcntlInt(f.Fd(), unix.F_DUPFD_CLOEXEC, 0)
	if err != nil {
		return nil
	}
	return os.NewFile(uintptr(fd), f.Name())
}
