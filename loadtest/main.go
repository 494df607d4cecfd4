// Command loadtest plays bots against klondiked over real WebSocket
// connections, exactly as clients do, and reports throughput, move round
// trips, the server's CPU and memory, and whether every acknowledged move
// is in the server's replay logs. See usage for the flags, and
// docs/performance.md ("Load") for measured runs.
package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"os"
	"os/signal"
	"syscall"
	"time"
)

func usage(w io.Writer) {
	fmt.Fprint(w, `Usage: go run ./loadtest [flags]

Bots connect to a klondiked server over WebSocket, say hello, find matches
through the lobby (quick match, or one bot creates and the others join by
invite code), and play real games: each picks one of the legal moves of its
own view (engine.View.LegalMoves under the round's rules) after a think
time, sends it with its seq, and handles move_ok, move_rejected
(out_of_order, round_not_running, illegal_move, unavailable) and
rate_limited. After a match they rematch or queue again, until the
duration ends; then they resign, wait for their rounds to end (the drain)
and disconnect. Last, every acknowledged move of every bot is compared with
the round's replay log (GET /api/v1/rounds/{id}/replay).

Target (loopback addresses only):
  --embedded          run the server in this process on 127.0.0.1:0 (the
                      default when --server is not given): wired as klondiked
                      wires it, with the memory store, no per-IP cap, --msg-rate
  --server URL        an external server, ws://127.0.0.1:PORT/ws. Start it
                      with the caps lifted, for example
                        go run ./cmd/klondiked --addr 127.0.0.1:8080 \
                          --max-conns-per-ip -1 --max-http-conns-per-ip -1 \
                          --new-sessions-per-minute -1 --max-open-matches-per-ip -1 \
                          --max-open-matches -1 --msg-rate -1 --log-level warn
                      (the defaults, 64 WebSocket connections and 30 new
                      players a minute an address, 50 messages a second,
                      refuse most bots from one address)
  --redis URL         with --embedded: the Redis store, sessions and Coord on
                      one client, as klondiked --redis wires them
                      (redis://127.0.0.1:PORT/0)
  --redis-info URL    with --server: the external server's Redis (loopback),
                      whose INFO is read before and after the run for its CPU
                      and reads a move (with --redis the run reads its own)
  --no-coord          with --redis: the store and sessions in Redis, but the
                      matches' records, the lobby's indexes and the bus in
                      this process (klondiked before the Coord; compares the
                      move path alone with the production wiring)
  --baseline          instead of klondiked, a bare WebSocket echo server in
                      this process: hello gets a welcome, a move a move_ok with
                      a fixed view; the limit of the machine for comparison.
                      With --server, an echo server started by --echo-listen
  --with-baseline     after the run, run the baseline with the same flags and
                      report the ratio
  --echo-listen ADDR  only serve the echo (and its /metrics) on ADDR, e.g.
                      127.0.0.1:18081, for --duration: a baseline in a process
                      of its own, to compare with an external klondiked
  --echo-redis URL    with --echo-listen: the echo logs each move to this
                      Redis (loopback) before it answers, one RPUSH a move in
                      shared pipelines (group commit, no checks): the least a
                      durable move costs, the baseline of the Redis store;
                      read its CPU with the bots' --redis-info URL
  --echo-store URL    with --echo-listen: the echo logs each move with the
                      Redis store's own Append (append.lua's checks, the
                      standing, group commit) before it answers: the floor of
                      a checked durable move; loopback, not with --echo-redis

Load:
  --players N         bots (default 100)
  --per-match N       players a match, max_players (default 4)
  --join quick|code   how bots find matches (default quick)
  --after rematch|requeue|quit
                      after a match (default rematch)
  --think D           time between a move's answer and the next move
                      (default 200ms); 0 sends at once
  --jitter F          think time varies by ±F·think, uniformly (default 0.5)
  --open-loop         moves are due every think time (no jitter); latency
                      counts from when a move was due
  --ramp D            bots start evenly over D (default 5s)
  --duration D        the run, ramp included (default 30s); then the drain
  --drain D           the longest wait for rounds to end (default 15s)
  --lobby-wait D      a host starts its match with whoever is in after D
                      (default 15s)
  --rematch-spread D  after a match its host asks for the rematch at once,
                      the others within 0.2·D..D (default 500ms; 0: all at
                      once, which races in the server's lobby)
  --seed N            seed of the bots' choices (default 1)
  --idle              bots connect, say hello and then only answer pings
                      until the end: the report gives the server's memory a
                      connection (RSS, Go heap and stacks), measured at the
                      end of --duration less before the run

Games:
  --draw 1|3          (default 3)
  --passes 0|1|3      (default 0: unlimited)
  --time-limit S      rounds' time_limit_s (default 20; with --sweep long
                      enough for the whole sweep)
  --countdown S       rounds' countdown_s (default 1)
  --rounds N          rounds a match (default 1)
  --max-moves N       a bot resigns after N moves in a round (default 0: never)
  --deal N            every round deals this numbered deal (known deals)

Sweep:
  --sweep             open loop; raise the offered rate step by step from
                      players/think and report the highest rate held with a
                      p99 under --sweep-p99
  --sweep-steps N     (default 8)
  --sweep-step D      each step's length (default 10s)
  --sweep-factor F    rate multiplier between steps (default 1.5)
  --sweep-p99 D       (default 20ms)

Output:
  --json              the report as JSON
  --verify            compare acknowledged moves with the replays (default true)
  --msg-rate R        the embedded server's messages a second per
                      connection (default 1000; negative: no limit)
  --server-log LEVEL  the embedded server's log level (default warn)
  --cpuprofile FILE   write a CPU profile of this process (with --embedded:
                      server and bots)
  --memprofile FILE   write a heap profile at the end (with --idle: with
                      every bot connected)
  --trace FILE        write an execution trace of the run (go tool trace;
                      -pprof=sched gives where goroutines waited for a CPU)

Matchmaking (rated quick matches, docs/ratings.md): instead of the load,
bots of known skill play rated quick matches against each other, each
round asking quick_match anew; a bot's move is, with probability its
skill, a simple heuristic's best (cards to the foundations, then moves
that turn a card up, then moves that empty a column, then the waste,
then the stock), otherwise a random legal move, and better bots think
less. The report gives the rounds rated, the wait from quick_match to
round_starting, the rating spread within a match at seating, the
pair-games the daily limit kept apart, Spearman's correlation of the
final ratings with the skills (also after a quarter, half and three
quarters of the rated rounds), and how often the better bot of a pair
placed ahead by their gap in skill. --server, --passes, --countdown,
--seed, --json and --duration (then bots ask for no round after it)
apply; --draw defaults to 1 and --time-limit to 10 here, so that the
clock binds and skill tells in the results.
  --matchmaking       run the measurement
  --mm-bots N         bots (default 40)
  --mm-rounds N       rounds each bot plays (default 30)
  --mm-players N      max_players of the quick matches (default 2)
  --mm-levels N       skill levels (2 or more), spread evenly from 0 to 1
                      over the bots (default 10)
  --mm-think D        the best bot's think time; the worst thinks twice
                      as long (default 75ms)

Attacks (docs/security.md): instead of bots, one probe of the server's
limits from this machine, as an attacker would; it prints what it did
and what the server did (the server's memory and counters from its
/metrics), --json as a run does. Needs --server (loopback only); start
klondiked with its default limits, and --max-conns-per-ip -1 only where
an attack needs more connections than the cap allows.
  --attack NAME       one of:
                      slow-reader: create --attack-matches public open
                        matches of --attack-seats players, each player a
                        new session named 24 '<' (each escapes to six
                        bytes); then --attack-conns clients with a 4 KiB
                        receive buffer ask for list_matches --attack-rate
                        times a second for --duration and never read: the
                        server's memory before, at its peak and
                        --attack-wait after, the growth a client, and how
                        and when each was closed (defaults 200 matches of
                        8, 20 clients, 40/s, 20s, 10s)
                      ping-flood: --attack-conns connections send up to
                        --attack-count pings each for --duration at most;
                        pongs a second, the server's CPU, how each ended,
                        and the move round trip of an honest player in a
                        solo round before and during the flood
                        (defaults 8, 200000, 10s)
                      idle-keepalive: --attack-conns HTTP keep-alive
                        connections ask GET /healthz once, then idle: when
                        the server closes them (default 32, up to
                        --attack-wait 120s)
                      stalled-body: --attack-conns requests (GET /healthz,
                        POST /api/v1/matches) announce a 1024-byte body and
                        send one byte: when the server answers and closes
                        (default 4, up to --attack-wait 120s)
                      slow-headers: --attack-conns requests send their
                        first header lines and never end them: when the
                        server closes them (default 4, up to
                        --attack-wait 120s)
                      http-ip-cap: keep-alive connections, one after the
                        other, each GET /healthz then held, until 3 are
                        refused in a row or --attack-conns are open
                        (default 1000): how many were accepted, and the
                        refusal
                      abandoned-matches: create --attack-matches public
                        open matches whose creators all disconnect; how
                        many GET /api/v1/matches lists, polled for
                        --attack-wait (defaults 200, 3m)
                      new-sessions: hello without a token, a connection
                        each, as fast as possible until refused, then
                        --attack-rate a second, --attack-conns at most
                        within --attack-wait (defaults 1000, 5/s, 1m): the
                        sessions granted and the refusal
                      bulk-attempts: from --attack-conns addresses
                        (127.0.0.2 on), new players make challenges until
                        refused, then start attempts until --attack-count
                        are started, hold them for --duration retrying
                        once a second, and leave; the refusals, the
                        server's CPU and memory, and an honest player's
                        move round trip quiet (--duration), during the
                        burst, while held, the first 10 s after and until
                        --attack-wait after (defaults 4, 6000, 10s, 30s)
                      attempt-resume: one player's attempt grows a log of
                        up to --attack-count draws and recycles within
                        --attack-wait (or until refused), then one
                        connection resumes it (start_attempt)
                        --attack-rate times a second for --duration: the
                        resume latency, the server's CPU and an honest
                        player's round trip quiet and during (defaults
                        50000, 4m, 50/s, 10s)
                      bulk-challenges: one address makes new players as
                        fast as allowed (a refused hello waits
                        1/--attack-rate), each makes challenges until
                        refused, for --duration, --attack-conns players at
                        most; with --attack-server2 the players alternate
                        between the two nodes (defaults 1/s, 60s, 1000)
                      daily-probe: throwaway players from one address
                        start today's daily deal, play up to
                        --attack-count random legal moves and resign, for
                        --duration, --attack-conns at most: probes a
                        minute, the deal's cards seen together, the
                        probes' ranks on the daily board (defaults 300,
                        60s, 1000)
  --attack-conns N    connections (new-sessions: hellos)
  --attack-matches N  matches to create
  --attack-seats N    players seated in each (slow-reader)
  --attack-count N    pings a connection (ping-flood), attempts
                      (bulk-attempts), moves (attempt-resume, daily-probe)
  --attack-rate R     requests a second a connection (slow-reader,
                      attempt-resume), hellos a second once refused
                      (new-sessions, bulk-challenges, daily-probe)
  --attack-wait D     the longest wait for the server to act (and
                      slow-reader: when its memory is read after)
  --attack-server2 URL
                      bulk-challenges: a second node of the same cluster
                      (loopback), ws://127.0.0.1:PORT/ws
  --duration D        with --attack: how long the attack itself runs

Exit status: 0 when every check passed; 1 when moves were lost, doubled or
mismatched, a connection failed or dropped, anything unexpected happened
(illegal_move on a fresh view, out_of_order, internal, ...), or no move at
all was acknowledged (outside --idle); 2 for bad usage or a run that could
not start. An attack exits 0 when it ran, whatever the server did.

Examples:
  go run ./loadtest --embedded --players 100 --think 200ms --duration 30s
  go run ./loadtest --server ws://127.0.0.1:8080/ws --players 1000 --think 500ms --ramp 10s --duration 60s
  go run ./loadtest --embedded --players 200 --sweep --think 100ms --json
  go run ./loadtest --baseline --players 1000 --think 100ms
  go run ./loadtest --server ws://127.0.0.1:8080/ws --idle --players 19000 --ramp 60s --duration 90s
  go run ./loadtest --echo-listen 127.0.0.1:18081 --duration 10m &
  go run ./loadtest --baseline --server ws://127.0.0.1:18081/ws --players 200 --sweep --think 66ms
  go run ./loadtest --matchmaking --mm-bots 80 --mm-rounds 30
  go run ./loadtest --server ws://127.0.0.1:8080/ws --attack ping-flood --attack-conns 8
  go run ./loadtest --server ws://127.0.0.1:8080/ws --attack slow-reader --json
`)
}

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	os.Exit(runMain(ctx, os.Args[1:], os.Stdout, os.Stderr))
}

// parseConfig reads the flags of a load run.
func parseConfig(args []string, stderr io.Writer) (config, error) {
	cfg, _, err := parseFlags(args, stderr)
	return cfg, err
}

// parseFlags reads the flags: a load run's, or with --attack an attack's.
func parseFlags(args []string, stderr io.Writer) (config, attackConfig, error) {
	var cfg config
	var ac attackConfig
	fs := flag.NewFlagSet("loadtest", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	fs.IntVar(&cfg.Players, "players", 100, "")
	fs.IntVar(&cfg.PerMatch, "per-match", 4, "")
	fs.StringVar(&cfg.Join, "join", joinQuick, "")
	fs.StringVar(&cfg.After, "after", afterRematch, "")
	fs.DurationVar(&cfg.Think, "think", 200*time.Millisecond, "")
	fs.Float64Var(&cfg.Jitter, "jitter", 0.5, "")
	fs.BoolVar(&cfg.OpenLoop, "open-loop", false, "")
	fs.DurationVar(&cfg.Ramp, "ramp", 5*time.Second, "")
	fs.DurationVar(&cfg.Duration, "duration", 30*time.Second, "")
	fs.DurationVar(&cfg.Drain, "drain", 15*time.Second, "")
	fs.DurationVar(&cfg.LobbyWait, "lobby-wait", 15*time.Second, "")
	fs.DurationVar(&cfg.RematchSpread, "rematch-spread", 500*time.Millisecond, "")
	fs.IntVar(&cfg.Draw, "draw", 3, "")
	fs.IntVar(&cfg.Passes, "passes", 0, "")
	fs.IntVar(&cfg.TimeLimitS, "time-limit", 20, "")
	fs.IntVar(&cfg.CountdownS, "countdown", 1, "")
	fs.IntVar(&cfg.Rounds, "rounds", 1, "")
	fs.IntVar(&cfg.MaxMoves, "max-moves", 0, "")
	fs.StringVar(&cfg.Deal, "deal", "", "")
	fs.Uint64Var(&cfg.Seed, "seed", 1, "")
	fs.StringVar(&cfg.Server, "server", "", "")
	fs.BoolVar(&cfg.Embedded, "embedded", false, "")
	fs.StringVar(&cfg.Redis, "redis", "", "")
	fs.BoolVar(&cfg.NoCoord, "no-coord", false, "")
	fs.StringVar(&cfg.RedisInfo, "redis-info", "", "")
	fs.BoolVar(&cfg.Idle, "idle", false, "")
	fs.Float64Var(&cfg.MsgRate, "msg-rate", 1000, "")
	fs.StringVar(&cfg.ServerLog, "server-log", "warn", "")
	fs.BoolVar(&cfg.Baseline, "baseline", false, "")
	fs.BoolVar(&cfg.WithBaseline, "with-baseline", false, "")
	fs.StringVar(&cfg.EchoListen, "echo-listen", "", "")
	fs.StringVar(&cfg.EchoRedis, "echo-redis", "", "")
	fs.StringVar(&cfg.EchoStore, "echo-store", "", "")
	fs.BoolVar(&cfg.Sweep, "sweep", false, "")
	fs.IntVar(&cfg.SweepSteps, "sweep-steps", 8, "")
	fs.DurationVar(&cfg.SweepStep, "sweep-step", 10*time.Second, "")
	fs.Float64Var(&cfg.SweepFactor, "sweep-factor", 1.5, "")
	fs.DurationVar(&cfg.SweepP99, "sweep-p99", 20*time.Millisecond, "")
	fs.BoolVar(&cfg.Verify, "verify", true, "")
	fs.BoolVar(&cfg.JSON, "json", false, "")
	fs.StringVar(&cfg.CPUProfile, "cpuprofile", "", "")
	fs.StringVar(&cfg.MemProfile, "memprofile", "", "")
	fs.StringVar(&cfg.Trace, "trace", "", "")
	fs.BoolVar(&cfg.Matchmaking, "matchmaking", false, "")
	fs.IntVar(&cfg.MM.Bots, "mm-bots", 40, "")
	fs.IntVar(&cfg.MM.Rounds, "mm-rounds", 30, "")
	fs.IntVar(&cfg.MM.Players, "mm-players", 2, "")
	fs.IntVar(&cfg.MM.Levels, "mm-levels", 10, "")
	fs.DurationVar(&cfg.MM.Think, "mm-think", 75*time.Millisecond, "")
	fs.StringVar(&ac.Name, "attack", "", "")
	fs.IntVar(&ac.Conns, "attack-conns", 0, "")
	fs.IntVar(&ac.Matches, "attack-matches", 0, "")
	fs.IntVar(&ac.Seats, "attack-seats", 0, "")
	fs.IntVar(&ac.Count, "attack-count", 0, "")
	fs.Float64Var(&ac.Rate, "attack-rate", 0, "")
	fs.DurationVar(&ac.Wait, "attack-wait", 0, "")
	fs.StringVar(&ac.Server2, "attack-server2", "", "")
	if err := fs.Parse(args); err != nil {
		return cfg, ac, err
	}
	if fs.NArg() > 0 {
		return cfg, ac, fmt.Errorf("unexpected arguments %q", fs.Args())
	}
	timeLimitSet, durationSet, drawSet := false, false, false
	fs.Visit(func(f *flag.Flag) {
		timeLimitSet = timeLimitSet || f.Name == "time-limit"
		durationSet = durationSet || f.Name == "duration"
		drawSet = drawSet || f.Name == "draw"
	})
	if cfg.Matchmaking {
		if ac.Name != "" || cfg.Baseline || cfg.EchoListen != "" || cfg.Sweep || cfg.Idle {
			return cfg, ac, errors.New("--matchmaking is a measurement of its own: no --attack, --baseline, --echo-listen, --sweep or --idle")
		}
		if durationSet {
			cfg.MM.Duration = cfg.Duration
		}
		// Rounds against the clock in draw 1 unless asked otherwise: there
		// the bots' skill tells in their results (matchmaking.go).
		if !timeLimitSet {
			cfg.TimeLimitS = mmTimeLimitS
		}
		if !drawSet {
			cfg.Draw = 1
		}
		return cfg, ac, cfg.MM.check(&cfg)
	}
	if ac.Name != "" {
		if cfg.Embedded || cfg.Redis != "" || cfg.Baseline || cfg.EchoListen != "" || cfg.Sweep || cfg.Idle {
			return cfg, ac, errors.New("--attack runs against --server only: no --embedded, --redis, --baseline, --echo-listen, --sweep or --idle")
		}
		ac.Server, ac.JSON = cfg.Server, cfg.JSON
		if durationSet {
			ac.Duration = cfg.Duration
		}
		return cfg, ac, ac.check()
	}

	bad := func(format string, a ...any) (config, attackConfig, error) { return cfg, ac, fmt.Errorf(format, a...) }
	switch {
	case cfg.Players < 1 || cfg.Players > 20000:
		return bad("--players %d: want 1..20000", cfg.Players)
	case cfg.PerMatch < 1 || cfg.PerMatch > 64:
		return bad("--per-match %d: want 1..64", cfg.PerMatch)
	case cfg.Join != joinQuick && cfg.Join != joinCode:
		return bad("--join %q: want quick or code", cfg.Join)
	case cfg.After != afterRematch && cfg.After != afterRequeue && cfg.After != afterQuit:
		return bad("--after %q: want rematch, requeue or quit", cfg.After)
	case cfg.Think < 0 || cfg.Think > time.Hour:
		return bad("--think %v: want 0..1h", cfg.Think)
	case cfg.Jitter < 0 || cfg.Jitter > 1:
		return bad("--jitter %v: want 0..1", cfg.Jitter)
	case cfg.Ramp < 0 || cfg.Duration <= 0 || cfg.Duration > 24*time.Hour || cfg.Drain < 0 || cfg.Drain > time.Hour:
		return bad("--ramp, --duration, --drain: want 0 ≤ ramp, 0 < duration ≤ 24h, 0 ≤ drain ≤ 1h")
	case cfg.LobbyWait <= 0 || cfg.LobbyWait > time.Hour:
		return bad("--lobby-wait %v: want 0..1h", cfg.LobbyWait)
	case cfg.RematchSpread < 0 || cfg.RematchSpread > time.Minute:
		return bad("--rematch-spread %v: want 0..1m", cfg.RematchSpread)
	case cfg.Draw != 1 && cfg.Draw != 3:
		return bad("--draw %d: want 1 or 3", cfg.Draw)
	case cfg.Passes != 0 && cfg.Passes != 1 && cfg.Passes != 3:
		return bad("--passes %d: want 0, 1 or 3", cfg.Passes)
	case cfg.TimeLimitS < 2 || cfg.TimeLimitS > 10800:
		return bad("--time-limit %d: want 2..10800 seconds", cfg.TimeLimitS)
	case cfg.CountdownS < 0 || cfg.CountdownS > 30:
		return bad("--countdown %d: want 0..30", cfg.CountdownS)
	case cfg.Rounds < 1 || cfg.Rounds > 20:
		return bad("--rounds %d: want 1..20", cfg.Rounds)
	case cfg.MaxMoves < 0:
		return bad("--max-moves %d: want 0 or more", cfg.MaxMoves)
	case cfg.Server != "" && (cfg.Embedded || cfg.Redis != ""):
		return bad("--server runs against an external server: --embedded and --redis do not apply")
	case cfg.Baseline && (cfg.Redis != "" || cfg.WithBaseline):
		return bad("--baseline plays against the echo server: no --redis or --with-baseline")
	case cfg.EchoListen != "" && (cfg.Server != "" || cfg.Baseline || cfg.Redis != "" || cfg.WithBaseline || cfg.Sweep):
		return bad("--echo-listen only serves the echo: no --server, --baseline, --redis, --with-baseline or --sweep")
	case cfg.Sweep && (cfg.SweepSteps < 1 || cfg.SweepSteps > 50 || cfg.SweepStep <= 0 || cfg.SweepFactor <= 1 || cfg.SweepP99 <= 0):
		return bad("--sweep-steps 1..50, --sweep-step > 0, --sweep-factor > 1, --sweep-p99 > 0")
	case cfg.NoCoord && cfg.Redis == "":
		return bad("--no-coord applies to the Redis store: give --redis")
	case cfg.EchoRedis != "" && cfg.EchoListen == "":
		return bad("--echo-redis logs the moves of the echo that --echo-listen serves: give --echo-listen")
	case cfg.EchoStore != "" && cfg.EchoListen == "":
		return bad("--echo-store logs the moves of the echo that --echo-listen serves: give --echo-listen")
	case cfg.EchoStore != "" && cfg.EchoRedis != "":
		return bad("--echo-store and --echo-redis are two ways to log the echo's moves: give one")
	case cfg.RedisInfo != "" && cfg.Server == "":
		return bad("--redis-info reads an external server's Redis: give --server (with --redis the run reads its own)")
	case cfg.Idle && cfg.Sweep:
		return bad("--idle bots play no moves: no --sweep")
	case cfg.Sweep && cfg.Think <= 0:
		return bad("--sweep needs --think > 0: the first step's rate is players/think")
	}
	if cfg.Server != "" {
		if err := checkLoopbackURL(cfg.Server, "ws"); err != nil {
			return bad("--server: %v", err)
		}
	}
	if cfg.RedisInfo != "" {
		if err := checkLoopbackURL(cfg.RedisInfo, "redis", "rediss"); err != nil {
			return bad("--redis-info: %v", err)
		}
	}
	if cfg.EchoRedis != "" {
		if err := checkLoopbackURL(cfg.EchoRedis, "redis", "rediss"); err != nil {
			return bad("--echo-redis: %v", err)
		}
	}
	if cfg.EchoStore != "" {
		if err := checkLoopbackURL(cfg.EchoStore, "redis", "rediss"); err != nil {
			return bad("--echo-store: %v", err)
		}
	}
	if cfg.EchoListen != "" {
		host, _, err := net.SplitHostPort(cfg.EchoListen)
		if err == nil {
			err = checkLoopbackHost(host)
		}
		if err != nil {
			return bad("--echo-listen: %v", err)
		}
	}
	if cfg.Sweep {
		cfg.OpenLoop = true
		if !timeLimitSet {
			whole := cfg.Ramp + maxWarmup + time.Duration(cfg.SweepSteps)*cfg.SweepStep + 30*time.Second
			cfg.TimeLimitS = min(int(whole.Seconds())+1, 10800)
		}
	}
	if cfg.OpenLoop {
		cfg.Jitter = 0
	}
	return cfg, ac, nil
}

// runMain runs the command and returns its exit status.
func runMain(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	cfg, ac, err := parseFlags(args, stderr)
	if errors.Is(err, flag.ErrHelp) {
		usage(stdout)
		return 0
	}
	if err != nil {
		fmt.Fprintln(stderr, "loadtest:", err)
		fmt.Fprintln(stderr, "Run 'go run ./loadtest --help' for the flags.")
		return 2
	}
	if ac.Name != "" {
		return runAttack(ctx, ac, stdout, stderr)
	}
	if cfg.Matchmaking {
		return runMatchmaking(ctx, cfg, stdout, stderr)
	}
	if cfg.EchoListen != "" {
		if err := serveEcho(ctx, cfg, stderr); err != nil {
			fmt.Fprintln(stderr, "loadtest:", err)
			return 2
		}
		return 0
	}
	rep, err := execute(ctx, cfg, stderr)
	if err != nil {
		fmt.Fprintln(stderr, "loadtest:", err)
		return 2
	}
	if cfg.WithBaseline && ctx.Err() == nil {
		bcfg := cfg
		bcfg.Baseline, bcfg.Server, bcfg.Redis, bcfg.CPUProfile, bcfg.MemProfile, bcfg.Trace = true, "", "", "", "", ""
		base, err := execute(ctx, bcfg, stderr)
		if err != nil {
			fmt.Fprintln(stderr, "loadtest: baseline:", err)
			return 2
		}
		rep.Baseline = base
		rep.Ratio = ratioOf(rep, base)
	}
	if cfg.JSON {
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		_ = enc.Encode(rep)
	} else {
		rep.writeText(stdout)
	}
	if !rep.OK {
		return 1
	}
	return 0
}

// ratioOf compares a run with its baseline.
func ratioOf(rep, base *Report) *ratioPoint {
	r := &ratioPoint{}
	num, den := rep.MovesPerSec, base.MovesPerSec
	if rep.Sweep != nil && base.Sweep != nil {
		num, den = rep.Sweep.MaxHeldRate, base.Sweep.MaxHeldRate
	}
	if den > 0 {
		r.Throughput = num / den
	}
	if base.Latency.P99Ms > 0 {
		r.P99 = rep.Latency.P99Ms / base.Latency.P99Ms
	}
	return r
}
