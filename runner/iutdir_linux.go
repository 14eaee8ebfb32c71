package runner

import "golang.org/x/sys/unix"

// identity is what a directory must keep to be handed on.
type identity struct {
	dev, ino uint64
	flags    int32 // FS_IOC_GETFLAGS, or -1 where the file system has none
}

// identify returns dir's device, inode and inode flags. A symbolic link
// is not followed (it has no identity here).
func identify(dir string) (identity, bool) {
	fd, err := openDir(dir)
	if err != nil {
		return identity{}, false
	}
	defer unix.Close(fd)
	id, _, ok := identifyFD(fd)
	return id, ok
}

// openDir opens dir itself, never through a final symbolic link, with a
// plain system call (no *os.File: nothing registered with the runtime's
// poller; the directories are checked twice a vector).
func openDir(dir string) (int, error) {
	for {
		fd, err := unix.Open(dir, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0)
		if err != unix.EINTR {
			return fd, err
		}
	}
}

// identifyFD returns the identity of the open directory fd and its
// status.
func identifyFD(fd int) (identity, unix.Stat_t, bool) {
	var st unix.Stat_t
	if unix.Fstat(fd, &st) != nil {
		return identity{}, st, false
	}
	id := identity{dev: st.Dev, ino: st.Ino, flags: -1}
	if flags, err := unix.IoctlGetInt(fd, unix.FS_IOC_GETFLAGS); err == nil {
		id.flags = int32(flags)
	}
	return id, st, true
}

// pristine reports whether dir is still the directory want describes (same
// device, inode and inode flags), a real directory of mode 0700 owned by
// uid, without extended attributes, whose only entry is the name only (none
// when only is ""). Everything is read through one descriptor of dir,
// opened without following a link.
func pristine(dir, only string, want identity, uid int) bool {
	fd, err := openDir(dir)
	if err != nil {
		return false
	}
	defer unix.Close(fd)
	got, st, ok := identifyFD(fd)
	if !ok || got != want || st.Mode != unix.S_IFDIR|0o700 || int(st.Uid) != uid {
		return false
	}
	if n, err := unix.Flistxattr(fd, nil); err != nil && err != unix.ENOTSUP || n > 0 {
		return false
	}
	var buf [512]byte
	var names []string
	for {
		n, err := unix.ReadDirent(fd, buf[:])
		if err == unix.EINTR {
			continue
		}
		if err != nil {
			return false
		}
		if n <= 0 {
			break
		}
		_, _, names = unix.ParseDirent(buf[:n], -1, names)
		if len(names) > 1 {
			return false
		}
	}
	if only == "" {
		return len(names) == 0
	}
	return len(names) == 1 && names[0] == only
}

// Inode flags an IUT running as root may set to keep a file from being
// removed (FS_IMMUTABLE_FL and FS_APPEND_FL, include/uapi/linux/fs.h;
// chattr +i and +a).
const (
	fsImmutable = 0x10
	fsAppend    = 0x20
)

// unlockEntry makes the regular file or directory path removable: it
// clears the immutable and append-only inode flags (FS_IOC_SETFLAGS), and
// gives a directory mode 0700. It is opened without following a link and
// without blocking, and errors are ignored: the removal that follows says
// what is left.
func unlockEntry(path string, dir bool) {
	fd, err := unix.Open(path, unix.O_RDONLY|unix.O_NOFOLLOW|unix.O_NONBLOCK|unix.O_NOCTTY|unix.O_CLOEXEC, 0)
	if err != nil {
		return
	}
	defer unix.Close(fd)
	var st unix.Stat_t
	if unix.Fstat(fd, &st) != nil || (st.Mode&unix.S_IFMT != unix.S_IFREG && st.Mode&unix.S_IFMT != unix.S_IFDIR) {
		return
	}
	if flags, err := unix.IoctlGetInt(fd, unix.FS_IOC_GETFLAGS); err == nil && flags&(fsImmutable|fsAppend) != 0 {
		_ = unix.IoctlSetPointerInt(fd, unix.FS_IOC_SETFLAGS, flags&^(fsImmutable|fsAppend))
	}
	if dir && st.Mode&0o700 != 0o700 {
		_ = unix.Fchmod(fd, 0o700)
	}
}
