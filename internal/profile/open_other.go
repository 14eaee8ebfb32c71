//go:build !unix

package profile

// nonBlocking is 0 where there are no FIFOs of the Unix kind.
const nonBlocking = 0
