package redisstore

import (
	"context"
	"encoding/json"
	"fmt"
	"strconv"
	"sync"
	"time"

	"github.com/redis/go-redis/v9"

	"klondike/engine"
	"klondike/match"
)

// Append's command, built without allocations once its call is warm (bar a
// status that is none of engine's, whose name fmt makes).
//
// A plain script call (appendScript.EvalSha(ctx, p, keys, args...)) boxes
// each key and each argument into an interface, most of them newly made
// strings, each an allocation, on every move (BenchmarkAppendCommand
// measures both ways). Here the command's whole argument list is kept in a
// pooled appendCall: the keys come boxed from the key cache (keycache.go),
// the numbers go in as pointers to the call's fields, and the log entry,
// the standing's JSON and the rank member are appended into the call's
// buffer and go in as pointers to its slices (a *bulk, written by go-redis
// as an encoding.BinaryMarshaler). A pointer in an interface costs no
// allocation.
//
// The bytes written are the same: go-redis writes a *uint64 or an *int as
// it writes the number, and a BinaryMarshaler's bytes as a bulk string, as
// it writes a string; TestAppendWireBytes compares the two on the wire.
//
// The standing's JSON is still encoding/json's own (an Encoder writing into
// the buffer, its newline cut), not a hand-written encoder.
//
// Ownership: the caller fills the call and queues it; after that it may
// put it back in the pool only when it was answered (the flusher is done
// with it) or never queued. A call taken back before it went out belongs to
// the flusher, which puts it back when it drops it; a call whose caller
// gave up after it went out is left to the garbage collector, since go-redis
// may still be writing it.

// bulk is a command argument written as its bytes.
type bulk []byte

// MarshalBinary implements encoding.BinaryMarshaler, which go-redis writes
// as a bulk string.
func (b *bulk) MarshalBinary() ([]byte, error) { return *b, nil }

// appendArgs is the argument list of one Append and what it points into.
type appendArgs struct {
	// argv is the whole command: "evalsha", the script's SHA-1, 5, the five
	// keys, then player, epoch, seq, entry, standing, rank member, ttl,
	// the rank member written last and the renewal (see append.lua).
	argv [17]any

	epoch uint64
	seq   int
	buf   []byte // entry, standing, rank member and the last one, one after the other

	entry, standing, rank, known bulk // slices of buf

	pk    *playerKeys // the player's, for noteAppend
	renew any         // append.lua's renewal argument
	now   time.Time   // when fill ran

	rec standingWire
	enc *json.Encoder // writes rec into buf
}

// standingWire is standingRecord with the status as its name: encoding/json
// writes a string field as it writes the text of engine.Status's
// MarshalText, without the allocation MarshalText makes. Its fields, their
// order and tags are standingRecord's (TestAppendArgs compares the bytes
// with encodeStanding's).
type standingWire struct {
	PlayerID   string `json:"player_id"`
	Name       string `json:"name"`
	Join       int    `json:"join"`
	Points     int    `json:"points"`
	Foundation int    `json:"foundation"`
	Moves      int    `json:"moves"`
	Status     string `json:"status"`
	FinishedMs int64  `json:"finished_ms"`
	ReachedMs  int64  `json:"reached_ms"`
	Helped     bool   `json:"helped,omitempty"`
}

// The fixed arguments, boxed once.
var (
	appendSHAArg any = appendScript.Hash()
	appendSrcArg any = appendSrc
)

// maxPooledBuf is the largest buffer a pooled call keeps.
const maxPooledBuf = 4 << 10

var appendPool = sync.Pool{New: func() any {
	a := &appendArgs{buf: make([]byte, 0, 256)}
	a.enc = json.NewEncoder((*appendBuf)(a))
	return &appendCall{a: a, done: make(chan error, 1)}
}}

// appendBuf is the io.Writer of an appendArgs's encoder: it appends to buf.
type appendBuf appendArgs

func (w *appendBuf) Write(p []byte) (int, error) {
	w.buf = append(w.buf, p...)
	return len(p), nil
}

func getAppendCall() *appendCall {
	return appendPool.Get().(*appendCall)
}

// putAppendCall returns the call to the pool; see Ownership above for when
// that is allowed. Its done channel is empty: it was either answered and
// read, or never answered.
func putAppendCall(call *appendCall) {
	a := call.a
	call.ctx = nil
	call.res = nil
	call.state.Store(callQueued)
	clear(a.argv[:])
	a.rec = standingWire{}
	a.entry, a.standing, a.rank, a.known = nil, nil, nil, nil
	a.pk, a.renew = nil, nil
	if cap(a.buf) > maxPooledBuf {
		a.buf = make([]byte, 0, 256)
	}
	appendPool.Put(call)
}

// fill makes the call's command for s.Append(roundID, epoch, e, st).
func (a *appendArgs) fill(s *Store, roundID string, epoch uint64, e match.LogEntry, st match.Standing) error {
	b := appendEntry(a.buf[:0], e)
	ne := len(b)
	a.buf = b
	// The standing as encodeStanding writes it: encoding/json's bytes
	// (json.Marshal's, and an Encoder writes the same ones with a newline
	// after them), with no allocation for the result.
	a.rec = standingWire{
		PlayerID: st.PlayerID, Name: st.Name, Join: st.Join, Points: st.Points,
		Foundation: st.Foundation, Moves: st.Moves, Status: st.Status.String(),
		FinishedMs: st.FinishedMs, ReachedMs: st.ReachedMs, Helped: st.Helped,
	}
	if err := a.enc.Encode(&a.rec); err != nil {
		return fmt.Errorf("redisstore: standing of %s: %w", st.PlayerID, err)
	}
	a.buf = a.buf[:len(a.buf)-1] // the newline
	ns := len(a.buf)
	a.buf = appendRankMember(a.buf, st)
	nr := len(a.buf)
	rk, pk := s.keys(roundID, st.PlayerID)
	a.now = time.Now()
	a.buf, a.renew = pk.appendState(a.buf, epoch, a.now)
	a.entry, a.standing, a.rank, a.known = bulk(a.buf[:ne:ne]), bulk(a.buf[ne:ns:ns]), bulk(a.buf[ns:nr:nr]), bulk(a.buf[nr:])
	a.epoch, a.seq, a.pk = epoch, e.Seq, pk

	a.argv = [17]any{
		"evalsha", appendSHAArg, 5,
		pk.log, rk.epochs, rk.standings, rk.rank, rk.rankm,
		pk.player, &a.epoch, &a.seq, &a.entry, &a.standing, &a.rank, s.ttlArg, &a.known, a.renew,
	}
	return nil
}

// note records the append's outcome in the player's key cache entry (see
// playerKeys.noteAppend).
func (a *appendArgs) note(s *Store, err error) {
	a.pk.noteAppend(a.epoch, a.rank, a.renew == renewYes, a.now, s.renewEvery, err)
}

// appendKeyPos is the position of the command's first key (for Redis
// Cluster's routing), as go-redis sets it for EVALSHA with keys.
const appendKeyPos = 3

// rankScoreOffset is match's, which RankKey adds to the round score.
const rankScoreOffset = 1_000_000_000

// appendRankMember appends rankMember(st), that is match.RankKey(ModeRace,
// DefaultRules, st, 0), to b without making a string:
// TestAppendRankMember holds the two equal.
func appendRankMember(b []byte, st match.Standing) []byte {
	if st.Status == engine.Won {
		b = append(b, '0')
		b = appendPadded(b, st.FinishedMs, 12)
	} else {
		b = append(b, '1')
		b = appendPadded(b, int64(engine.NumCards-st.Foundation), 2)
		b = appendPadded(b, int64(rankScoreOffset-match.RoundScore(rankRules, st, 0)), 12)
	}
	b = appendPadded(b, st.ReachedMs, 12)
	b = appendPadded(b, int64(st.Join), 4)
	b = append(b, ':')
	return append(b, st.PlayerID...)
}

// appendPadded appends n in decimal, with zeros before it up to width
// characters (before a minus sign too, as RankKey does).
func appendPadded(b []byte, n int64, width int) []byte {
	var d [24]byte
	s := strconv.AppendInt(d[:0], n, 10)
	for i := len(s); i < width; i++ {
		b = append(b, '0')
	}
	return append(b, s...)
}

// command is the call's command, as cmdable.eval makes it for EVALSHA (or
// EVAL) with keys.
func (a *appendArgs) command(ctx context.Context) *redis.Cmd {
	cmd := redis.NewCmd(ctx, a.argv[:]...)
	cmd.SetFirstKeyPos(appendKeyPos)
	return cmd
}
