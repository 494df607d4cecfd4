package solver

// prefetch asks the processor to bring the cache line at addr into its
// caches without waiting for it (PREFETCHT0). It is only a hint: it reads
// nothing, faults on nothing and changes no result, so a wrong address
// costs a little bandwidth at worst.
//
//go:noescape
func prefetch(addr uintptr)
