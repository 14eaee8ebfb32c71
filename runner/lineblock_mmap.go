//go:build linux || darwin || freebsd || netbsd || openbsd || dragonfly

package runner

import "syscall"

// newLineBlock returns an empty block of capacity n for readBlocks, mapped
// outside the Go heap (anonymous mmap(2)) so that freeLineBlock gives its
// pages back at once: a line read from a pipe is then held about once
// while it is copied into memory of its size, not twice. mapped is false
// when the mapping failed and the block is ordinary memory.
func newLineBlock(n int) (b []byte, mapped bool) {
	m, err := syscall.Mmap(-1, 0, n, syscall.PROT_READ|syscall.PROT_WRITE, syscall.MAP_ANON|syscall.MAP_PRIVATE)
	if err != nil {
		return make([]byte, 0, n), false
	}
	return m[:0], true
}

// freeLineBlock unmaps a block newLineBlock mapped; b must not be used
// after it.
func freeLineBlock(b []byte, mapped bool) {
	if mapped {
		syscall.Munmap(b[:cap(b)])
	}
}
