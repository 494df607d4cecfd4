//go:build !unix

package main

import "syscall"

// setRecvBuffer leaves the receive buffer as the system sets it: a
// never-reading client then holds more before the server notices.
func setRecvBuffer(syscall.RawConn, int) error { return nil }
