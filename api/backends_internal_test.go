package api

import "klondike/lobby/memstore"

// withMemory returns cfg with the memory backends of this process, for
// the tests and benchmarks inside the package.
func withMemory(cfg Config) Config {
	mem := memstore.NewBackends()
	cfg.Store, cfg.Sessions, cfg.Coord, cfg.Challenges, cfg.Records = mem.Store, mem.Sessions, mem.Coord, mem.Challenges, mem.Challenges
	return cfg
}
