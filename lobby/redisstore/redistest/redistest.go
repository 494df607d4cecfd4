// Package redistest starts throw-away redis-server processes for tests: each
// on a free loopback port of its own, with its data in the test's temporary
// folder, killed when the test ends (Start), or shared by a package's tests
// and killed after them (Shared). A Redis Cluster of several such processes,
// masters with their replicas, made by redis-cli --cluster create, is
// started the same two ways (StartCluster, SharedCluster; cluster.go). It
// never talks to any other Redis.
//
// Without redis-server (or, for a cluster, redis-cli) in PATH a test that
// calls Start is skipped, or fails when the environment has
// KLONDIKE_REQUIRE_REDIS=1 (as CI does).
package redistest

import (
	"bufio"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
)

// RequireEnv names the variable that turns a missing redis-server from a
// skip into a failure.
const RequireEnv = "KLONDIKE_REQUIRE_REDIS"

const (
	startTimeout = 10 * time.Second // for a server to answer PING
	stopTimeout  = 10 * time.Second // for a server to exit on SIGTERM
	startTries   = 5                // ports tried before giving up
)

// An Option changes how a server runs.
type Option func(*Server)

// WithAOF turns on the append-only file (fsync every second), so that data
// comes back after Restart.
func WithAOF() Option { return func(s *Server) { s.aof = true } }

// WithCluster runs the server as a one-node Redis Cluster that serves every
// slot; Client then returns a cluster client. Multi-key commands and scripts
// whose keys are in different slots fail on it as on a real cluster.
func WithCluster() Option { return func(s *Server) { s.cluster = true } }

// A Server is one redis-server process.
type Server struct {
	bin     string
	dir     string
	port    int
	aof     bool
	cluster bool
	// A node of a multi-node cluster (cluster.go): it gets its bus port
	// and settings from the cluster, and serves no slot until the cluster
	// is created.
	member  bool
	busPort int
	extra   []string // more redis-server arguments

	mu   sync.Mutex
	cmd  *exec.Cmd
	done chan struct{} // closed when cmd has exited
}

// Start starts a server for the test and stops it when the test ends.
func Start(t testing.TB, opts ...Option) *Server {
	t.Helper()
	s := newServer(t, opts)
	s.dir = t.TempDir()
	t.Cleanup(s.Kill)
	if err := s.launchOnFreePort(); err != nil {
		t.Fatalf("redistest: %v", err)
	}
	return s
}

// newServer returns a server with opts, not started yet, or skips the test
// without redis-server.
func newServer(t testing.TB, opts []Option) *Server {
	t.Helper()
	bin, err := exec.LookPath("redis-server")
	if err != nil {
		if os.Getenv(RequireEnv) == "1" {
			t.Fatalf("redis-server not installed, and %s=1", RequireEnv)
		}
		t.Skip("redis-server not installed")
	}
	s := &Server{bin: bin}
	for _, o := range opts {
		o(s)
	}
	return s
}

// launchOnFreePort starts the server on a free port, trying another one
// when the port was taken meanwhile.
func (s *Server) launchOnFreePort() error {
	var err error
	for range startTries {
		if s.port, err = freePort(); err != nil {
			continue
		}
		// A cluster node's bus port would be port+10000, which may be
		// taken or beyond 65535: it gets a free one of its own.
		if s.member {
			if s.busPort, err = freePort(); err != nil || s.busPort == s.port {
				continue
			}
		}
		if err = s.launch(); err == nil {
			return nil
		}
	}
	return err
}

// freePort returns a loopback port that was free a moment ago.
func freePort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}

// Addr returns the server's host:port.
func (s *Server) Addr() string { return "127.0.0.1:" + strconv.Itoa(s.port) }

// Port returns the server's port.
func (s *Server) Port() int { return s.port }

// URL returns the server's redis:// URL, database 0.
func (s *Server) URL() string { return "redis://" + s.Addr() + "/0" }

// Dir returns the server's working folder (its log, its AOF files).
func (s *Server) Dir() string { return s.dir }

// Cluster reports whether the server runs as a cluster (WithCluster).
func (s *Server) Cluster() bool { return s.cluster }

// UniversalOptions returns client options for the server, to adjust before
// redis.NewUniversalClient.
func (s *Server) UniversalOptions() *redis.UniversalOptions {
	return &redis.UniversalOptions{Addrs: []string{s.Addr()}, IsClusterMode: s.cluster}
}

// Client returns a new client of the server, closed when the test ends.
func (s *Server) Client(t testing.TB) redis.UniversalClient {
	c := redis.NewUniversalClient(s.UniversalOptions())
	t.Cleanup(func() { c.Close() })
	return c
}

// Prefix returns a key prefix no other test uses: "test:<random>:".
func Prefix(t testing.TB) string {
	var b [6]byte
	if _, err := rand.Read(b[:]); err != nil {
		t.Fatal(err)
	}
	return "test:" + hex.EncodeToString(b[:]) + ":"
}

// Kill ends the server at once (SIGKILL), as a crash would; data not yet in
// the AOF is lost. It does nothing if the server is not running.
func (s *Server) Kill() { s.stop(syscall.SIGKILL) }

// Stop shuts the server down (SIGTERM: it flushes its AOF first) and
// waits for it to exit, killing it after 10 s.
func (s *Server) Stop() { s.stop(syscall.SIGTERM) }

func (s *Server) stop(sig syscall.Signal) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.cmd == nil {
		return
	}
	_ = s.cmd.Process.Signal(sig)
	select {
	case <-s.done:
	case <-time.After(stopTimeout):
		_ = s.cmd.Process.Kill()
		<-s.done
	}
	s.cmd = nil
}

// Start starts the server again after Stop or Kill, on the same port and
// with the same folder.
func (s *Server) Start(t testing.TB) {
	t.Helper()
	var err error
	for try := 0; try < startTries; try++ {
		if try > 0 {
			time.Sleep(100 * time.Millisecond) // the port may still be held
		}
		if err = s.launch(); err == nil {
			return
		}
	}
	t.Fatalf("redistest: restart: %v", err)
}

// Restart stops the server and starts it again: with WithAOF the data is
// back.
func (s *Server) Restart(t testing.TB) {
	t.Helper()
	s.Stop()
	s.Start(t)
}

// launch runs redis-server on s.port and waits until it answers.
func (s *Server) launch() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.cmd != nil {
		return errors.New("server already running")
	}
	args := []string{
		"--port", strconv.Itoa(s.port), "--bind", "127.0.0.1", "--save", "", "--dir", s.dir,
		"--logfile", "redis.log", "--daemonize", "no",
	}
	if s.aof {
		args = append(args, "--appendonly", "yes", "--appendfsync", "everysec")
	} else {
		args = append(args, "--appendonly", "no")
	}
	if s.cluster {
		args = append(args, "--cluster-enabled", "yes", "--cluster-config-file", "nodes.conf")
	}
	if s.member {
		args = append(args, "--cluster-port", strconv.Itoa(s.busPort))
	}
	args = append(args, s.extra...)
	cmd := exec.Command(s.bin, args...)
	cmd.Dir = s.dir
	cmd.SysProcAttr = sysProcAttr()
	if err := cmd.Start(); err != nil {
		return err
	}
	done := make(chan struct{})
	go func() { _ = cmd.Wait(); close(done) }()
	if err := s.waitReady(cmd.Process.Pid, done); err != nil {
		_ = cmd.Process.Kill()
		<-done
		return fmt.Errorf("redis-server on port %d: %v%s", s.port, err, s.logTail())
	}
	s.cmd, s.done = cmd, done
	return nil
}

// waitReady waits until the server with process id pid answers on s.port
// (not another server that took the port first) and, for a cluster, serves
// every slot.
func (s *Server) waitReady(pid int, done <-chan struct{}) error {
	deadline := time.Now().Add(startTimeout)
	var last error
	for time.Now().Before(deadline) {
		select {
		case <-done:
			return errors.New("exited while starting")
		case <-time.After(10 * time.Millisecond):
		}
		info, err := s.Do("INFO", "server")
		if err != nil {
			last = err
			continue
		}
		if !strings.Contains(info, "process_id:"+strconv.Itoa(pid)+"\r\n") {
			return errors.New("another process answers on the port")
		}
		if !s.cluster || s.member {
			return nil
		}
		info, err = s.Do("CLUSTER", "INFO")
		if err != nil {
			last = err
			continue
		}
		if strings.Contains(info, "cluster_state:ok") {
			return nil
		}
		// A new node serves no slot; a restarted one has them in nodes.conf.
		if strings.Contains(info, "cluster_slots_assigned:0\r\n") {
			if _, err := s.Do("CLUSTER", "ADDSLOTSRANGE", "0", "16383"); err != nil {
				return err
			}
		}
	}
	return fmt.Errorf("no answer within %v (last error: %v)", startTimeout, last)
}

// logTail returns the end of the server's log, for an error message.
func (s *Server) logTail() string {
	b, err := os.ReadFile(filepath.Join(s.dir, "redis.log"))
	if err != nil || len(b) == 0 {
		return ""
	}
	if len(b) > 2000 {
		b = b[len(b)-2000:]
	}
	return "\nredis.log:\n" + string(b)
}

// Do sends one command to the server on a connection of its own, without a
// client library, and returns a simple, integer or bulk reply as text (an
// array reply is an error). An error reply is returned as an error.
func (s *Server) Do(args ...string) (string, error) {
	c, err := net.DialTimeout("tcp", s.Addr(), time.Second)
	if err != nil {
		return "", err
	}
	defer c.Close()
	_ = c.SetDeadline(time.Now().Add(2 * time.Second))
	var req strings.Builder
	fmt.Fprintf(&req, "*%d\r\n", len(args))
	for _, a := range args {
		fmt.Fprintf(&req, "$%d\r\n%s\r\n", len(a), a)
	}
	if _, err := io.WriteString(c, req.String()); err != nil {
		return "", err
	}
	r := bufio.NewReader(c)
	line, err := r.ReadString('\n')
	if err != nil {
		return "", err
	}
	line = strings.TrimSuffix(line, "\r\n")
	if line == "" {
		return "", errors.New("empty reply")
	}
	switch line[0] {
	case '+', ':':
		return line[1:], nil
	case '-':
		return "", errors.New(line[1:])
	case '$':
		n, err := strconv.Atoi(line[1:])
		if err != nil || n < 0 {
			return "", fmt.Errorf("bad bulk reply %q", line)
		}
		b := make([]byte, n+2)
		if _, err := io.ReadFull(r, b); err != nil {
			return "", err
		}
		return string(b[:n]), nil
	}
	return "", fmt.Errorf("unexpected reply %q", line)
}
