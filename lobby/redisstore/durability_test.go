package redisstore_test

import (
	"context"
	"errors"
	"math/rand/v2"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"klondike/lobby/redisstore"
	"klondike/lobby/redisstore/redistest"
	"klondike/match"
)

// The durability levels' tests: with DurabilityReplica no acknowledged
// append is lost when the master dies and its replica takes over; with
// DurabilityLocal some may be, and the kill test counts them.

// replicate makes replica a replica of master and waits until it is in
// sync.
func replicate(t testing.TB, replica, master *redistest.Server) {
	t.Helper()
	// A replica that connects waits for the master's snapshot, which by
	// default waits 5 s for more replicas to share it.
	if _, err := master.Do("CONFIG", "SET", "repl-diskless-sync-delay", "0"); err != nil {
		t.Fatal(err)
	}
	if _, err := replica.Do("REPLICAOF", "127.0.0.1", strconv.Itoa(master.Port())); err != nil {
		t.Fatal(err)
	}
	waitInSync(t, replica, master)
}

// waitInSync waits until the master streams its writes to the replica:
// until a write made after the replica's snapshot has reached it. (The
// master holds its stream back until the replica's first acknowledgement
// of the snapshot, up to a second after it.)
func waitInSync(t testing.TB, replica, master *redistest.Server) {
	t.Helper()
	waitInfo(t, master, "replication", "slave0:ip=127.0.0.1,port="+strconv.Itoa(replica.Port())+",state=online")
	// On a cluster's master, a key of one of its slots.
	for i := 0; ; i++ {
		_, err := master.Do("SET", redistest.Prefix(t)+"synced{"+strconv.Itoa(i)+"}", "1")
		if err == nil {
			break
		}
		if !strings.HasPrefix(err.Error(), "MOVED") || i == 100 {
			t.Fatal(err)
		}
	}
	written := infoInt(t, master, "master_repl_offset")
	deadline := time.Now().Add(10 * time.Second)
	for infoInt(t, replica, "slave_repl_offset") < written {
		if time.Now().After(deadline) {
			t.Fatalf("replica %s not in sync with %s after 10 s", replica.Addr(), master.Addr())
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// infoInt returns a number of the server's INFO replication, -1 if it
// has none.
func infoInt(t testing.TB, srv *redistest.Server, field string) int64 {
	t.Helper()
	info, err := srv.Do("INFO", "replication")
	if err != nil {
		t.Fatal(err)
	}
	for line := range strings.Lines(info) {
		if v, ok := strings.CutPrefix(strings.TrimSpace(line), field+":"); ok {
			n, err := strconv.ParseInt(v, 10, 64)
			if err != nil {
				t.Fatalf("INFO replication of %s: %q", srv.Addr(), line)
			}
			return n
		}
	}
	return -1
}

// waitInfo waits until the server's INFO section holds want.
func waitInfo(t testing.TB, srv *redistest.Server, section, want string) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		info, err := srv.Do("INFO", section)
		if err == nil && strings.Contains(info, want) {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("INFO %s of %s has no %q after 10 s (%v):\n%s", section, srv.Addr(), want, err, info)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// stall pauses the server for d, its master's stream too (CLIENT PAUSE
// ALL, which no command ends early): a replica that stalls. It returns
// the pause's end.
func stall(t testing.TB, srv *redistest.Server, d time.Duration) time.Time {
	t.Helper()
	end, err := stallFor(srv, d)
	if err != nil {
		t.Fatal(err)
	}
	return end
}

// stallFor is stall for any goroutine.
func stallFor(srv *redistest.Server, d time.Duration) (time.Time, error) {
	end := time.Now().Add(d)
	_, err := srv.Do("CLIENT", "PAUSE", strconv.FormatInt(d.Milliseconds(), 10), "ALL")
	return end, err
}

// durabilityClient is a client of srv with the timeouts Open gives (see
// redisstore.Dial), so that the store's WAIT waits ReplicaTimeout, and a
// dead server fails a command at once.
func durabilityClient(t testing.TB, srv *redistest.Server) redis.UniversalClient {
	opts := srv.UniversalOptions()
	opts.DialTimeout = redisstore.DefaultDialTimeout
	opts.ReadTimeout = redisstore.DefaultIOTimeout
	opts.WriteTimeout = redisstore.DefaultIOTimeout
	opts.MaxRetries = redisstore.DefaultMaxRetries
	opts.DialerRetries = 1
	opts.MinRetryBackoff = time.Millisecond
	opts.MaxRetryBackoff = 10 * time.Millisecond
	c := redis.NewUniversalClient(opts)
	t.Cleanup(func() { c.Close() })
	return c
}

// TestDurabilityKill appends thousands of moves of several players to a
// master with the append-only file and a replica, kills the master (-9)
// after a number of acknowledged appends drawn at random (a fixed seed),
// promotes the replica and reads every log back from it. With
// DurabilityReplica every acknowledged append must be there; with
// DurabilityLocal the test counts those that are not. Each level runs
// twice: with the replica in step, and with the replica lagging (stalled)
// when the master dies.
func TestDurabilityKill(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(7, 11))
	for _, lag := range []time.Duration{0, killLag} {
		for _, d := range []string{redisstore.DurabilityReplica, redisstore.DurabilityLocal} {
			killAfter := 2000 + rng.IntN(3000)
			name := d
			if lag > 0 {
				name += "/lagging"
			}
			t.Run(name, func(t *testing.T) {
				t.Parallel()
				r := killRun(t, d, killAfter, lag)
				t.Logf("%s: %d appends acknowledged (the kill after %d), %d failed before the kill, %d acknowledged ones lost, %d entries never acknowledged in the promoted log",
					name, r.acked, killAfter, r.failed, r.lost, r.extra)
				if d == redisstore.DurabilityReplica && r.lost > 0 {
					t.Fatalf("%d acknowledged appends lost with durability %s", r.lost, d)
				}
				if r.acked < killAfter {
					t.Fatalf("%d appends acknowledged, want %d before the kill", r.acked, killAfter)
				}
			})
		}
	}
}

// killLag is how long the lagging replica of TestDurabilityKill has been
// stalled when the master dies.
const killLag = 300 * time.Millisecond

// killResult is what killRun counts.
type killResult struct {
	acked  int // appends acknowledged
	failed int // appends that failed before the master was killed (and were retried)
	lost   int // acknowledged appends not in the promoted replica's logs
	extra  int // entries in those logs never acknowledged (in flight at the kill)
}

// killRun is one run of TestDurabilityKill: the master dies once killAfter
// appends were acknowledged, or with lag, lag after the replica stalled
// then.
func killRun(t *testing.T, durability string, killAfter int, lag time.Duration) killResult {
	const players, round = 16, "r"
	master := redistest.Start(t, redistest.WithAOF())
	replica := redistest.Start(t)
	replicate(t, replica, master)
	prefix := redistest.Prefix(t)
	s := redisstore.New(durabilityClient(t, master), redisstore.Config{Prefix: prefix, Durability: durability})
	defer s.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()

	killed := make(chan struct{})
	var killOnce sync.Once
	var stallEnd time.Time // with lag: when the replica runs again
	kill := func() {
		killOnce.Do(func() {
			if lag > 0 {
				end, err := stallFor(replica, lag+500*time.Millisecond)
				if err != nil {
					t.Error(err)
				}
				stallEnd = end
				time.Sleep(lag)
			}
			master.Kill()
			close(killed)
		})
	}
	// Bounded even if the appends stall.
	bound := time.AfterFunc(15*time.Second, kill)
	defer bound.Stop()

	var total, failed atomic.Int64
	acked := make([]int, players) // each player's last acknowledged seq
	var wg sync.WaitGroup
	for i := range players {
		wg.Go(func() {
			p := "p" + strconv.Itoa(i)
			for seq := 1; ; {
				err := s.Append(ctx, round, 1, entry(seq), standing(p, seq))
				if err == nil {
					acked[i] = seq
					seq++
					if total.Add(1) == int64(killAfter) {
						go kill() // while the other players' appends are on their way
					}
					continue
				}
				select {
				case <-killed:
					return
				default:
				}
				// Before the kill: a replica slow to answer, say. The move
				// is tried again, as its client would.
				if !errors.Is(err, match.ErrUnavailable) {
					t.Errorf("%s seq %d: %v", p, seq, err)
					return
				}
				failed.Add(1)
				time.Sleep(time.Millisecond)
			}
		})
	}
	wg.Wait()
	<-killed // stallEnd is set
	if t.Failed() {
		t.FailNow()
	}
	time.Sleep(time.Until(stallEnd))

	if _, err := replica.Do("REPLICAOF", "NO", "ONE"); err != nil {
		t.Fatal(err)
	}
	promoted := redisstore.New(durabilityClient(t, replica), redisstore.Config{Prefix: prefix})
	defer promoted.Close()
	r := killResult{acked: int(total.Load()), failed: int(failed.Load())}
	for i := range players {
		p := "p" + strconv.Itoa(i)
		log, err := promoted.Log(ctx, round, p)
		if err != nil && !errors.Is(err, match.ErrNotFound) {
			t.Fatalf("%s: Log on the promoted replica: %v", p, err)
		}
		for k, e := range log {
			if e != entry(k+1) {
				t.Fatalf("%s: entry %d is %+v, want %+v", p, k+1, e, entry(k+1))
			}
		}
		r.lost += max(0, acked[i]-len(log))
		r.extra += max(0, len(log)-acked[i])
	}
	return r
}

// TestDurabilityNoReplica: with DurabilityReplica, a master without a
// replica acknowledges nothing; the append is in its log all the same, and
// once a replica has caught up the retry is acknowledged. With
// DurabilityLocal the same master acknowledges at once.
func TestDurabilityNoReplica(t *testing.T) {
	t.Parallel()
	master := redistest.Start(t)
	c := durabilityClient(t, master)
	prefix := redistest.Prefix(t)
	s := redisstore.New(c, redisstore.Config{Prefix: prefix, Durability: redisstore.DurabilityReplica})
	defer s.Close()
	ctx := context.Background()

	start := time.Now()
	err := s.Append(ctx, "r", 1, entry(1), standing("p", 1))
	if !errors.Is(err, redisstore.ErrNotReplicated) || !errors.Is(err, match.ErrUnavailable) {
		t.Fatalf("Append without a replica: %v, want ErrNotReplicated", err)
	}
	if d := time.Since(start); d < redisstore.ReplicaTimeout || d > redisstore.ReplicaTimeout+time.Second {
		t.Fatalf("Append without a replica failed after %v, want about %v", d, redisstore.ReplicaTimeout)
	}
	log, err := s.Log(ctx, "r", "p")
	if err != nil || len(log) != 1 {
		t.Fatalf("Log after the unreplicated append: %v, %v; want its entry", log, err)
	}

	// The local store on the same master: acknowledged at once.
	local := redisstore.New(c, redisstore.Config{Prefix: prefix, Durability: redisstore.DurabilityLocal})
	defer local.Close()
	if err := local.Append(ctx, "r", 1, entry(1), standing("q", 1)); err != nil {
		t.Fatalf("local Append: %v", err)
	}

	replicate(t, redistest.Start(t), master)
	if err := s.Append(ctx, "r", 1, entry(1), standing("p", 1)); err != nil {
		t.Fatalf("the retry with a replica: %v", err)
	}
	if err := s.Append(ctx, "r", 1, entry(2), standing("p", 2)); err != nil {
		t.Fatalf("the next append with a replica: %v", err)
	}
	if log, err := s.Log(ctx, "r", "p"); err != nil || len(log) != 2 {
		t.Fatalf("Log: %v, %v; want 2 entries", log, err)
	}
}

// TestDurabilityStalledReplica: appends made while the replica stalls fail,
// their retries too (a retry writes, so its WAIT covers the first write,
// whatever connection it goes on), and they are acknowledged once the
// replica is back. Reads and other commands in the same batches are not
// held to the replica.
func TestDurabilityStalledReplica(t *testing.T) {
	t.Parallel()
	master, replica := redistest.Start(t), redistest.Start(t)
	replicate(t, replica, master)
	s := redisstore.New(durabilityClient(t, master), redisstore.Config{Prefix: redistest.Prefix(t), Durability: redisstore.DurabilityReplica})
	defer s.Close()
	ctx := context.Background()
	if err := s.Append(ctx, "r", 1, entry(1), standing("p", 1)); err != nil {
		t.Fatalf("Append with the replica up: %v", err)
	}

	end := stall(t, replica, 3*time.Second)
	const players = 4
	var wg sync.WaitGroup
	for i := range players {
		wg.Go(func() {
			p := "s" + strconv.Itoa(i)
			for try := range 2 {
				if err := s.Append(ctx, "r", 1, entry(1), standing(p, 1)); !errors.Is(err, redisstore.ErrNotReplicated) {
					t.Errorf("%s, try %d, with the replica stalled: %v, want ErrNotReplicated", p, try, err)
				}
			}
		})
	}
	if log, err := s.Log(ctx, "r", "p"); err != nil || len(log) != 1 {
		t.Errorf("Log with the replica stalled: %v, %v", log, err)
	}
	wg.Wait()
	if time.Now().After(end) {
		t.Fatal("the appends outlasted the replica's stall")
	}

	time.Sleep(time.Until(end))
	for i := range players {
		p := "s" + strconv.Itoa(i)
		if err := s.Append(ctx, "r", 1, entry(1), standing(p, 1)); err != nil {
			t.Fatalf("%s: the retry with the replica back: %v", p, err)
		}
		if log, err := s.Log(ctx, "r", p); err != nil || len(log) != 1 {
			t.Fatalf("%s: Log: %v, %v; want one entry", p, log, err)
		}
	}
}

// TestDurabilityCluster runs DurabilityReplica on a Redis Cluster of three
// masters, each with a replica: the appends of a batch go to every master,
// each with its own WAIT, so a stalled replica fails the appends of its
// own master only.
func TestDurabilityCluster(t *testing.T) {
	t.Parallel()
	cl := redistest.StartCluster(t, 3, 1)
	c := cl.Client(t)
	prefix := redistest.Prefix(t)
	s := redisstore.New(c, redisstore.Config{Prefix: prefix, Durability: redisstore.DurabilityReplica})
	defer s.Close()
	ctx := context.Background()

	// Rounds on each master, by their hash tags.
	byMaster := map[*redistest.Server][]string{}
	var rounds []string
	for i := 0; len(rounds) < 24; i++ {
		round := "r" + strconv.Itoa(i)
		m, err := cl.MasterOf("{round:" + round + "}")
		if err != nil {
			t.Fatal(err)
		}
		if len(byMaster[m]) < 8 {
			byMaster[m] = append(byMaster[m], round)
			rounds = append(rounds, round)
		}
	}
	replicaOf := map[*redistest.Server]*redistest.Server{}
	for m := range byMaster {
		for _, n := range cl.Nodes() {
			if info, _ := m.Do("INFO", "replication"); strings.Contains(info, "port="+strconv.Itoa(n.Port())+",") {
				replicaOf[m] = n
			}
		}
		if replicaOf[m] == nil {
			t.Fatalf("master %s has no replica", m.Addr())
		}
		waitInSync(t, replicaOf[m], m)
	}

	appendAll := func(seq int) map[string]error {
		var mu sync.Mutex
		errs := map[string]error{}
		var wg sync.WaitGroup
		for _, round := range rounds {
			wg.Go(func() {
				err := s.Append(ctx, round, 1, entry(seq), standing("p", seq))
				mu.Lock()
				errs[round] = err
				mu.Unlock()
			})
		}
		wg.Wait()
		return errs
	}
	for round, err := range appendAll(1) {
		if err != nil {
			t.Fatalf("%s: Append with every replica up: %v", round, err)
		}
	}

	var stalled *redistest.Server
	for m := range byMaster {
		stalled = m
		break
	}
	end := stall(t, replicaOf[stalled], 2*time.Second)
	errs := appendAll(2)
	if time.Now().After(end) {
		t.Fatal("the appends outlasted the replica's stall")
	}
	for m, rs := range byMaster {
		for _, round := range rs {
			switch err := errs[round]; {
			case m == stalled && !errors.Is(err, redisstore.ErrNotReplicated):
				t.Errorf("%s, on the master whose replica stalls: %v, want ErrNotReplicated", round, err)
			case m != stalled && err != nil:
				t.Errorf("%s, on a master whose replica is up: %v", round, err)
			}
		}
	}
	time.Sleep(time.Until(end))
	for round, err := range appendAll(2) {
		if err != nil {
			t.Errorf("%s: the retry with every replica up: %v", round, err)
		}
	}
	for _, round := range rounds {
		if log, err := s.Log(ctx, round, "p"); err != nil || len(log) != 2 {
			t.Errorf("%s: Log: %v, %v; want 2 entries", round, log, err)
		}
	}
}

// TestDurabilityConfig: New refuses a level it does not know, and Open
// says so.
func TestDurabilityConfig(t *testing.T) {
	t.Parallel()
	_, err := redisstore.Open(redisstore.Options{URL: "redis://127.0.0.1:1/0", Config: redisstore.Config{Durability: "disk"}})
	if !errors.Is(err, redisstore.ErrBadDurability) {
		t.Fatalf("Open with durability disk: %v, want ErrBadDurability", err)
	}
	for _, d := range []string{"", redisstore.DurabilityLocal, redisstore.DurabilityReplica} {
		b, err := redisstore.Open(redisstore.Options{URL: "redis://127.0.0.1:1/0", Config: redisstore.Config{Durability: d}})
		if err != nil {
			t.Fatalf("Open with durability %q: %v", d, err)
		}
		b.Close()
	}
	defer func() {
		if r := recover(); r == nil {
			t.Fatal("New with durability disk did not panic")
		} else if err, ok := r.(error); !ok || !errors.Is(err, redisstore.ErrBadDurability) {
			t.Fatalf("New with durability disk panicked with %v", r)
		}
	}()
	c := redis.NewClient(&redis.Options{Addr: "127.0.0.1:1"})
	defer c.Close()
	redisstore.New(c, redisstore.Config{Durability: "disk"})
}
