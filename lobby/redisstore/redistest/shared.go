package redistest

import (
	"os"
	"sync"
	"testing"
)

// shared holds the servers that Shared started, one for each set of
// options; Main kills them once the package's tests have run.
var shared struct {
	mu      sync.Mutex
	main    bool // Main runs the tests
	servers map[kind]*sharedServer
	cluster sharedCluster
}

// kind is what tells apart the servers that Shared starts.
type kind struct{ aof, cluster bool }

// A sharedServer is started once, by the first test that asks for it.
type sharedServer struct {
	once sync.Once
	srv  *Server
	err  error
}

// A sharedCluster is started once, by the first test that asks for it.
type sharedCluster struct {
	once sync.Once
	c    *Cluster
	dir  string
	err  error
}

// Main runs the package's tests, then kills the servers Shared and
// SharedCluster started. A
// package whose tests call Shared calls it from its TestMain:
//
//	func TestMain(m *testing.M) { redistest.Main(m) }
//
// The test binary then exits with m.Run's code.
func Main(m *testing.M) {
	shared.mu.Lock()
	shared.main = true
	shared.mu.Unlock()
	defer stopShared()
	m.Run()
}

// Shared returns the server with opts that the package's tests share,
// started by the first test that asks for it: for a server slow to start,
// as a cluster is (a new node waits a while before it serves). The tests
// on it keep apart by their key prefixes (Prefix) and channels; none may
// stop, restart or flush it. It needs Main in the package's TestMain, and
// fails the test without it.
func Shared(t testing.TB, opts ...Option) *Server {
	t.Helper()
	s := newServer(t, opts)
	shared.mu.Lock()
	if !shared.main {
		shared.mu.Unlock()
		t.Fatal("redistest: Shared needs redistest.Main in the package's TestMain")
	}
	k := kind{aof: s.aof, cluster: s.cluster}
	if shared.servers == nil {
		shared.servers = map[kind]*sharedServer{}
	}
	ss := shared.servers[k]
	if ss == nil {
		ss = &sharedServer{}
		shared.servers[k] = ss
	}
	shared.mu.Unlock()
	ss.once.Do(func() {
		if s.dir, ss.err = os.MkdirTemp("", "redistest-"); ss.err != nil {
			return
		}
		ss.srv = s
		ss.err = s.launchOnFreePort()
	})
	if ss.err != nil {
		t.Fatalf("redistest: shared server: %v", ss.err)
	}
	return ss.srv
}

// SharedCluster returns the cluster of three masters with a replica each
// that the package's tests share, started by the first test that asks for
// it (a cluster takes a second or two to start). The tests on it keep
// apart by their key prefixes; none may kill, stop or flush a node, which
// the tests that do want a cluster of their own (StartCluster). It needs
// Main in the package's TestMain, and fails the test without it.
func SharedCluster(t testing.TB) *Cluster {
	t.Helper()
	c := newCluster(t, 3, 1, nil)
	shared.mu.Lock()
	main := shared.main
	sc := &shared.cluster
	shared.mu.Unlock()
	if !main {
		t.Fatal("redistest: SharedCluster needs redistest.Main in the package's TestMain")
	}
	sc.once.Do(func() {
		if sc.dir, sc.err = os.MkdirTemp("", "redistest-cluster-"); sc.err != nil {
			return
		}
		shared.mu.Lock()
		sc.c = c // for stopShared, even if the start fails halfway
		shared.mu.Unlock()
		sc.err = c.start(sc.dir)
	})
	if sc.err != nil {
		t.Fatalf("redistest: shared cluster: %v", sc.err)
	}
	return sc.c
}

// stopShared kills the shared servers and cluster and removes their
// folders.
func stopShared() {
	shared.mu.Lock()
	defer shared.mu.Unlock()
	for _, ss := range shared.servers {
		if ss.srv != nil {
			ss.srv.Kill()
			os.RemoveAll(ss.srv.dir)
		}
	}
	shared.servers = nil
	if sc := &shared.cluster; sc.c != nil {
		sc.c.kill()
		os.RemoveAll(sc.dir)
	}
}
