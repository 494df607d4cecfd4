//go:build !amd64

package solver

// prefetch is a hint that this architecture's build does not give (see
// prefetch_amd64.go): it does nothing.
func prefetch(addr uintptr) {}
