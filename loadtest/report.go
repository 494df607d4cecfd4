package main

import (
	"fmt"
	"io"
	"strings"

	"klondike/api/protocol"
)

// Report is a run's result; --json prints it as is.
type Report struct {
	Mode   string `json:"mode"`   // "klondike" or "echo" (the baseline)
	Server string `json:"server"` // "external", "embedded" or "echo"
	Target string `json:"target"`
	Store  string `json:"store"`
	// Wiring is how an embedded Redis server was wired: "store, sessions
	// and coord" (as klondiked --redis) or "store and sessions" (--no-coord).
	Wiring string `json:"redis_wiring,omitempty"`

	Players    int     `json:"players"`
	PerMatch   int     `json:"per_match"`
	Join       string  `json:"join"`
	After      string  `json:"after"`
	Think      string  `json:"think"`
	Jitter     float64 `json:"jitter"`
	OpenLoop   bool    `json:"open_loop"`
	Ramp       string  `json:"ramp"`
	Duration   string  `json:"duration"`
	Draw       int     `json:"draw"`
	Passes     int     `json:"passes"`
	TimeLimitS int     `json:"time_limit_s"`
	MaxMoves   int     `json:"max_moves"`
	Seed       uint64  `json:"seed"`
	MsgRate    float64 `json:"msg_rate,omitempty"`

	OpenFiles  fileLimit `json:"open_files"`
	CPUs       int       `json:"cpus"`
	LoadBefore float64   `json:"load_average_before"` // the machine's 1-minute load average
	LoadAfter  float64   `json:"load_average_after"`
	Elapsed    float64   `json:"elapsed_s"`
	Goroutines int       `json:"goroutines_after"`

	Connections connReport   `json:"connections"`
	Lobby       lobbyReport  `json:"lobby"`
	Rounds      roundsReport `json:"rounds"`
	Moves       movesReport  `json:"moves"`

	Latency      latencySummary `json:"move_round_trip"`
	MovesPerSec  float64        `json:"moves_per_second"`
	Window       float64        `json:"window_s"` // the steady state (after the ramp) the rate is measured over
	Leaderboards int64          `json:"leaderboards_received"`
	// MoveOKSlow counts the move_ok frames not in the form the server
	// writes (client.DecodeMessage), read by encoding/json instead: 0 from our
	// server.
	MoveOKSlow int64 `json:"move_ok_slow_path"`

	ServerStats      serverReport `json:"server_process"`
	ClientCPUSeconds float64      `json:"client_cpu_seconds"` // this process

	Check  checkReport  `json:"check"`
	Errors errorsReport `json:"errors"`
	Sweep  *sweepReport `json:"sweep,omitempty"`

	Redis *redisReport `json:"redis,omitempty"` // embedded with --redis
	Idle  *idleReport  `json:"idle,omitempty"`  // --idle

	Baseline *Report     `json:"baseline,omitempty"`
	Ratio    *ratioPoint `json:"ratio_to_echo,omitempty"`

	OK bool `json:"ok"`
}

type connReport struct {
	Opened  int64 `json:"opened"`
	Failed  int64 `json:"failed"`
	Dropped int64 `json:"dropped"` // ended by the server or the network before the bot was done
}

type lobbyReport struct {
	MatchesJoined int64 `json:"matches_joined"`
	Retries       int64 `json:"retries"`
	Timeouts      int64 `json:"timeouts"`
	Resigns       int64 `json:"resigns"`
}

type roundsReport struct {
	Started   int64 `json:"started"`   // round_started received, over all bots
	Completed int   `json:"completed"` // distinct rounds whose round_over a bot received
}

type movesReport struct {
	Sent      int64            `json:"sent"`
	Acked     int64            `json:"acked"`
	Duplicate int64            `json:"duplicate"`
	Retried   int64            `json:"retried"`
	Refused   map[string]int64 `json:"refused"`
}

type serverReport struct {
	Source           string     `json:"source"`
	Before           procSample `json:"before"`
	After            procSample `json:"after"`
	CPUSeconds       float64    `json:"cpu_seconds"`
	CPUCores         float64    `json:"cpu_cores"` // average cores busy over the run
	CPUPerMoveUs     float64    `json:"cpu_per_move_us"`
	AcceptedByServer float64    `json:"accepted_by_server,omitempty"` // klondike_moves_total{result="accepted"} delta
}

// redisReport is what the Redis server did during the run.
type redisReport struct {
	Commands int64   `json:"commands,omitempty"` // sent by the embedded server's store and sessions (pipelined ones one each)
	PerMove  float64 `json:"commands_per_acked_move,omitempty"`
	// From Redis's INFO before and after the run: its CPU time (used_cpu_sys
	// and used_cpu_user) and the reads from its clients (total_reads_processed:
	// about one a batch the server sends).
	CPUSeconds   float64 `json:"cpu_seconds"`
	CPUPerMoveUs float64 `json:"cpu_per_move_us"`
	Reads        int64   `json:"reads"`
	ReadsPerMove float64 `json:"reads_per_acked_move"`
}

// idleReport is the server's memory with every bot connected and idle
// (--idle), less its memory before the run, a connection.
type idleReport struct {
	Welcomed          int64      `json:"welcomed"` // bots that got their welcome
	Held              procSample `json:"held"`     // the server with every bot connected
	RSSPerConn        float64    `json:"rss_bytes_per_conn"`
	HeapPerConn       float64    `json:"heap_inuse_bytes_per_conn"`
	StackPerConn      float64    `json:"stack_inuse_bytes_per_conn"`
	GoroutinesPerConn float64    `json:"goroutines_per_conn"`
}

type checkReport struct {
	Rounds           int      `json:"rounds_checked"`
	Records          int      `json:"records_checked"` // (bot, round) pairs
	MovesChecked     int64    `json:"moves_checked"`
	Unverified       int      `json:"unverified"` // records whose round had not ended (replay 404)
	FetchErrors      int      `json:"fetch_errors"`
	Lost             int64    `json:"lost"`
	Doubled          int64    `json:"doubled"`
	Mismatched       int64    `json:"mismatched"`
	RecordedNotAcked int64    `json:"recorded_not_acked"`
	Details          []string `json:"details,omitempty"`
}

type errorsReport struct {
	Unexpected   int64            `json:"unexpected"`
	IllegalStale int64            `json:"illegal_move_stale_view"`
	ByKind       map[string]int64 `json:"by_kind"`
	Samples      []string         `json:"samples,omitempty"`
}

type sweepReport struct {
	P99LimitMs   float64     `json:"p99_limit_ms"`
	WarmupS      float64     `json:"warmup_s"`
	Steps        []sweepStep `json:"steps"`
	MaxHeldRate  float64     `json:"max_held_rate"`
	MaxHeldP99Ms float64     `json:"max_held_p99_ms"`
}

type sweepStep struct {
	TargetRate  float64        `json:"target_rate"`
	Think       string         `json:"think"`
	OfferedRate float64        `json:"offered_rate"`
	AckedRate   float64        `json:"acked_rate"`
	Latency     latencySummary `json:"latency"`
	Held        bool           `json:"held"`
	Attempt     int            `json:"attempt"` // 2: the step's second run, after it failed once
}

// ratioPoint compares a run with its echo baseline.
type ratioPoint struct {
	Throughput float64 `json:"throughput"` // moves/s (or the sweep's highest held rate) ÷ the echo's
	P99        float64 `json:"p99"`        // p99 ÷ the echo's
}

func newReport(cfg *config) *Report {
	rep := &Report{
		Mode: "klondike", Players: cfg.Players, PerMatch: cfg.PerMatch, Join: cfg.Join, After: cfg.After,
		Think: cfg.Think.String(), Jitter: cfg.Jitter, OpenLoop: cfg.OpenLoop || cfg.Sweep,
		Ramp: cfg.Ramp.String(), Duration: cfg.Duration.String(), Draw: cfg.Draw, Passes: cfg.Passes,
		TimeLimitS: cfg.TimeLimitS, MaxMoves: cfg.MaxMoves, Seed: cfg.Seed,
	}
	switch {
	case cfg.Baseline && cfg.Server != "":
		rep.Mode, rep.Server, rep.Store = "echo", "external echo", "none"
	case cfg.Baseline:
		rep.Mode, rep.Server, rep.Store = "echo", "echo", "none"
	case cfg.Server != "":
		rep.Server, rep.Store = "external", "the server's"
	default:
		rep.Server, rep.Store, rep.MsgRate = "embedded", "memory", cfg.MsgRate
		if cfg.Redis != "" {
			rep.Store, rep.Wiring = "redis", "store, sessions and coord"
			if cfg.NoCoord {
				rep.Wiring = "store and sessions"
			}
		}
	}
	return rep
}

func mb(b float64) float64 { return b / (1 << 20) }

// writeText prints the report for people.
func (rep *Report) writeText(w io.Writer) {
	p := func(format string, a ...any) { fmt.Fprintf(w, format+"\n", a...) }
	what := map[string]string{
		"external": "an external server", "embedded": "the server in this process", "echo": "the echo baseline in this process",
		"external echo": "the echo baseline in its own process",
	}[rep.Server]
	if rep.Wiring != "" {
		p("klondike load test: %s at %s (store: %s; in Redis: %s)", what, rep.Target, rep.Store, rep.Wiring)
	} else {
		p("klondike load test: %s at %s (store: %s)", what, rep.Target, rep.Store)
	}
	loop := "closed loop: think after each answer"
	if rep.OpenLoop {
		loop = "open loop: moves due every think time, latency from when due"
	}
	p("  %d players, %d a match (%s, then %s); think %s ±%.0f%% (%s); ramp %s, duration %s",
		rep.Players, rep.PerMatch, rep.Join, rep.After, rep.Think, rep.Jitter*100, loop, rep.Ramp, rep.Duration)
	p("  draw %d, passes %d, time limit %d s, resign after %d moves (0: never), seed %d", rep.Draw, rep.Passes, rep.TimeLimitS, rep.MaxMoves, rep.Seed)
	if rep.MsgRate != 0 {
		p("  embedded server limits: no per-IP cap, msg rate %.0f/s", rep.MsgRate)
	}
	of := rep.OpenFiles
	if of.Err != "" {
		p("  open files: soft %d, hard %d (%s)", of.Soft, of.Hard, of.Err)
	} else {
		p("  open files: soft %d (was %d), hard %d", of.Soft, of.Before, of.Hard)
	}
	p("  machine: %d CPUs, load average %.2f before, %.2f after (other work on the machine skews every figure)",
		rep.CPUs, rep.LoadBefore, rep.LoadAfter)
	p("connections: opened %d, failed %d, dropped %d", rep.Connections.Opened, rep.Connections.Failed, rep.Connections.Dropped)
	if rep.Mode != "echo" {
		p("lobby: matches joined %d, retries %d, timeouts %d, resignations %d",
			rep.Lobby.MatchesJoined, rep.Lobby.Retries, rep.Lobby.Timeouts, rep.Lobby.Resigns)
		p("rounds: completed %d (distinct rounds seen to end), round starts over all bots %d", rep.Rounds.Completed, rep.Rounds.Started)
	}
	var ref []string
	for _, k := range sortedKeys(rep.Moves.Refused) {
		ref = append(ref, fmt.Sprintf("%s %d", k, rep.Moves.Refused[k]))
	}
	refused := "none"
	if len(ref) > 0 {
		refused = strings.Join(ref, ", ")
	}
	p("moves: sent %d, acknowledged %d, duplicates %d, resent %d; refused: %s",
		rep.Moves.Sent, rep.Moves.Acked, rep.Moves.Duplicate, rep.Moves.Retried, refused)
	if rep.Moves.Refused[protocol.CodeRateLimited] > 0 {
		p("  (rate_limited: the server's per-connection message rate refused frames, which the bots resent;\n" +
			"   start klondiked with --msg-rate -1, or give --msg-rate to the embedded server)")
	}
	l := rep.Latency
	p("move round trip (ms): p50 %.3f  p95 %.3f  p99 %.3f  p99.9 %.3f  max %.3f  mean %.3f  (n=%d)",
		l.P50Ms, l.P95Ms, l.P99Ms, l.P999Ms, l.MaxMs, l.MeanMs, l.Count)
	p("throughput: %.1f moves/s acknowledged over the %.1f s after the ramp", rep.MovesPerSec, rep.Window)
	if rep.Mode != "echo" {
		p("leaderboard updates received: %d", rep.Leaderboards)
		if rep.MoveOKSlow > 0 {
			p("move_ok frames not in the server's usual form (read by encoding/json): %d", rep.MoveOKSlow)
		}
	}
	s := rep.ServerStats
	p("server process: %s", s.Source)
	if s.Before.OK && s.After.OK {
		p("  CPU %.2f s (%.2f cores on average, %.1f µs a move); resident memory %.1f MB before, %.1f MB after",
			s.CPUSeconds, s.CPUCores, s.CPUPerMoveUs, mb(s.Before.RSSBytes), mb(s.After.RSSBytes))
		if rep.Server == "external" {
			p("  server counted %.0f moves accepted (klondike_moves_total)", s.AcceptedByServer)
		}
	} else {
		p("  (not available)")
	}
	p("load generator CPU: %.2f s (this process)", rep.ClientCPUSeconds)
	if r := rep.Redis; r != nil {
		if r.Commands > 0 {
			p("redis: the server sent %d commands, %.2f an acknowledged move (sessions, round starts and ends included)", r.Commands, r.PerMove)
		}
		p("redis server: CPU %.2f s, %.1f µs an acknowledged move; %d reads from its clients, %.2f a move (INFO)", r.CPUSeconds, r.CPUPerMoveUs, r.Reads, r.ReadsPerMove)
	}
	if id := rep.Idle; id != nil {
		p("idle: %d bots welcomed; the server then: resident %.1f MB, %.0f goroutines", id.Welcomed, mb(id.Held.RSSBytes), id.Held.Goroutines)
		p("  a connection (less before the run): resident %.0f B (%.1f KiB), Go heap in use %.0f B, stacks %.0f B, %.2f goroutines",
			id.RSSPerConn, id.RSSPerConn/1024, id.HeapPerConn, id.StackPerConn, id.GoroutinesPerConn)
		if rep.Server == "embedded" || rep.Server == "echo" {
			p("  (the bots run in the same process: their connections count too)")
		}
	}
	if sw := rep.Sweep; sw != nil {
		p("sweep (p99 limit %.0f ms, warm-up %.1f s):", sw.P99LimitMs, sw.WarmupS)
		for i, st := range sw.Steps {
			again := ""
			if st.Attempt > 1 {
				again = " (again)"
			}
			p("  %2d: target %7.0f/s think %-10s offered %7.0f/s acked %7.0f/s  p50 %7.2f  p99 %8.2f  p99.9 %8.2f ms  %s%s",
				i+1, st.TargetRate, st.Think, st.OfferedRate, st.AckedRate, st.Latency.P50Ms, st.Latency.P99Ms, st.Latency.P999Ms,
				map[bool]string{true: "held", false: "NOT held"}[st.Held], again)
		}
		p("  highest rate held with p99 under %.0f ms: %.0f moves/s (p99 %.2f ms)", sw.P99LimitMs, sw.MaxHeldRate, sw.MaxHeldP99Ms)
	}
	if rep.Mode != "echo" {
		c := rep.Check
		p("check against the replays: %d rounds, %d (bot, round) records, %d moves; lost %d, doubled %d, mismatched %d; logged but not acknowledged %d; unverified %d (round not over), fetch errors %d",
			c.Rounds, c.Records, c.MovesChecked, c.Lost, c.Doubled, c.Mismatched, c.RecordedNotAcked, c.Unverified, c.FetchErrors)
		for _, d := range c.Details {
			p("  %s", d)
		}
	}
	e := rep.Errors
	p("unexpected errors: %d; illegal moves on a stale view: %d", e.Unexpected, e.IllegalStale)
	for _, k := range sortedKeys(e.ByKind) {
		p("  %s: %d", k, e.ByKind[k])
	}
	for _, smp := range e.Samples {
		p("  e.g. %s", smp)
	}
	if rep.Baseline != nil && rep.Ratio != nil {
		b := rep.Baseline
		p("echo baseline, same bots and flags: %.1f moves/s, p50 %.3f ms, p99 %.3f ms, CPU %.2f s",
			b.MovesPerSec, b.Latency.P50Ms, b.Latency.P99Ms, b.ServerStats.CPUSeconds)
		if b.Sweep != nil {
			p("  echo sweep: highest rate held %.0f moves/s", b.Sweep.MaxHeldRate)
		}
		p("ratio to echo: throughput %.3f, p99 %.2f×", rep.Ratio.Throughput, rep.Ratio.P99)
	}
	if rep.OK {
		p("result: OK")
	} else {
		p("result: FAILED (unexpected errors, failed connections, lost/doubled/mismatched moves, or no move acknowledged)")
	}
}
