package main

import "time"

// tally fills the report from the run's counters and readings, and judges
// the run: rep.OK.
func (r *runner) tally(rep *Report, t0, end time.Time, w window, before, after readings) {
	cfg := &r.cfg
	external := cfg.Server != ""
	c := r.c
	refused, unexpected, samples, rounds := c.snapshot()
	rep.Elapsed = end.Sub(t0).Seconds()
	rep.Connections = connReport{Opened: c.connsOpened.Load(), Failed: c.connsFailed.Load(), Dropped: c.connsDropped.Load()}
	rep.Rounds.Started = c.roundsStarted.Load()
	rep.Rounds.Completed = rounds
	rep.Lobby = lobbyReport{MatchesJoined: c.matchesJoined.Load(), Retries: c.lobbyRetries.Load(),
		Timeouts: c.lobbyTimeouts.Load(), Resigns: c.resigns.Load()}
	rep.Moves = movesReport{Sent: c.movesSent.Load(), Acked: c.movesAcked.Load(), Duplicate: c.movesDuplicate.Load(),
		Retried: c.movesRetried.Load(), Refused: refused}
	rep.Latency = r.total.Summary()
	rep.Window = w.end.Sub(w.start).Seconds()
	if rep.Window > 0 {
		rep.MovesPerSec = float64(w.ackedEnd-w.ackedStart) / rep.Window
	}
	rep.Leaderboards = c.leaderboards.Load()
	rep.MoveOKSlow = c.moveOKSlow.Load()
	rep.Errors = errorsReport{IllegalStale: c.illegalStale.Load(), ByKind: unexpected, Samples: samples}
	for _, v := range unexpected {
		rep.Errors.Unexpected += v
	}
	rep.ServerStats = serverReport{Before: before.proc, After: after.proc}
	wall := end.Sub(t0).Seconds()
	switch {
	case external && !r.echo:
		rep.ServerStats.Source = "the server's /metrics (process_cpu_seconds_total, process_resident_memory_bytes)"
	case external:
		rep.ServerStats.Source = "the echo server's /metrics (its own process, --echo-listen)"
	case r.echo:
		rep.ServerStats.Source = "this process (getrusage, /proc/self/statm): the echo server and the bots share it"
	default:
		rep.ServerStats.Source = "this process (getrusage, /proc/self/statm): the embedded server and the bots share it"
	}
	if before.proc.OK && after.proc.OK {
		rep.ServerStats.CPUSeconds = after.proc.CPUSeconds - before.proc.CPUSeconds
		rep.ServerStats.CPUCores = rep.ServerStats.CPUSeconds / wall
		if rep.Moves.Acked > 0 {
			rep.ServerStats.CPUPerMoveUs = rep.ServerStats.CPUSeconds / float64(rep.Moves.Acked) * 1e6
		}
		if external && !r.echo {
			rep.ServerStats.AcceptedByServer = after.proc.Moves["accepted"] - before.proc.Moves["accepted"]
		}
	}
	rep.ClientCPUSeconds = (after.clientCPU - before.clientCPU).Seconds()
	// A run that played no move checked nothing: it fails too (an --idle
	// run plays none by design).
	rep.OK = rep.Errors.Unexpected == 0 && rep.Check.Lost == 0 && rep.Check.Doubled == 0 &&
		rep.Check.Mismatched == 0 && rep.Connections.Failed == 0 &&
		(rep.Idle == nil || rep.Idle.Welcomed == int64(cfg.Players)) &&
		(rep.Idle != nil || rep.Moves.Acked > 0)
}
