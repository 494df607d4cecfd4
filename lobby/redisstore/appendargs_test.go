package redisstore

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"net"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
	"unsafe"

	"github.com/redis/go-redis/v9"

	"klondike/engine"
	"klondike/lobby/redisstore/redistest"
	"klondike/match"
)

// randStanding is a standing with fields over their whole range, edge
// values included, and names that encoding/json escapes.
func randStanding(r *rand.Rand) match.Standing {
	names := []string{"", "p", "Zoë", "<b>&amp;</b>", "quote\"back\\slash", "line\u2028sep\u2029", "ctl\x00\x1f\x7f", "bad\xffutf8\xc3", "emoji 🂡"}
	ints := []int64{0, 1, -1, 9, 10, 99, 255, 256, 9999, 10000, 123456789012, 999999999999, 1000000000000, -123456789012, math.MaxInt32, math.MinInt32, math.MaxInt64, math.MinInt64 + 1}
	pick := func() int64 {
		if r.IntN(2) == 0 {
			return ints[r.IntN(len(ints))]
		}
		return r.Int64N(2_000_000) - 1_000_000
	}
	small := func() int {
		if r.IntN(3) == 0 {
			return int(int32(pick()))
		}
		return r.IntN(60) - 4
	}
	return match.Standing{
		PlayerID:   names[r.IntN(len(names))] + fmt.Sprint(r.IntN(100)),
		Name:       names[r.IntN(len(names))],
		Join:       small(),
		Points:     small(),
		Foundation: r.IntN(56) - 2,
		Moves:      small(),
		Status:     engine.Status(r.IntN(6)),
		FinishedMs: pick(),
		ReachedMs:  pick(),
		Helped:     r.IntN(2) == 0,
	}
}

// TestAppendRankMember holds appendRankMember to match.RankKey.
func TestAppendRankMember(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	var b []byte
	for i := range 20000 {
		st := randStanding(r)
		b = appendRankMember(b[:0], st)
		if want := rankMember(st); string(b) != want {
			t.Fatalf("%d: appendRankMember(%+v) = %q, RankKey %q", i, st, b, want)
		}
	}
}

// TestAppendArgs holds the pooled call's arguments to what a plain script
// call gets (encodeEntry, encodeStanding, which is json.Marshal, and
// rankMember), with one appendArgs reused as the pool reuses it.
func TestAppendArgs(t *testing.T) {
	s := New(nil, Config{Prefix: "pre:"})
	r := rand.New(rand.NewPCG(3, 4))
	call := getAppendCall()
	a := call.a
	for i := range 5000 {
		st := randStanding(r)
		e := match.LogEntry{Seq: int(int32(r.Int64())), Move: []string{"", "T7-F", "W-T3", "a|b|c", "\xff"}[r.IntN(5)], AtMs: r.Int64() - math.MaxInt64/2}
		epoch := r.Uint64() >> r.IntN(64)
		round := fmt.Sprint("r", r.IntN(5))
		if err := a.fill(s, round, epoch, e, st); err != nil {
			t.Fatal(err)
		}
		stJSON, err := encodeStanding(st)
		if err != nil {
			t.Fatal(err)
		}
		// Nothing was noted: the rank member written last is unknown, and
		// a player the cache keeps is due for the TTL.
		_, pk := s.keys(round, st.PlayerID)
		renew := ""
		if pk.cached {
			renew = "1"
		}
		want := []any{"evalsha", appendScript.Hash(), 5,
			s.logKey(round, st.PlayerID), s.roundKey(round, "epochs"), s.roundKey(round, "standings"),
			s.roundKey(round, "rank"), s.roundKey(round, "rankm"),
			st.PlayerID, fmt.Sprint(epoch), fmt.Sprint(e.Seq), encodeEntry(e), stJSON, rankMember(st), s.ttlMs, "", renew}
		for j, v := range a.argv {
			var got any
			switch v := v.(type) {
			case *uint64:
				got = fmt.Sprint(*v)
			case *int:
				got = fmt.Sprint(*v)
			case *bulk:
				b, _ := v.MarshalBinary()
				got = string(b)
			default:
				got = v
			}
			if got != want[j] {
				t.Fatalf("%d: argument %d = %q, want %q (standing %+v)", i, j, got, want[j], st)
			}
		}
		if i%7 == 0 {
			putAppendCall(call)
			call = getAppendCall()
			a = call.a
		}
	}
}

// TestAppendState: after an append that succeeded, the next one at the same
// epoch names the rank member written and is not due for the TTL until
// renewEvery has passed; an append that failed, another epoch, or a
// SetStanding (which writes a member of its own) sends the script back to
// the rank members hash; a player the cache does not keep leaves both to
// the script.
func TestAppendState(t *testing.T) {
	s := New(nil, Config{})
	st := match.Standing{PlayerID: "p1", Name: "Ann", Points: 15, Foundation: 3, Moves: 40, FinishedMs: -1, ReachedMs: 61234}
	member := rankMember(st)
	call := getAppendCall()
	defer putAppendCall(call)
	a := call.a
	fill := func(epoch uint64) (known string, renew any) {
		t.Helper()
		if err := a.fill(s, "r", epoch, match.LogEntry{Seq: 1, Move: "T7-F"}, st); err != nil {
			t.Fatal(err)
		}
		return string(a.known), a.renew
	}
	if k, r := fill(3); k != "" || r != renewYes {
		t.Fatalf("first append: known %q, renew %v; want none and due", k, r)
	}
	a.note(s, nil)
	if k, r := fill(3); k != member || r != renewNo {
		t.Fatalf("after an append: known %q, renew %v; want %q and not due", k, r, member)
	}
	a.note(s, nil)
	if k, _ := fill(4); k != "" {
		t.Fatalf("another epoch: known %q, want none", k)
	}
	a.note(s, match.ErrStaleWriter)
	if k, r := fill(4); k != "" || r != renewNo {
		t.Fatalf("after a failed append: known %q, renew %v; want none and not due", k, r)
	}
	a.note(s, nil)
	_, pk := s.keys("r", "p1")
	pk.mu.Lock()
	pk.renewAt = time.Now().Add(-time.Millisecond)
	pk.mu.Unlock()
	if k, r := fill(4); k != member || r != renewYes {
		t.Fatalf("a minute on: known %q, renew %v; want %q and due", k, r, member)
	}
	pk.forgetRank() // as SetStanding does
	if k, _ := fill(4); k != "" {
		t.Fatalf("after SetStanding: known %q, want none", k)
	}
	if want := time.Minute; s.renewEvery != want {
		t.Fatalf("renewEvery %v with the default TTL, want %v", s.renewEvery, want)
	}
	if got := New(nil, Config{TTL: 30 * time.Second}).renewEvery; got != 500*time.Millisecond {
		t.Fatalf("renewEvery %v with a TTL of 30s, want 500ms", got)
	}

	// A round past keyCachePlayers: no memory.
	for i := range keyCachePlayers {
		s.keys("big", fmt.Sprint("q", i))
	}
	if err := a.fill(s, "big", 3, match.LogEntry{Seq: 1, Move: "T7-F"}, st); err != nil {
		t.Fatal(err)
	}
	a.note(s, nil)
	if err := a.fill(s, "big", 3, match.LogEntry{Seq: 2, Move: "T7-F"}, st); err != nil {
		t.Fatal(err)
	}
	if len(a.known) != 0 || a.renew != renewByScript {
		t.Fatalf("an uncached player: known %q, renew %v; want none and the script's", a.known, a.renew)
	}
}

// TestAppendFillAllocs: a warm call makes its command without allocations.
func TestAppendFillAllocs(t *testing.T) {
	s := New(nil, Config{})
	call := getAppendCall()
	st := match.Standing{PlayerID: "p1", Name: "Ann", Points: 15, Foundation: 3, Moves: 40, FinishedMs: -1, ReachedMs: 61234}
	e := match.LogEntry{Seq: 300, Move: "T7-F", AtMs: 61234}
	n := testing.AllocsPerRun(200, func() {
		if err := call.a.fill(s, "round-1", 3, e, st); err != nil {
			t.Fatal(err)
		}
	})
	if n > 0 && !raceEnabled { // the race detector's own allocations count too
		t.Errorf("fill: %v allocations, want none", n)
	}
}

// TestKeyCache: the cached keys are roundKey's and logKey's, a round in use
// stays, and the cache never holds more than two generations of rounds or
// more than keyCachePlayers players a round.
func TestKeyCache(t *testing.T) {
	s := New(nil, Config{Prefix: "pre:"})
	rk, pk := s.keys("live", "p")
	for i := range 5 * keyCacheRounds {
		round := fmt.Sprint("r", i)
		k, p := s.keys(round, "pl")
		if k.epochs != s.roundKey(round, "epochs") || k.standings != s.roundKey(round, "standings") ||
			k.rank != s.roundKey(round, "rank") || k.rankm != s.roundKey(round, "rankm") ||
			p.log != s.logKey(round, "pl") || p.player != "pl" || !p.cached {
			t.Fatalf("keys of %s: %+v %+v", round, k, p)
		}
		if n := len(s.kc.cur) + len(s.kc.old); n > 2*keyCacheRounds {
			t.Fatalf("%d rounds cached", n)
		}
		if i%(keyCacheRounds/2) == 0 {
			if k, p := s.keys("live", "p"); k != rk || p != pk {
				t.Fatal("a round in use left the cache")
			}
		}
	}
	s.kc.forget("live") // as CloseRound does
	if s.kc.cur["live"] != nil || s.kc.old["live"] != nil {
		t.Fatal("a closed round stayed in the cache")
	}
	rk, _ = s.keys("big", "p0")
	for i := range 2 * keyCachePlayers {
		pl := fmt.Sprint("p", i)
		if _, p := s.keys("big", pl); p.log != s.logKey("big", pl) || p.player != pl {
			t.Fatalf("keys of %s: %+v", pl, p)
		}
	}
	if len(rk.players) != keyCachePlayers {
		t.Fatalf("%d players cached, want %d", len(rk.players), keyCachePlayers)
	}

	// Ids in a buffer that is then reused: the cache holds copies.
	buf := []byte("frame-round/frame-player")
	s.keys(unsafe.String(&buf[0], 11), unsafe.String(&buf[12], 12))
	copy(buf, "xxxxxxxxxxxxxxxxxxxxxxxx")
	if k, p := s.keys("frame-round", "frame-player"); k.epochs != s.roundKey("frame-round", "epochs") ||
		p.log != s.logKey("frame-round", "frame-player") || p.player != "frame-player" || s.kc.cur["xxxxxxxxxxx"] != nil {
		t.Fatalf("keys after the ids' buffer changed: %+v %+v", k, p)
	}
}

// tapProxy forwards loopback connections to a server and records every
// byte the clients write.
type tapProxy struct {
	l  net.Listener
	mu sync.Mutex
	w  bytes.Buffer
}

func newTapProxy(t *testing.T, target string) *tapProxy {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	p := &tapProxy{l: l}
	t.Cleanup(func() { l.Close() })
	go func() {
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			s, err := net.Dial("tcp", target)
			if err != nil {
				c.Close()
				continue
			}
			go func() { io.Copy(c, s); c.Close() }()
			// Recorded before Redis can answer.
			go func() { io.Copy(io.MultiWriter(p, s), c); s.Close() }()
		}
	}()
	return p
}

func (p *tapProxy) Write(b []byte) (int, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.w.Write(b)
}

func (p *tapProxy) bytes() []byte {
	p.mu.Lock()
	defer p.mu.Unlock()
	return bytes.Clone(p.w.Bytes())
}

// plainAppend is Append made the plain way, the reference of the pooled
// command: one appendScript.Run of its own on s's client, with the keys
// and arguments built and boxed on each call, and the outcome noted in s's
// key cache as Append notes it.
func plainAppend(ctx context.Context, s *Store, roundID string, epoch uint64, e match.LogEntry, st match.Standing) error {
	stJSON, err := encodeStanding(st)
	if err != nil {
		return err
	}
	keys := []string{
		s.logKey(roundID, st.PlayerID),
		s.roundKey(roundID, "epochs"),
		s.roundKey(roundID, "standings"),
		s.roundKey(roundID, "rank"),
		s.roundKey(roundID, "rankm"),
	}
	_, pk := s.keys(roundID, st.PlayerID)
	now := time.Now()
	known, renew := pk.appendState(nil, epoch, now)
	rank := rankMember(st)
	args := []any{st.PlayerID, strconv.FormatUint(epoch, 10), e.Seq, encodeEntry(e), stJSON, rank, s.ttlMs, string(known), renew}
	_, err = appendScript.Run(ctx, s.c, keys, args...).Text()
	err = mapErr(err)
	pk.noteAppend(epoch, []byte(rank), renew == renewYes, now, s.renewEvery, err)
	return err
}

// TestAppendWireBytes: the batched Append writes to Redis exactly the bytes
// the plain script call writes (plainAppend: appendScript.Run with keys and
// boxed arguments), the NOSCRIPT resend with the source included.
func TestAppendWireBytes(t *testing.T) {
	srv := redistest.Start(t)
	ctx := context.Background()
	prefix := redistest.Prefix(t)
	var wire [2][]byte
	for i, plain := range []bool{false, true} {
		if _, err := srv.Do("SCRIPT", "FLUSH"); err != nil {
			t.Fatal(err)
		}
		if _, err := srv.Do("FLUSHALL"); err != nil {
			t.Fatal(err)
		}
		p := newTapProxy(t, srv.Addr())
		c := redis.NewClient(&redis.Options{Addr: p.l.Addr().String(), PoolSize: 1})
		s := New(c, Config{Prefix: prefix})
		r := rand.New(rand.NewPCG(5, 6))
		for j := range 40 {
			st := randStanding(r)
			st.PlayerID = fmt.Sprint("p", j%3)
			e := match.LogEntry{Seq: j/3 + 1 + 250*(j%2), Move: "T7-F", AtMs: int64(j) * 1000}
			epoch := []uint64{0, 1, 300, math.MaxUint64}[j%4]
			// The replies differ (stale writers, gaps): the requests must not.
			if plain {
				_ = plainAppend(ctx, s, fmt.Sprint("round-", j%2), epoch, e, st)
			} else {
				_ = s.Append(ctx, fmt.Sprint("round-", j%2), epoch, e, st)
			}
		}
		s.Close()
		c.Close()
		b := p.bytes()
		// From the first EVALSHA on: the connection's handshake before it
		// is go-redis's.
		k := bytes.Index(b, []byte("\r\nevalsha\r\n"))
		if k < 0 {
			t.Fatalf("no evalsha in %q", b)
		}
		wire[i] = b[k:]
	}
	if !bytes.Equal(wire[0], wire[1]) {
		n := 0
		for n < len(wire[0]) && n < len(wire[1]) && wire[0][n] == wire[1][n] {
			n++
		}
		t.Fatalf("batched Append wrote other bytes than the plain call, from byte %d:\n%q\nagainst\n%q",
			n, wire[0][n:min(n+200, len(wire[0]))], wire[1][n:min(n+200, len(wire[1]))])
	}
	if !bytes.Contains(wire[0], []byte("\r\neval\r\n")) || strings.Count(string(wire[0]), "evalsha") != 40 {
		t.Fatalf("want 40 EVALSHA and a NOSCRIPT resend, got %q", wire[0])
	}
}

// BenchmarkAppendCommand measures the making of one Append's command and
// its queuing in a pipeline (never sent), no network: the pooled call and
// cached keys (…/pooled) against the plain script call's keys and boxed
// arguments (…/plain, as plainAppend builds them).
func BenchmarkAppendCommand(b *testing.B) {
	c := redis.NewClient(&redis.Options{Addr: "127.0.0.1:1"}) // never dialled
	defer c.Close()
	s := New(c, Config{})
	ctx := context.Background()
	st := match.Standing{PlayerID: "p1", Name: "Ann", Points: 15, Foundation: 3, Moves: 40, FinishedMs: -1, ReachedMs: 61234}
	e := match.LogEntry{Seq: 300, Move: "T7-F", AtMs: 61234}
	p := c.Pipeline()
	b.Run("pooled", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			call := getAppendCall()
			if err := call.a.fill(s, "round-1", 3, e, st); err != nil {
				b.Fatal(err)
			}
			_ = p.Process(ctx, call.a.command(ctx))
			p.Discard()
			putAppendCall(call)
		}
	})
	b.Run("plain", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			stJSON, err := encodeStanding(st)
			if err != nil {
				b.Fatal(err)
			}
			keys := []string{
				s.logKey("round-1", st.PlayerID),
				s.roundKey("round-1", "epochs"),
				s.roundKey("round-1", "standings"),
				s.roundKey("round-1", "rank"),
				s.roundKey("round-1", "rankm"),
			}
			rank := rankMember(st)
			args := []any{st.PlayerID, strconv.FormatUint(3, 10), e.Seq, encodeEntry(e), stJSON, rank, s.ttlMs, rank, "0"}
			call := &appendCall{ctx: ctx, keys: keys, args: args, done: make(chan error, 1)}
			_ = appendScript.EvalSha(ctx, p, call.keys, call.args...)
			p.Discard()
		}
	})
}
