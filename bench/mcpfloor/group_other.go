//go:build !unix

package main

import "os/exec"

// ownGroup does nothing where there are no process groups.
func ownGroup(cmd *exec.Cmd) {}

// killGroup kills cmd's process only (no process groups here).
func killGroup(cmd *exec.Cmd) { _ = cmd.Process.Kill() }
