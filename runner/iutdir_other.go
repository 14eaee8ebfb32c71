//go:build !linux

package runner

import "os"

// identity is empty here: without the Linux checks (inode, inode flags,
// extended attributes) no IUT directory is handed on.
type identity struct{}

func identify(string) (identity, bool) { return identity{}, false }

func pristine(string, string, identity, int) bool { return false }

// unlockEntry gives a directory mode 0700 so what is in it can be
// removed; there are no inode flags to clear here.
func unlockEntry(path string, dir bool) {
	if dir {
		_ = os.Chmod(path, 0o700)
	}
}
