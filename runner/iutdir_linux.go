package runner

import (
	"io/fs"
	"os"
	"syscall"
	"unsafe"
)

// identity is what a directory must keep to be handed on.
type identity struct {
	dev, ino uint64
	flags    int32 // FS_IOC_GETFLAGS, or -1 where the file system has none
}

// identify returns dir's device, inode and inode flags.
func identify(dir string) (identity, bool) {
	fi, err := os.Lstat(dir)
	if err != nil {
		return identity{}, false
	}
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return identity{}, false
	}
	id := identity{dev: st.Dev, ino: st.Ino, flags: -1}
	f, err := os.Open(dir)
	if err != nil {
		return identity{}, false
	}
	defer f.Close()
	var flags int32
	if _, _, errno := syscall.Syscall(syscall.SYS_IOCTL, f.Fd(), fsIocGetflags, uintptr(unsafe.Pointer(&flags))); errno == 0 {
		id.flags = flags
	}
	return id, true
}

// fsIocGetflags is FS_IOC_GETFLAGS (linux/fs.h) on 64-bit Linux.
const fsIocGetflags = 0x80086601

// unchanged reports whether dir (whose Lstat is fi) is owned by uid, is
// still the directory want describes, and has no extended attribute.
func unchanged(dir string, fi fs.FileInfo, want identity, uid int) bool {
	if st, ok := fi.Sys().(*syscall.Stat_t); !ok || int(st.Uid) != uid {
		return false
	}
	if got, ok := identify(dir); !ok || got != want {
		return false
	}
	if n, err := syscall.Listxattr(dir, nil); err != nil && err != syscall.ENOTSUP || n > 0 {
		return false
	}
	return true
}
