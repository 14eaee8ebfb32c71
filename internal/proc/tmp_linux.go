package proc

// Temporary directories of an isolated IUT (Isolation.Namespaces). What it
// guarantees, where the kernel lets conform (root) make a mount namespace
// and mount tmpfs and overlay in it:
//
//   - /dev/shm is a tmpfs of the IUT's own (mode 1777, at most
//     [tmpSize] bytes);
//   - /tmp, /var/tmp and conform's own temporary directory ($TMPDIR) are
//     each an overlay: the directory as it is below (the IUT reads what it
//     could read before), and above it a layer in that tmpfs that takes
//     every write, so nothing the IUT writes there reaches the directory
//     on disk;
//   - the IUT's HOME and working directory, where one of those covers
//     them, are bound back at their paths: they are the directories on
//     disk, which conform reads after the vector and removes.
//
// All of it lives in a mount namespace that only the IUT's processes (and
// the parked thread that forked the IUT) hold: when the last of them ends,
// the kernel unmounts it and frees the tmpfs, so nothing is left to clean
// up, even if conform is killed. Mounts are private to the namespace
// (nothing propagates back). Where a step is refused, the IUT runs without
// its own temporary directories (as before issue 22); a program under
// /dev/shm is not visible to it.

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"golang.org/x/sys/unix"
)

// tmpSize bounds the tmpfs of an isolated IUT's temporary directories, in
// bytes: 256 MiB, or the IUT's memory bound when that is smaller (its
// pages are charged to the IUT's memory cgroup either way).
func tmpSize(l Limits) int64 {
	const size = 256 << 20
	if l.Memory > 0 && l.Memory < size {
		return l.Memory
	}
	return size
}

// tempDirs lists the system's temporary directories an IUT may write to:
// /tmp, /var/tmp and os.TempDir(), each an existing directory once its
// links are resolved, none inside another.
func tempDirs() []string {
	var out []string
	for _, d := range []string{"/tmp", "/var/tmp", os.TempDir()} {
		real, err := filepath.EvalSymlinks(d)
		if err != nil {
			continue
		}
		if fi, err := os.Stat(real); err != nil || !fi.IsDir() {
			continue
		}
		inside := false
		for _, o := range out {
			inside = inside || real == o || strings.HasPrefix(real, o+"/")
		}
		if !inside {
			out = append(out, real)
		}
	}
	return out
}

// privateTmp gives the calling thread a mount namespace of its own in
// which the temporary directories are the IUT's own (see the top of this
// file), with the directories keep names ("" for none: the IUT's HOME and
// working directory) bound back at their paths where one of them covers
// them. Call it on a
// thread that is never used for anything else (startOnThread). Errors:
// any step the kernel refuses; the thread's namespace is then half made
// and must be discarded with the thread.
func privateTmp(keep []string, size int64) error {
	if err := unix.Unshare(unix.CLONE_NEWNS); err != nil {
		return fmt.Errorf("unshare the mount namespace: %w", err)
	}
	if err := unix.Mount("", "/", "", unix.MS_REC|unix.MS_PRIVATE, ""); err != nil {
		return fmt.Errorf("make the mounts private: %w", err)
	}
	// The directories to bind back, each cloned as a detached mount
	// (open_tree, Linux 5.2+) before anything covers it, to be attached
	// again at its path once the temporary directories are mounted.
	type kept struct {
		tree int
		real string
	}
	var ks []kept
	defer func() {
		for _, k := range ks {
			unix.Close(k.tree)
		}
	}()
	for _, d := range keep {
		if d == "" {
			continue
		}
		real, err := filepath.EvalSymlinks(d)
		if err != nil {
			return err
		}
		tree, err := unix.OpenTree(unix.AT_FDCWD, real, unix.OPEN_TREE_CLONE|unix.OPEN_TREE_CLOEXEC|unix.AT_RECURSIVE)
		if err != nil {
			return fmt.Errorf("clone %s: %w", real, err)
		}
		ks = append(ks, kept{tree, real})
	}
	const shm = "/dev/shm"
	if fi, err := os.Stat(shm); err != nil || !fi.IsDir() {
		return fmt.Errorf("no %s directory", shm)
	}
	if err := unix.Mount("conform-iut", shm, "tmpfs", unix.MS_NOSUID|unix.MS_NODEV, fmt.Sprintf("mode=1777,size=%d", size)); err != nil {
		return fmt.Errorf("mount a tmpfs on %s: %w", shm, err)
	}
	// The overlays' upper layers, in the tmpfs where the IUT (another
	// user) cannot reach them.
	layers := shm + "/.conform"
	if err := os.Mkdir(layers, 0o700); err != nil {
		return err
	}
	covered := []string{shm}
	for i, dir := range tempDirs() {
		if dir == shm || strings.HasPrefix(dir, shm+"/") || strings.ContainsAny(dir, ",:\\") {
			continue
		}
		var st unix.Stat_t
		if err := unix.Stat(dir, &st); err != nil {
			return err
		}
		up, work := fmt.Sprintf("%s/%d/up", layers, i), fmt.Sprintf("%s/%d/work", layers, i)
		if err := os.MkdirAll(work, 0o700); err != nil {
			return err
		}
		if err := os.Mkdir(up, 0o700); err != nil {
			return err
		}
		// The merged directory takes the upper layer's owner and mode:
		// those of the directory it covers (root's 1777 for /tmp).
		if err := unix.Chown(up, int(st.Uid), int(st.Gid)); err != nil {
			return err
		}
		if err := unix.Chmod(up, st.Mode&07777); err != nil {
			return err
		}
		opts := "lowerdir=" + dir + ",upperdir=" + up + ",workdir=" + work
		if err := unix.Mount("conform-iut", dir, "overlay", 0, opts); err != nil {
			return fmt.Errorf("mount an overlay on %s: %w", dir, err)
		}
		covered = append(covered, dir)
	}
	// Attached outermost first, so an inner one (work in HOME) comes
	// with it and needs nothing more.
	slices.SortFunc(ks, func(a, b kept) int { return len(a.real) - len(b.real) })
	var bound []string
	for _, k := range ks {
		if !under(k.real, covered) || under(k.real, bound) {
			continue
		}
		if err := unix.MoveMount(k.tree, "", unix.AT_FDCWD, k.real, unix.MOVE_MOUNT_F_EMPTY_PATH); err != nil {
			return fmt.Errorf("bind %s back: %w", k.real, err)
		}
		bound = append(bound, k.real)
	}
	return nil
}

// under reports whether path is one of dirs or inside one.
func under(path string, dirs []string) bool {
	for _, d := range dirs {
		if path == d || strings.HasPrefix(path, d+"/") {
			return true
		}
	}
	return false
}
