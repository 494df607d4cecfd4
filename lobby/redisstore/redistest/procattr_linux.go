package redistest

import "syscall"

// sysProcAttr has the kernel kill the server if the test binary dies
// without cleaning up (a panic, a -timeout).
func sysProcAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
}
