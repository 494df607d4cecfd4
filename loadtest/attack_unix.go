//go:build unix

package main

import "syscall"

// setRecvBuffer sets a socket's receive buffer (SO_RCVBUF), before it
// connects.
func setRecvBuffer(rc syscall.RawConn, n int) error {
	var serr error
	if err := rc.Control(func(fd uintptr) {
		serr = syscall.SetsockoptInt(int(fd), syscall.SOL_SOCKET, syscall.SO_RCVBUF, n)
	}); err != nil {
		return err
	}
	return serr
}
