package main

import "time"

// How bots find their matches and what they do after one.
const (
	joinQuick    = "quick"
	joinCode     = "code"
	afterRematch = "rematch"
	afterRequeue = "requeue"
	afterQuit    = "quit"
)

// config is a run's settings: the flags.
type config struct {
	Players, PerMatch int
	Join, After       string
	Think             time.Duration
	Jitter            float64
	OpenLoop          bool
	Ramp, Duration    time.Duration
	Drain             time.Duration
	LobbyWait         time.Duration
	RematchSpread     time.Duration
	Draw, Passes      int
	TimeLimitS        int
	CountdownS        int
	Rounds            int
	MaxMoves          int
	Deal              string
	Seed              uint64

	Server   string
	Embedded bool
	Redis    string
	// NoCoord keeps the matches' records, the lobby's indexes and the bus
	// in the server's process with --redis: only the store and the
	// sessions are in Redis, for comparison with klondiked's wiring.
	NoCoord bool
	// RedisInfo is an external server's Redis (--redis-info), whose INFO
	// the run reads before and after; with Redis the run reads its own.
	RedisInfo string
	MsgRate   float64
	ServerLog string

	Baseline     bool
	WithBaseline bool
	EchoListen   string
	// EchoRedis is the Redis the --echo-listen server logs each move to
	// before it answers (--echo-redis): the baseline of a durable move.
	EchoRedis string
	// EchoStore is the Redis whose store (redisstore) the --echo-listen
	// server appends each move to before it answers (--echo-store): the
	// floor of a checked durable move.
	EchoStore string

	// Idle bots only connect and say hello, then answer pings until the
	// end: the server's memory a connection.
	Idle bool

	Sweep       bool
	SweepSteps  int
	SweepStep   time.Duration
	SweepFactor float64
	SweepP99    time.Duration

	// Matchmaking runs the rated matchmaking measurement instead of the
	// load (--matchmaking; matchmaking.go), with MM's settings.
	Matchmaking bool
	MM          mmConfig

	Verify     bool
	JSON       bool
	CPUProfile string
	MemProfile string
	Trace      string
}
