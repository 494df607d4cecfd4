package main

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"math"
	"strings"
	"testing"
	"time"

	"klondike/api/protocol"
	"klondike/engine"
	"klondike/lobby/redisstore/redistest"
)

// shortRun runs the load test with args and checks what every run must
// satisfy.
func shortRun(t *testing.T, args ...string) *Report {
	t.Helper()
	cfg, err := parseConfig(args, io.Discard)
	if err != nil {
		t.Fatalf("parseConfig(%q): %v", args, err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	var log bytes.Buffer
	rep, err := execute(ctx, cfg, &log)
	if err != nil {
		t.Fatalf("execute: %v\n%s", err, log.String())
	}
	var text bytes.Buffer
	rep.writeText(&text)
	t.Logf("%s\n%s", log.String(), text.String())
	if rep.Connections.Opened != int64(cfg.Players) || rep.Connections.Failed != 0 || rep.Connections.Dropped != 0 {
		t.Errorf("connections %+v, want %d opened and none failed or dropped", rep.Connections, cfg.Players)
	}
	if rep.Moves.Acked == 0 || rep.Latency.Count == 0 || rep.MovesPerSec <= 0 {
		t.Errorf("no moves acknowledged: %+v", rep.Moves)
	}
	if rep.Errors.Unexpected != 0 {
		t.Errorf("unexpected errors: %v %q", rep.Errors.ByKind, rep.Errors.Samples)
	}
	if !rep.OK {
		t.Errorf("report not OK")
	}
	return rep
}

func TestEmbeddedQuickMatches(t *testing.T) {
	t.Parallel()
	rep := shortRun(t, "--embedded", "--players", "20", "--per-match", "4", "--duration", "3s", "--ramp", "500ms",
		"--think", "20ms", "--time-limit", "2", "--countdown", "0", "--drain", "10s")
	if rep.Rounds.Completed < 5 {
		t.Errorf("%d rounds completed, want at least 5 (one a match)", rep.Rounds.Completed)
	}
	c := rep.Check
	if c.Lost != 0 || c.Doubled != 0 || c.Mismatched != 0 || c.FetchErrors != 0 {
		t.Errorf("check: %+v", c)
	}
	if c.Unverified != 0 || c.Rounds != rep.Rounds.Completed || c.MovesChecked != rep.Moves.Acked {
		t.Errorf("check covered %d rounds and %d moves (%d unverified); the run completed %d rounds and acknowledged %d moves",
			c.Rounds, c.MovesChecked, c.Unverified, rep.Rounds.Completed, rep.Moves.Acked)
	}
	if rep.Leaderboards == 0 {
		t.Error("no leaderboard received")
	}
	if rep.MoveOKSlow != 0 {
		t.Errorf("%d move_ok frames of our own server were not read by client.DecodeMessage's fast path", rep.MoveOKSlow)
	}
	if !rep.ServerStats.Before.OK || rep.ServerStats.CPUSeconds <= 0 || rep.ServerStats.After.RSSBytes <= 0 {
		t.Errorf("process figures missing: %+v", rep.ServerStats)
	}
}

func TestEmbeddedInviteCodes(t *testing.T) {
	t.Parallel()
	rep := shortRun(t, "--players", "6", "--per-match", "3", "--join", "code", "--after", "requeue",
		"--duration", "3s", "--ramp", "200ms", "--think", "20ms", "--time-limit", "2", "--countdown", "0",
		"--lobby-wait", "2s", "--drain", "10s", "--seed", "7", "--deal", "5")
	if rep.Rounds.Completed < 2 {
		t.Errorf("%d rounds completed, want at least 2", rep.Rounds.Completed)
	}
	if c := rep.Check; c.Lost != 0 || c.Doubled != 0 || c.Mismatched != 0 || c.Unverified != 0 || c.Records == 0 {
		t.Errorf("check: %+v", c)
	}
}

func TestEmbeddedRedis(t *testing.T) {
	t.Parallel()
	srv := redistest.Start(t) // skips without redis-server (fails in CI, which requires it)
	rep := shortRun(t, "--redis", srv.URL(), "--players", "8", "--per-match", "4", "--duration", "2500ms",
		"--ramp", "200ms", "--think", "20ms", "--time-limit", "2", "--countdown", "0", "--drain", "10s")
	if rep.Store != "redis" || rep.Rounds.Completed < 2 {
		t.Errorf("store %q, %d rounds completed: want redis and at least 2", rep.Store, rep.Rounds.Completed)
	}
	if c := rep.Check; c.Lost != 0 || c.Doubled != 0 || c.Mismatched != 0 || c.Unverified != 0 || c.MovesChecked != rep.Moves.Acked {
		t.Errorf("check: %+v", c)
	}
	if r := rep.Redis; r == nil || r.Commands == 0 || r.CPUSeconds <= 0 || r.Reads <= 0 || r.ReadsPerMove <= 0 {
		t.Errorf("redis report %+v: want the commands sent and Redis's CPU and reads from its INFO", r)
	}
	// The server ran as klondiked --redis does: the matches' records (the
	// Coord's) are in Redis too, not only the store's logs and sessions.
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	recs, err := srv.Client(t).Keys(ctx, "klondike-loadtest:*{m:*}:rec").Result()
	if err != nil {
		t.Fatal(err)
	}
	if len(recs) == 0 {
		t.Error("no match record in Redis: the embedded server did not use the Redis Coord")
	}
}

func TestBaselineEcho(t *testing.T) {
	t.Parallel()
	rep := shortRun(t, "--baseline", "--players", "10", "--duration", "1500ms", "--ramp", "100ms", "--think", "5ms")
	if rep.Mode != "echo" || rep.Check.Records != 0 {
		t.Errorf("mode %q, %d records checked: want the echo, unchecked", rep.Mode, rep.Check.Records)
	}

	// The echo in a process of its own (--echo-listen), measured through
	// its /metrics.
	raw, _, err := echoPosition(echoRules(&config{Draw: 3}))
	if err != nil {
		t.Fatal(err)
	}
	url, stop, err := startEcho("127.0.0.1:0", raw, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer stop()
	rep = shortRun(t, "--baseline", "--server", url, "--players", "5", "--duration", "1s", "--ramp", "0", "--think", "5ms")
	if rep.Server != "external echo" || !rep.ServerStats.Before.OK || !rep.ServerStats.After.OK {
		t.Errorf("server %q, process figures %+v: want the external echo's", rep.Server, rep.ServerStats)
	}
}

// TestEchoRedis: the echo with --echo-redis logs every move before it
// answers, one entry a move in the player's list, with the TTL; and the bots read
// Redis's CPU with --redis-info.
func TestEchoRedis(t *testing.T) {
	t.Parallel()
	srv := redistest.Start(t) // skips without redis-server (fails in CI, which requires it)
	raw, _, err := echoPosition(echoRules(&config{Draw: 3}))
	if err != nil {
		t.Fatal(err)
	}
	log, err := openEchoLog(srv.URL())
	if err != nil {
		t.Fatal(err)
	}
	defer log.close()
	url, stop, err := startEcho("127.0.0.1:0", raw, log)
	if err != nil {
		t.Fatal(err)
	}
	defer stop()
	rep := shortRun(t, "--baseline", "--server", url, "--redis-info", srv.URL(), "--players", "6", "--duration", "1s",
		"--ramp", "0", "--think", "5ms")
	if rep.Moves.Acked == 0 || rep.Redis == nil || rep.Redis.CPUSeconds <= 0 {
		t.Fatalf("%d moves acknowledged, redis report %+v: want moves and Redis's CPU", rep.Moves.Acked, rep.Redis)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	c := srv.Client(t)
	keys, err := c.Keys(ctx, log.prefix+"*").Result()
	if err != nil {
		t.Fatal(err)
	}
	var logged int64
	for _, k := range keys {
		n, err := c.LLen(ctx, k).Result()
		if err != nil {
			t.Fatal(err)
		}
		logged += n
		if d := c.PTTL(ctx, k).Val(); d <= 0 || d > echoLogTTL {
			t.Errorf("%s: TTL %v, want up to %v", k, d, echoLogTTL)
		}
	}
	// A move sent as the run ended may be logged and not answered yet.
	if logged < rep.Moves.Acked || logged > rep.Moves.Sent {
		t.Errorf("%d entries in %d lists, %d moves sent and %d acknowledged: want one entry a move", logged, len(keys), rep.Moves.Sent, rep.Moves.Acked)
	}
	if _, err := parseConfig([]string{"--echo-redis", srv.URL()}, io.Discard); err == nil {
		t.Error("--echo-redis without --echo-listen: no error")
	}
	if _, err := parseConfig([]string{"--echo-listen", "127.0.0.1:0", "--echo-redis", "redis://10.0.0.1:6379/0"}, io.Discard); err == nil {
		t.Error("--echo-redis at a non-loopback address: no error")
	}
}

func TestFlags(t *testing.T) {
	t.Parallel()
	for _, args := range [][]string{
		{"--server", "ws://192.0.2.1:8080/ws"},
		{"--server", "ws://[2001:db8::1]:8080/ws"},
		{"--server", "http://127.0.0.1:8080/ws"},
		{"--embedded", "--redis", "redis://192.0.2.1:6379/0"},
		{"--server", "ws://127.0.0.1:8080/ws", "--embedded"},
		{"--players", "0"},
		{"--draw", "2"},
		{"--time-limit", "1"},
		{"--join", "spectate"},
		{"--sweep", "--think", "0"},
		{"--baseline", "--with-baseline"},
		{"--redis-info", "redis://127.0.0.1:6379/0"},
		{"--server", "ws://127.0.0.1:8080/ws", "--redis-info", "redis://192.0.2.1:6379/0"},
		{"extra"},
	} {
		var out, errw bytes.Buffer
		if st := runMain(context.Background(), args, &out, &errw); st != 2 {
			t.Errorf("%q: status %d, want 2 (stdout %q, stderr %q)", args, st, out.String(), errw.String())
		}
	}
	var out bytes.Buffer
	if st := runMain(context.Background(), []string{"--help"}, &out, io.Discard); st != 0 || !strings.Contains(out.String(), "--max-conns-per-ip -1") {
		t.Errorf("--help: status %d, output %q", st, out.String())
	}
	cfg, err := parseConfig([]string{"--sweep", "--sweep-steps", "3", "--sweep-step", "5s"}, io.Discard)
	if err != nil || !cfg.OpenLoop || cfg.Jitter != 0 || cfg.TimeLimitS < 45 {
		t.Errorf("--sweep: %+v, %v: want open loop, no jitter, a time limit that spans the sweep", cfg, err)
	}
}

func TestParseRedisInfo(t *testing.T) {
	t.Parallel()
	text := "# CPU\r\nused_cpu_sys:1.500000\r\nused_cpu_user:2.250000\r\nused_cpu_sys_children:9.0\r\n\r\n# Stats\r\ntotal_reads_processed:1234\r\ntotal_writes_processed:99\r\n"
	ri, err := parseRedisInfo(text)
	if err != nil || ri.CPUSeconds != 3.75 || ri.Reads != 1234 {
		t.Errorf("parseRedisInfo = %+v, %v; want 3.75 s and 1234 reads", ri, err)
	}
	if _, err := parseRedisInfo("# CPU\r\nused_cpu_sys:1.5\r\n"); err == nil {
		t.Error("INFO without the user CPU and reads: no error")
	}
	if _, err := parseRedisInfo("used_cpu_sys:x\r\nused_cpu_user:1\r\ntotal_reads_processed:1\r\n"); err == nil {
		t.Error("INFO with a bad number: no error")
	}
}

func TestRedisLoopbackOnly(t *testing.T) {
	t.Parallel()
	cfg, err := parseConfig([]string{"--redis", "redis://10.1.2.3:6379/0", "--players", "1", "--duration", "1s"}, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := execute(context.Background(), cfg, io.Discard); err == nil || !strings.Contains(err.Error(), "loopback") {
		t.Errorf("a non-loopback Redis: %v, want a refusal", err)
	}
}

func TestHistogram(t *testing.T) {
	var h histogram
	for i := 1; i <= 100000; i++ {
		h.Record(time.Duration(i) * time.Microsecond) // 1 µs … 100 ms, uniform
	}
	s := h.Summary()
	for _, c := range []struct {
		name      string
		got, want float64
	}{{"p50", s.P50Ms, 50}, {"p95", s.P95Ms, 95}, {"p99", s.P99Ms, 99}, {"p99.9", s.P999Ms, 99.9}, {"max", s.MaxMs, 100}, {"mean", s.MeanMs, 50}} {
		if math.Abs(c.got-c.want)/c.want > 0.02 {
			t.Errorf("%s = %.3f ms, want %.3f within 2%%", c.name, c.got, c.want)
		}
	}
	if s.Count != 100000 {
		t.Errorf("count %d", s.Count)
	}
	for us := uint64(0); us < 1<<22; us = us*5/4 + 1 {
		i := bucketOf(us)
		if v := bucketValue(i); math.Abs(v-float64(us)) > float64(us)/64+1 {
			t.Errorf("bucket of %d µs shows %.1f", us, v)
		}
	}
	if bucketOf(histMaxUs) >= histBuckets {
		t.Errorf("largest value out of range")
	}
	h.Record(100 * 24 * time.Hour) // clamped, not out of range
}

func TestCompareReplay(t *testing.T) {
	d, _ := engine.ParseMove("D")
	w, _ := engine.ParseMove("W-T3")
	rec := &roundRecord{roundID: "r", playerID: "p", moves: []ackedMove{{1, d}, {2, w}, {3, d}}}
	replay := func(entries string) *protocol.Replay {
		var r protocol.Replay
		if err := json.Unmarshal([]byte(`{"round_id":"r","players":[{"player_id":"p","moves":`+entries+`}]}`), &r); err != nil {
			t.Fatal(err)
		}
		return &r
	}
	noDetail := func(string, ...any) {}
	for _, c := range []struct {
		log                                 string
		lost, doubled, mismatched, notAcked int64
	}{
		{`[{"seq":1,"move":"D"},{"seq":2,"move":"W-T3"},{"seq":3,"move":"D"}]`, 0, 0, 0, 0},
		{`[{"seq":1,"move":"D"},{"seq":2,"move":"W-T3"}]`, 1, 0, 0, 0},
		{`[{"seq":1,"move":"D"},{"seq":2,"move":"W-T3"},{"seq":2,"move":"W-T3"},{"seq":3,"move":"D"}]`, 0, 2, 0, 0},
		{`[{"seq":1,"move":"D"},{"seq":2,"move":"W-F"},{"seq":3,"move":"d"}]`, 0, 0, 1, 0},
		{`[{"seq":1,"move":"D"},{"seq":2,"move":"W-T3"},{"seq":3,"move":"D"},{"seq":4,"move":"D"}]`, 0, 0, 0, 1},
	} {
		var cr checkReport
		compareReplay(&cr, rec, replay(c.log), noDetail)
		if cr.Lost != c.lost || cr.Doubled != c.doubled || cr.Mismatched != c.mismatched || cr.RecordedNotAcked != c.notAcked {
			t.Errorf("%s: %+v, want lost %d doubled %d mismatched %d not acked %d", c.log, cr, c.lost, c.doubled, c.mismatched, c.notAcked)
		}
	}
	var cr checkReport
	compareReplay(&cr, &roundRecord{roundID: "r", playerID: "q", moves: rec.moves}, replay(`[]`), noDetail)
	if cr.Lost != 3 {
		t.Errorf("a player missing from the replay: lost %d, want 3", cr.Lost)
	}
}

func TestParseMetrics(t *testing.T) {
	text := `# HELP process_cpu_seconds_total Total user and system CPU time spent in seconds.
# TYPE process_cpu_seconds_total counter
process_cpu_seconds_total 12.34
process_resident_memory_bytes 4.5e+07
klondike_moves_total{result="accepted"} 1000
klondike_moves_total{result="illegal_move"} 3
klondike_build_info{goversion="go1.26.8",version="dev x"} 1
`
	s, err := parseMetrics(strings.NewReader(text))
	if err != nil || !s.OK || s.CPUSeconds != 12.34 || s.RSSBytes != 4.5e7 || s.Moves["accepted"] != 1000 || s.Moves["illegal_move"] != 3 {
		t.Errorf("parseMetrics = %+v, %v", s, err)
	}
	if _, err := parseMetrics(strings.NewReader("go_goroutines 3\n")); err == nil {
		t.Error("no process metrics: want an error")
	}
}

// TestIdle: idle bots connect, are welcomed and play nothing; the report
// gives the server's memory a connection.
func TestIdle(t *testing.T) {
	t.Parallel()
	cfg, err := parseConfig([]string{"--idle", "--players", "5", "--duration", "1s", "--ramp", "200ms"}, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	rep, err := execute(ctx, cfg, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	if !rep.OK || rep.Idle == nil || rep.Idle.Welcomed != 5 || rep.Moves.Sent != 0 || !rep.Idle.Held.OK || rep.Idle.Held.Goroutines == 0 {
		t.Errorf("idle run: ok %v, idle %+v, %d moves sent; want 5 welcomed, the server's figures, no move", rep.OK, rep.Idle, rep.Moves.Sent)
	}
	for _, args := range [][]string{{"--no-coord"}, {"--idle", "--sweep"}} {
		if _, err := parseConfig(args, io.Discard); err == nil {
			t.Errorf("parseConfig(%q) accepted", args)
		}
	}
}
