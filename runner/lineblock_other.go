//go:build !(linux || darwin || freebsd || netbsd || openbsd || dragonfly)

package runner

// newLineBlock returns an empty block of capacity n for readBlocks: here
// ordinary memory, which the collector takes back (see lineblock_mmap.go).
func newLineBlock(n int) (b []byte, mapped bool) { return make([]byte, 0, n), false }

// freeLineBlock does nothing here: the collector takes the block back.
func freeLineBlock([]byte, bool) {}
