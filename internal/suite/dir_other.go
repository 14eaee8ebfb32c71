//go:build !unix

package suite

import "os"

// plainDir is nil off Unix: the directory is read as opened.
func plainDir(*os.File) *os.File { return nil }
