//go:build !unix

package input

// nonBlocking is zero off Unix: Windows has no FIFOs in its file system
// (named pipes live under \\.\pipe\, not in a folder a kit input is read
// from).
const nonBlocking = 0
