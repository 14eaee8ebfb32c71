//go:build !unix

package main

// nonBlockingOpen is 0 where there are no FIFOs of the Unix kind; a named
// pipe there opens at once or fails.
const nonBlockingOpen = 0

// noReader is false here: see nonBlockingOpen.
func noReader(error) bool { return false }
