//go:build unix

package main

import (
	"syscall"
	"time"
)

// raiseFileLimit raises the soft limit of open files to the hard limit: every
// bot holds a socket (and, with an in-process server, so does its peer).
func raiseFileLimit() fileLimit {
	var rl syscall.Rlimit
	if err := syscall.Getrlimit(syscall.RLIMIT_NOFILE, &rl); err != nil {
		return fileLimit{Err: err.Error()}
	}
	fl := fileLimit{Before: rl.Cur, Soft: rl.Cur, Hard: rl.Max}
	if rl.Cur < rl.Max {
		rl.Cur = rl.Max
		if err := syscall.Setrlimit(syscall.RLIMIT_NOFILE, &rl); err != nil {
			fl.Err = err.Error()
		} else {
			fl.Soft = rl.Max
		}
	}
	return fl
}

// selfCPU is the CPU time (user and system) this process has used.
func selfCPU() (time.Duration, bool) {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0, false
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano()), true
}
