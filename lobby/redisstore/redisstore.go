// Package redisstore is the Redis implementation of the match package's
// Store: move logs and standings that outlive the process and are shared by
// every server node. It needs Redis 6.2 or newer (7 is what CI runs), a
// single server or a Redis Cluster alike.
//
// # Keys
//
// Every key of a round carries the round's hash tag, so one script can touch
// all of them on Redis Cluster:
//
//	<prefix>{round:<id>}:log:<player>  list: one entry a move, "seq|at_ms|move"
//	<prefix>{round:<id>}:epochs        hash: player -> writer epoch (decimal),
//	                                   and "" -> "1" once the round is closed (CloseRound)
//	<prefix>{round:<id>}:standings     hash: player -> standing (JSON)
//	<prefix>{round:<id>}:rank          sorted set, all scores 0: rank members
//	<prefix>{round:<id>}:rankm         hash: player -> the player's member in rank
//
// The Coord (coord.go) adds, under the same prefix:
//
//	<prefix>{m:<id>}:rec               hash: v -> version, rec -> the match's record
//	<prefix>{open}:list                sorted set: open match ids, scored by their places, which grow in the order they opened
//	<prefix>{open}:seen                hash: match id -> the last version applied to the list
//	<prefix>{open}:gone                sorted set: matches closed lately -> when (ms)
//	<prefix>{open}:seq                 string: the last place given on the open list (no TTL)
//	<prefix>code:<code>                string: the invite code's match id
//	<prefix>player:<id>:match          string: the player's current match id
//	<prefix>{round:<id>}:record        string: the round's record
//	<prefix>lease:<name>               string: the lease's holder, a node
//	<prefix>node:<name>                string: "1" while the node is live
//	<prefix>data-epoch                 string: the data epoch (no TTL)
//	<prefix>events                     pub/sub channel between nodes
//
// The Challenges (challenges.go) adds, under the same prefix, a
// challenge's keys, which all expire when its record does (the ttl given
// to Create), and each player's records and the index of the challenges
// the player made (a challenge's keys and its creator's are in different
// slots: Create writes them one after the other, never in one script):
//
//	<prefix>{async:<id>}:rec           string: the round's record (JSON)
//	<prefix>{async:<id>}:attempts      hash: player -> attempt (JSON; its Finished is whether the player is in members)
//	<prefix>{async:<id>}:started       list: players in the order their attempts started (Attempts' pages)
//	<prefix>{async:<id>}:board         sorted set, all scores 0: entries' keys (match.BoardEntry.Key, which ends in ":<player>"), best first
//	<prefix>{async:<id>}:entries       hash: player -> board entry (JSON)
//	<prefix>{async:<id>}:members       hash: player -> the player's member in board
//	<prefix>{player:<id>}:records      hash: variant -> the player's record (JSON), for 400 days past the last game counted
//	<prefix>{player:<id>}:games        sorted set: games counted in the last 30 days -> when (ms), as long
//	<prefix>{player:<id>}:recent       sorted set: the player's last 20 results (JSON) -> when each finished (ms), as long
//	<prefix>{player:<id>}:made         sorted set: the challenges the player made -> when each opens (ms)
//	<prefix>{player:<id>}:madeexp      sorted set: the same -> when each expires (ms, a minute past its record);
//	                                   both forget expired ones at the player's next challenge, and expire with the last
//
// The Allowances (allowances.go) add the counts of the limits per player
// and address, each key its own slot:
//
//	<prefix>{allow:<key>}:take         string: when key's token bucket is full again (µs), expiring then
//	<prefix>{allow:<key>}:holds        sorted set: member -> until (µs), expiring with the last hold
//
// A player's rank member is match.RankKey in race mode with the default
// rules at time 0, the same for every member, so the set's lexical order is
// always match.Rank(match.ModeRace, engine.DefaultRules(), standings, 0):
// winners by finish time, then the others by foundation cards, then by move
// points. That is the round's final race order except where the time
// penalty, which the store cannot know, brings two players with the same
// foundation count to a score of 0 each (Rank then orders them by ReachedMs).
// The leaderboard itself comes from match.Rank over Standings, which knows
// the round's mode, rules and clock; the set is for operators and for
// readers of a race round's order without decoding standings (see Ranked).
//
// Every key a write touches gets the store's TTL, so a round's keys live
// TTL past the last write that touched them, less at most a minute: Append
// renews its keys' expiry only once a minute (or a sixtieth of the TTL, if
// shorter) a player, by the store's clock, instead of five PEXPIREs a move
// (see append.lua). The prefix must not contain a brace: the round's tag
// has to be the key's first. A player id must not be empty: the empty
// field of the epochs hash is the round's closed marker.
//
// # Durability
//
// With Config.Durability DurabilityLocal (the default) an Append is
// acknowledged once its master has run it: a master that dies before a
// replica got the entry loses it, though its player was told it was kept.
// The master's append-only file covers a restart of the same master (a
// process that died loses nothing it answered, since Redis writes the file
// before its replies; fsync every second bounds what a machine's crash
// loses), not a failover, which promotes a replica that may be behind: with
// the replica in step few moves or none are lost, with one that lags every
// move acknowledged during its lag (TestDurabilityKill counts them).
//
// With DurabilityReplica the batcher sends, after a batch's appends and on
// the same connection, one WAIT 1 for the whole batch (on a Redis Cluster,
// one to each master that got some of its appends). WAIT covers every write
// the master had made when its connection last wrote, and every append
// writes, even one that finds its entry already in the log (a retry,
// answered "DUP": the script pushes and pops), so the WAIT covers the
// earlier write of a retried entry too. Only when WAIT says a replica has
// them are the batch's appends acknowledged; otherwise they fail with
// ErrNotReplicated, which matches match.ErrUnavailable: the move is rolled
// back and its client tries again, and the retry finds the entry in the
// log. The wait lasts ReplicaTimeout at most (see there why). A store with
// DurabilityReplica whose masters have no replica acknowledges no append.
// Other writes (standings set apart from a move, seats, closes, the Coord's
// records) are not waited for; and a retry in a round closed since, which
// writes nothing, is covered only as far as its connection's last write.
//
// # Retries
//
// go-redis resends a command whose reply it lost (a dropped connection, a
// timeout). Every write here is idempotent, so a resent one is harmless:
// Append's script answers an entry that is already in the log as a retry,
// and SetStanding writes the same values again.
package redisstore

import (
	"context"
	_ "embed"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/redis/go-redis/v9"

	"klondike/engine"
	"klondike/match"
)

// DefaultPrefix and DefaultTTL are the Config defaults.
const (
	DefaultPrefix = "klondike:"
	DefaultTTL    = 7 * 24 * time.Hour
)

// Config tunes a Store; the zero value takes the defaults.
type Config struct {
	// Prefix starts every key (default "klondike:"). Give each deployment,
	// or each test, its own. It must not contain '{' or '}'.
	Prefix string
	// TTL is every key's expiry, renewed on each write that touches the key
	// (by Append, once it has fallen a minute behind; default 7 days).
	TTL time.Duration

	// MaxBatch is the most appends one pipeline carries (group commit, see
	// batch.go); 0 means DefaultMaxBatch.
	MaxBatch int
	// Pipelines is how many pipelines of appends may be in flight at once;
	// 0 means DefaultPipelines.
	Pipelines int
	// MaxQueue bounds the appends waiting for a pipeline; past it Append
	// fails as unavailable at once. 0 means DefaultMaxQueue.
	MaxQueue int
	// Linger is the shortest time between two batches (of any pipeline)
	// while appends keep coming: a busy store sends fewer, larger batches,
	// each append waiting at most Linger more (see batch.go). 0 means
	// DefaultLinger; negative, none.
	Linger time.Duration

	// Durability says when an Append is acknowledged: DurabilityLocal (the
	// default, "" too) once the master has run it, DurabilityReplica once
	// a replica has it as well (see Durability in the package doc). New
	// panics on any other value; Open returns ErrBadDurability.
	Durability string
}

// The levels of Config.Durability.
const (
	// DurabilityLocal acknowledges an append once the master has it.
	DurabilityLocal = "local"
	// DurabilityReplica acknowledges an append once a replica of its
	// master has it too.
	DurabilityReplica = "replica"
)

// ErrBadDurability is the error of a Config.Durability that is neither
// DurabilityLocal nor DurabilityReplica.
var ErrBadDurability = errors.New(`redisstore: durability must be "local" or "replica"`)

// ErrNotReplicated is an Append's error, matching match.ErrUnavailable,
// when the store's durability is DurabilityReplica and no replica
// acknowledged the append's batch within ReplicaTimeout. The entry may be
// in the master's log: a retry of the same entry is answered as one, and
// acknowledged once a replica has it.
var ErrNotReplicated = fmt.Errorf("%w: redisstore: no replica acknowledged the write", match.ErrUnavailable)

// checkDurability returns ErrBadDurability, with the value, for a level
// that is not one of the two.
func checkDurability(d string) error {
	switch d {
	case "", DurabilityLocal, DurabilityReplica:
		return nil
	}
	return fmt.Errorf("%w, not %q", ErrBadDurability, d)
}

// Store keeps move logs and standings in Redis. It is safe for concurrent
// use; its zero value is not usable: call New.
type Store struct {
	c          redis.UniversalClient
	prefix     string
	ttlMs      string
	ttlArg     any           // ttlMs, boxed once
	renewEvery time.Duration // how often Append gives a player's keys the TTL again
	batch      *batcher      // the pipelines every command goes in (batch.go)
	kc         keyCache      // Append's keys (keycache.go)
}

var _ match.Store = (*Store)(nil)

var (
	//go:embed append.lua
	appendSrc    string
	appendScript = redis.NewScript(appendSrc)

	//go:embed setstanding.lua
	setStandingSrc    string
	setStandingScript = redis.NewScript(setStandingSrc)

	rankRules = engine.DefaultRules()
)

// New returns a store over the client: a *redis.Client, a
// *redis.ClusterClient or a failover client. The store does not close it.
// It panics when cfg.Durability is not a level (see ErrBadDurability).
func New(c redis.UniversalClient, cfg Config) *Store {
	if cfg.Prefix == "" {
		cfg.Prefix = DefaultPrefix
	}
	if cfg.TTL <= 0 {
		cfg.TTL = DefaultTTL
	}
	ms := max(cfg.TTL.Milliseconds(), 1)
	s := &Store{c: c, prefix: cfg.Prefix, ttlMs: strconv.FormatInt(ms, 10)}
	s.ttlArg = s.ttlMs
	s.renewEvery = min(time.Duration(ms)*time.Millisecond/60, time.Minute)
	s.batch = newBatcher(c, cfg)
	return s
}

// roundKey returns the key of one of the round's structures.
func (s *Store) roundKey(roundID, name string) string {
	return s.prefix + "{round:" + roundID + "}:" + name
}

func (s *Store) logKey(roundID, playerID string) string {
	return s.roundKey(roundID, "log:"+playerID)
}

// Append implements match.Store with one script run: see append.lua. The
// run goes to Redis in a pipeline with other players' appends (group
// commit, see batch.go) and Append returns when its own reply has come.
//
// The command is built without the allocations of a plain script call (see
// appendargs.go): cached keys, arguments written into a pooled buffer. Its
// bytes on the wire are those of appendScript.EvalSha(keys, args...) with
// the five keys of the round and the player and the arguments append.lua
// reads.
func (s *Store) Append(ctx context.Context, roundID string, epoch uint64, e match.LogEntry, st match.Standing) error {
	if st.PlayerID == "" {
		return errNoPlayer
	}
	call := getAppendCall()
	if err := call.a.fill(s, roundID, epoch, e, st); err != nil {
		putAppendCall(call)
		return err
	}
	return s.batch.doAppend(ctx, s, call)
}

// SetStanding implements match.Store.
func (s *Store) SetStanding(ctx context.Context, roundID string, st match.Standing) error {
	if st.PlayerID == "" {
		return errNoPlayer
	}
	_, pk := s.keys(roundID, st.PlayerID)
	pk.forgetRank() // Append's next run reads the member this one writes
	stJSON, err := encodeStanding(st)
	if err != nil {
		return err
	}
	keys := []string{
		s.roundKey(roundID, "standings"),
		s.roundKey(roundID, "rank"),
		s.roundKey(roundID, "rankm"),
	}
	err = s.script(ctx, setStandingScript, keys, st.PlayerID, stJSON, rankMember(st), s.ttlMs).Err()
	return mapErr(err)
}

// run sends cmd in the next shared pipeline and returns its error
// unmapped; the reply is in cmd. cmd must be safe to resend (see
// batcher.run).
func (s *Store) run(ctx context.Context, cmd redis.Cmder) error {
	return s.batch.run(ctx, cmd)
}

// script runs sc in the next shared pipeline, as sc.Run would; sc must be
// safe to resend.
func (s *Store) script(ctx context.Context, sc *redis.Script, keys []string, args ...any) *redis.Cmd {
	return s.batch.script(ctx, sc, keys, args...)
}

// Log implements match.Store.
func (s *Store) Log(ctx context.Context, roundID, playerID string) ([]match.LogEntry, error) {
	lr := redis.NewStringSliceCmd(ctx, "lrange", s.logKey(roundID, playerID), 0, -1)
	if err := s.run(ctx, lr); err != nil {
		return nil, mapErr(err)
	}
	raw := lr.Val()
	if len(raw) == 0 {
		// An empty log of a known round, or no round at all: every write
		// but CloseRound's leaves the round's standings or a player's epoch
		// behind (CloseRound's, only the epochs hash's field "").
		ex := redis.NewIntCmd(ctx, "exists", s.roundKey(roundID, "standings"))
		if err := s.run(ctx, ex); err != nil {
			return nil, mapErr(err)
		}
		if ex.Val() > 0 {
			return nil, nil
		}
		fields := redis.NewStringSliceCmd(ctx, "hkeys", s.roundKey(roundID, "epochs"))
		if err := s.run(ctx, fields); err != nil {
			return nil, mapErr(err)
		}
		if !slices.ContainsFunc(fields.Val(), func(f string) bool { return f != "" }) {
			return nil, match.ErrNotFound
		}
		return nil, nil
	}
	out := make([]match.LogEntry, len(raw))
	for i, r := range raw {
		var err error
		if out[i], err = decodeEntry(r); err != nil {
			return nil, fmt.Errorf("redisstore: round %s, player %s, entry %d: %w", roundID, playerID, i+1, err)
		}
	}
	return out, nil
}

// Standings implements match.Store.
func (s *Store) Standings(ctx context.Context, roundID string) ([]match.Standing, error) {
	cmd := redis.NewStringSliceCmd(ctx, "hvals", s.roundKey(roundID, "standings"))
	if err := s.run(ctx, cmd); err != nil {
		return nil, mapErr(err)
	}
	raw := cmd.Val()
	if len(raw) == 0 {
		return nil, match.ErrNotFound
	}
	out := make([]match.Standing, len(raw))
	for i, r := range raw {
		var err error
		if out[i], err = decodeStanding(r); err != nil {
			return nil, fmt.Errorf("redisstore: round %s: %w", roundID, err)
		}
	}
	return out, nil
}

// Ranked returns the round's player ids in the order of its rank set, the
// race order at time 0 with the default rules (see the package doc);
// ErrNotFound if the round has none.
func (s *Store) Ranked(ctx context.Context, roundID string) ([]string, error) {
	members, err := s.c.ZRange(ctx, s.roundKey(roundID, "rank"), 0, -1).Result()
	if err != nil {
		return nil, mapErr(err)
	}
	if len(members) == 0 {
		return nil, match.ErrNotFound
	}
	out := make([]string, len(members))
	for i, m := range members {
		_, id, _ := strings.Cut(m, ":")
		out[i] = id
	}
	return out, nil
}

// Ping implements match.Store.
func (s *Store) Ping(ctx context.Context) error {
	return mapErr(s.c.Ping(ctx).Err())
}

// mapErr turns the scripts' error replies into the match package's errors;
// any other failure (no connection, a timeout, a server that cannot take
// writes) matches match.ErrUnavailable, and the cause stays in the chain.
func mapErr(err error) error {
	switch {
	case err == nil:
		return nil
	case errors.Is(err, match.ErrUnavailable):
		return err // mapped already (the batcher's own errors)
	case redis.HasErrorPrefix(err, "STALE"):
		return match.ErrStaleWriter
	case redis.HasErrorPrefix(err, "SEQCONFLICT"):
		return match.ErrSeqConflict
	case redis.HasErrorPrefix(err, "SEQGAP"):
		return match.ErrSeqGap
	case redis.HasErrorPrefix(err, "LOST"):
		return match.ErrDataLost
	case redis.HasErrorPrefix(err, "CLOSED"):
		return match.ErrRoundClosed
	}
	return fmt.Errorf("%w: redis: %w", match.ErrUnavailable, err)
}

// rankMember is the player's member in the round's rank set: all members
// are made at the same time, 0, so that they order as Rank does then.
func rankMember(st match.Standing) string {
	return match.RankKey(match.ModeRace, rankRules, st, 0)
}

// encodeEntry writes "seq|at_ms|move": the move last, so it may hold any
// byte. Equal entries encode equal, which the script's retry check needs.
func encodeEntry(e match.LogEntry) string {
	return string(appendEntry(make([]byte, 0, 24+len(e.Move)), e))
}

// appendEntry appends encodeEntry(e) to b.
func appendEntry(b []byte, e match.LogEntry) []byte {
	b = strconv.AppendInt(b, int64(e.Seq), 10)
	b = append(b, '|')
	b = strconv.AppendInt(b, e.AtMs, 10)
	b = append(b, '|')
	return append(b, e.Move...)
}

func decodeEntry(s string) (match.LogEntry, error) {
	seq, rest, ok1 := strings.Cut(s, "|")
	at, move, ok2 := strings.Cut(rest, "|")
	n, err1 := strconv.Atoi(seq)
	ms, err2 := strconv.ParseInt(at, 10, 64)
	if !ok1 || !ok2 || err1 != nil || err2 != nil {
		return match.LogEntry{}, fmt.Errorf("bad log entry %q", s)
	}
	return match.LogEntry{Seq: n, Move: move, AtMs: ms}, nil
}

// standingRecord is a Standing as stored: every field, the seat order too
// (which match.Standing leaves out of its JSON).
type standingRecord struct {
	PlayerID   string        `json:"player_id"`
	Name       string        `json:"name"`
	Join       int           `json:"join"`
	Points     int           `json:"points"`
	Foundation int           `json:"foundation"`
	Moves      int           `json:"moves"`
	Status     engine.Status `json:"status"`
	FinishedMs int64         `json:"finished_ms"`
	ReachedMs  int64         `json:"reached_ms"`
	Helped     bool          `json:"helped,omitempty"`
}

func encodeStanding(st match.Standing) (string, error) {
	b, err := json.Marshal(standingRecord(st))
	if err != nil {
		return "", fmt.Errorf("redisstore: standing of %s: %w", st.PlayerID, err)
	}
	return string(b), nil
}

func decodeStanding(s string) (match.Standing, error) {
	var r standingRecord
	if err := json.Unmarshal([]byte(s), &r); err != nil {
		return match.Standing{}, fmt.Errorf("bad standing %q: %w", s, err)
	}
	return match.Standing(r), nil
}
