package redistest

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
)

// DefaultNodeTimeout is a cluster's cluster-node-timeout unless
// WithNodeTimeout says otherwise: short, so that a killed master's replica
// takes over within a second or two.
const DefaultNodeTimeout = 500 * time.Millisecond

// ClientReloadInterval is how often Client's cluster client reloads the
// slots' map while commands flow. go-redis reloads it on a MOVED reply,
// but a dead master answers nothing: without the periodic reload the
// client would go on dialling it for ClusterStateReloadInterval's default
// of a minute after its replica took over.
const ClientReloadInterval = time.Second

// createTimeout bounds redis-cli --cluster create and the wait until every
// node agrees on the cluster.
const createTimeout = 30 * time.Second

// A ClusterOption changes how a cluster runs.
type ClusterOption func(*Cluster)

// WithNodeTimeout sets the nodes' cluster-node-timeout: how long a master
// may be silent before the others hold it failed and its replica takes
// over.
func WithNodeTimeout(d time.Duration) ClusterOption {
	return func(c *Cluster) { c.nodeTimeout = d }
}

// A Cluster is a Redis Cluster of redis-server processes on loopback, made
// with redis-cli --cluster create: masters serving a share of the slots
// each, and replicas of each master.
type Cluster struct {
	nodes       []*Server
	replicas    int // a master's
	nodeTimeout time.Duration
}

// StartCluster starts masters*(1+replicasPerMaster) nodes, makes them a
// cluster and waits until every node serves it and every replica is in
// sync; the nodes are killed when the test ends. Without redis-server or
// redis-cli the test is skipped (or fails, as Start does).
func StartCluster(t testing.TB, masters, replicasPerMaster int, opts ...ClusterOption) *Cluster {
	t.Helper()
	c := newCluster(t, masters, replicasPerMaster, opts)
	t.Cleanup(c.kill)
	if err := c.start(t.TempDir()); err != nil {
		t.Fatalf("redistest: %v", err)
	}
	return c
}

// newCluster returns a cluster not started yet, or skips the test without
// redis-server or redis-cli.
func newCluster(t testing.TB, masters, replicasPerMaster int, opts []ClusterOption) *Cluster {
	t.Helper()
	if masters < 3 {
		t.Fatalf("redistest: a cluster needs 3 masters or more, not %d", masters)
	}
	if _, err := exec.LookPath("redis-cli"); err != nil {
		if os.Getenv(RequireEnv) == "1" {
			t.Fatalf("redis-cli not installed, and %s=1", RequireEnv)
		}
		t.Skip("redis-cli not installed")
	}
	c := &Cluster{replicas: replicasPerMaster, nodeTimeout: DefaultNodeTimeout}
	for _, o := range opts {
		o(c)
	}
	for range masters * (1 + replicasPerMaster) {
		s := newServer(t, []Option{WithCluster()})
		s.member = true
		s.extra = c.nodeArgs()
		c.nodes = append(c.nodes, s)
	}
	return c
}

// nodeArgs are the settings of every node. A replica takes over whatever
// its replication lag (validity factor 0) and syncs at once rather than
// waiting for more replicas (no diskless delay); the other masters keep
// serving their slots while one has none (no full coverage).
func (c *Cluster) nodeArgs() []string {
	return []string{
		"--cluster-node-timeout", strconv.FormatInt(c.nodeTimeout.Milliseconds(), 10),
		"--cluster-replica-validity-factor", "0",
		"--cluster-require-full-coverage", "no",
		"--cluster-allow-replica-migration", "no",
		"--repl-diskless-sync-delay", "0",
		"--repl-ping-replica-period", "1",
	}
}

// start launches the nodes, each in a folder under dir, creates the
// cluster and waits until it is healthy.
func (c *Cluster) start(dir string) error {
	errs := make([]error, len(c.nodes))
	var wg sync.WaitGroup
	for i, s := range c.nodes {
		s.dir = filepath.Join(dir, "node"+strconv.Itoa(i))
		if err := os.MkdirAll(s.dir, 0o755); err != nil {
			return err
		}
		wg.Go(func() { errs[i] = s.launchOnFreePort() })
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(context.Background(), createTimeout)
	defer cancel()
	args := []string{"--cluster", "create"}
	args = append(args, c.Addrs()...)
	args = append(args, "--cluster-replicas", strconv.Itoa(c.replicas), "--cluster-yes")
	out, err := exec.CommandContext(ctx, "redis-cli", args...).CombinedOutput()
	if err != nil {
		return fmt.Errorf("redis-cli --cluster create: %v\n%s", err, out)
	}
	return c.waitHealthy(time.Now().Add(createTimeout))
}

// kill kills every node.
func (c *Cluster) kill() {
	for _, s := range c.nodes {
		s.Kill()
	}
}

// Nodes returns the cluster's nodes, masters and replicas, in the order
// they were started; a killed node stays in the list.
func (c *Cluster) Nodes() []*Server { return slices.Clone(c.nodes) }

// NodeTimeout returns the nodes' cluster-node-timeout.
func (c *Cluster) NodeTimeout() time.Duration { return c.nodeTimeout }

// Addrs returns every node's host:port.
func (c *Cluster) Addrs() []string {
	out := make([]string, len(c.nodes))
	for i, s := range c.nodes {
		out[i] = s.Addr()
	}
	return out
}

// URL returns the cluster's URL as klondiked's --redis takes it with
// --redis-cluster: the first node's, the others as addr parameters.
func (c *Cluster) URL() string {
	var b strings.Builder
	b.WriteString("redis://" + c.nodes[0].Addr())
	for i, s := range c.nodes[1:] {
		if i == 0 {
			b.WriteString("?")
		} else {
			b.WriteString("&")
		}
		b.WriteString("addr=" + s.Addr())
	}
	return b.String()
}

// Options returns cluster client options with timeouts suited to tests on
// loopback, one dial a try (a dead node fails a command at once) and a
// reload of the slots' map every ClientReloadInterval, to adjust before
// redis.NewClusterClient.
func (c *Cluster) Options() *redis.ClusterOptions {
	return &redis.ClusterOptions{
		Addrs:                      c.Addrs(),
		DialTimeout:                250 * time.Millisecond,
		ReadTimeout:                500 * time.Millisecond,
		WriteTimeout:               500 * time.Millisecond,
		DialerRetries:              1,
		MaxRetries:                 2,
		ClusterStateReloadInterval: ClientReloadInterval,
	}
}

// Client returns a new cluster client with Options, closed when the test
// ends.
func (c *Cluster) Client(t testing.TB) *redis.ClusterClient {
	cc := redis.NewClusterClient(c.Options())
	t.Cleanup(func() { cc.Close() })
	return cc
}

// Kill ends the node at once (SIGKILL), as a crash would.
func (c *Cluster) Kill(s *Server) { s.Kill() }

// Restart starts a killed node again, on its port and with its folder
// and nodes.conf, and waits until the cluster is healthy again: a master
// whose replica took over meanwhile rejoins as that node's replica, and
// has copied its data when Restart returns.
func (c *Cluster) Restart(t testing.TB, s *Server) {
	t.Helper()
	s.Start(t)
	if err := c.waitHealthy(time.Now().Add(createTimeout)); err != nil {
		t.Fatalf("redistest: after restarting %s: %v", s.Addr(), err)
	}
}

// Slot returns the hash slot of the key, as the cluster computes it.
func (c *Cluster) Slot(key string) (int, error) {
	var last error
	for _, s := range c.live() {
		r, err := s.Do("CLUSTER", "KEYSLOT", key)
		if err != nil {
			last = err
			continue
		}
		return strconv.Atoi(r)
	}
	return 0, fmt.Errorf("no node answers: %v", last)
}

// MasterOf returns the node that serves the key's slot, as the first live
// node that answers sees it.
func (c *Cluster) MasterOf(key string) (*Server, error) {
	slot, err := c.Slot(key)
	if err != nil {
		return nil, err
	}
	var last error
	for _, s := range c.live() {
		view, err := s.clusterNodes()
		if err != nil {
			last = err
			continue
		}
		m := view.masterOf(slot)
		if m == nil {
			return nil, fmt.Errorf("no master serves slot %d", slot)
		}
		if n := c.byAddr(m.addr); n != nil {
			return n, nil
		}
		return nil, fmt.Errorf("slot %d's master %s is not a node of the cluster", slot, m.addr)
	}
	return nil, fmt.Errorf("no node answers: %v", last)
}

// WaitNewMaster waits until a node other than old is master of the key's
// slot in the view of every live node, the new master says so itself, and
// every live node's cluster is ok; it returns the new master. It fails
// the test after 20 node timeouts plus 10 s.
func (c *Cluster) WaitNewMaster(t testing.TB, key string, old *Server) *Server {
	t.Helper()
	slot, err := c.Slot(key)
	if err != nil {
		t.Fatalf("redistest: %v", err)
	}
	deadline := time.Now().Add(20*c.nodeTimeout + 10*time.Second)
	var why error
	for time.Now().Before(deadline) {
		var m *Server
		if m, why = c.agreedMaster(slot); why == nil && m != old {
			return m
		}
		if why == nil {
			why = fmt.Errorf("%s is still the master", old.Addr())
		}
		time.Sleep(20 * time.Millisecond)
	}
	t.Fatalf("redistest: slot %d has no new master: %v", slot, why)
	return nil
}

// agreedMaster returns the master of the slot if every live node agrees on
// it, it is live and a master by its own account, and every live node's
// cluster is ok.
func (c *Cluster) agreedMaster(slot int) (*Server, error) {
	var master *Server
	for _, s := range c.live() {
		info, err := s.Do("CLUSTER", "INFO")
		if err != nil {
			return nil, fmt.Errorf("%s: %v", s.Addr(), err)
		}
		if !strings.Contains(info, "cluster_state:ok\r\n") {
			return nil, fmt.Errorf("%s: cluster not ok", s.Addr())
		}
		view, err := s.clusterNodes()
		if err != nil {
			return nil, fmt.Errorf("%s: %v", s.Addr(), err)
		}
		m := view.masterOf(slot)
		if m == nil || m.failing() {
			return nil, fmt.Errorf("%s sees no live master of slot %d", s.Addr(), slot)
		}
		n := c.byAddr(m.addr)
		switch {
		case n == nil:
			return nil, fmt.Errorf("%s: master %s is not a node of the cluster", s.Addr(), m.addr)
		case master != nil && n != master:
			return nil, fmt.Errorf("nodes disagree on slot %d: %s and %s", slot, master.Addr(), n.Addr())
		}
		master = n
	}
	if master == nil {
		return nil, errors.New("no node is running")
	}
	if !master.running() {
		return nil, fmt.Errorf("the master %s is not running", master.Addr())
	}
	if role, err := master.Do("INFO", "replication"); err != nil || !strings.Contains(role, "role:master\r\n") {
		return nil, fmt.Errorf("%s is not a master by its own account (%v)", master.Addr(), err)
	}
	return master, nil
}

// waitHealthy waits until every live node sees every node, all slots
// served by live masters, and its cluster ok, and every replica is in sync
// with its master.
func (c *Cluster) waitHealthy(deadline time.Time) error {
	var why error
	for time.Now().Before(deadline) {
		if why = c.healthy(); why == nil {
			return nil
		}
		time.Sleep(20 * time.Millisecond)
	}
	return fmt.Errorf("the cluster is not healthy within %v: %v", createTimeout, why)
}

func (c *Cluster) healthy() error {
	live := c.live()
	masters := len(c.nodes) / (1 + c.replicas)
	for _, s := range live {
		info, err := s.Do("CLUSTER", "INFO")
		if err != nil {
			return fmt.Errorf("%s: %v", s.Addr(), err)
		}
		for _, want := range []string{"cluster_state:ok", "cluster_slots_ok:16384", "cluster_known_nodes:" + strconv.Itoa(len(c.nodes))} {
			if !strings.Contains(info, want+"\r\n") {
				return fmt.Errorf("%s: no %s", s.Addr(), want)
			}
		}
		view, err := s.clusterNodes()
		if err != nil {
			return fmt.Errorf("%s: %v", s.Addr(), err)
		}
		n := 0
		for _, e := range view {
			if e.failing() || e.handshake() {
				return fmt.Errorf("%s sees %s as %s", s.Addr(), e.addr, strings.Join(e.flags, ","))
			}
			if e.master() && len(e.slots) > 0 {
				n++
			}
		}
		if n != masters {
			return fmt.Errorf("%s sees %d masters with slots, want %d", s.Addr(), n, masters)
		}
		repl, err := s.Do("INFO", "replication")
		if err != nil {
			return fmt.Errorf("%s: %v", s.Addr(), err)
		}
		if strings.Contains(repl, "role:slave\r\n") &&
			(!strings.Contains(repl, "master_link_status:up\r\n") || !strings.Contains(repl, "master_sync_in_progress:0\r\n")) {
			return fmt.Errorf("replica %s is not in sync", s.Addr())
		}
	}
	return nil
}

// live returns the nodes that run.
func (c *Cluster) live() []*Server {
	var out []*Server
	for _, s := range c.nodes {
		if s.running() {
			out = append(out, s)
		}
	}
	return out
}

// byAddr returns the node at host:port, or nil.
func (c *Cluster) byAddr(addr string) *Server {
	for _, s := range c.nodes {
		if s.Addr() == addr {
			return s
		}
	}
	return nil
}

// running reports whether the server's process runs (not killed or
// stopped).
func (s *Server) running() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.cmd != nil
}

// nodeEntry is one line of CLUSTER NODES.
type nodeEntry struct {
	id, addr string
	flags    []string
	slots    [][2]int // ranges, both ends included
}

func (e nodeEntry) master() bool    { return slices.Contains(e.flags, "master") }
func (e nodeEntry) handshake() bool { return slices.Contains(e.flags, "handshake") }

// failing reports a node held failed, or suspected of it.
func (e nodeEntry) failing() bool {
	return slices.Contains(e.flags, "fail") || slices.Contains(e.flags, "fail?")
}

type clusterView []nodeEntry

// masterOf returns the master that serves the slot, or nil.
func (v clusterView) masterOf(slot int) *nodeEntry {
	for i, e := range v {
		if !e.master() {
			continue
		}
		for _, r := range e.slots {
			if r[0] <= slot && slot <= r[1] {
				return &v[i]
			}
		}
	}
	return nil
}

// clusterNodes asks the node for its view of the cluster.
func (s *Server) clusterNodes() (clusterView, error) {
	text, err := s.Do("CLUSTER", "NODES")
	if err != nil {
		return nil, err
	}
	var v clusterView
	for line := range strings.Lines(text) {
		f := strings.Fields(line)
		if len(f) < 8 {
			continue
		}
		addr, _, _ := strings.Cut(f[1], "@")
		e := nodeEntry{id: f[0], addr: addr, flags: strings.Split(f[2], ",")}
		for _, r := range f[8:] {
			if strings.HasPrefix(r, "[") {
				continue // a slot being migrated
			}
			lo, hi, isRange := strings.Cut(r, "-")
			if !isRange {
				hi = lo
			}
			a, err1 := strconv.Atoi(lo)
			b, err2 := strconv.Atoi(hi)
			if err1 != nil || err2 != nil {
				return nil, fmt.Errorf("bad slots %q in CLUSTER NODES", r)
			}
			e.slots = append(e.slots, [2]int{a, b})
		}
		v = append(v, e)
	}
	return v, nil
}
