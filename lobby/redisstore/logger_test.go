package redisstore_test

import (
	"bytes"
	"context"
	"encoding/json"
	"log/slog"
	"net"
	"strings"
	"sync"
	"testing"

	"github.com/redis/go-redis/v9"
	"github.com/redis/go-redis/v9/logging"

	"klondike/lobby/redisstore"
)

// lockedBuffer is a bytes.Buffer that go-redis's dialing goroutine and the
// test may use at once.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (w *lockedBuffer) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.b.Write(p)
}

func (w *lockedBuffer) String() string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.b.String()
}

// closedAddr returns a loopback address nothing listens on, so that a dial
// to it is refused at once.
func closedAddr(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	if err := ln.Close(); err != nil {
		t.Fatal(err)
	}
	return addr
}

// TestLogTo checks that a line go-redis logs itself, on a failed dial,
// reaches the slog.Logger given to LogTo as a JSON record at Warn level.
// It is not parallel: go-redis's logger is global.
func TestLogTo(t *testing.T) {
	var buf lockedBuffer
	redisstore.LogTo(slog.New(slog.NewJSONHandler(&buf, &slog.HandlerOptions{Level: slog.LevelInfo})))
	// Nothing else in the process sets go-redis's logger, so its default
	// is the state before the test.
	t.Cleanup(logging.Enable)

	c := redis.NewClient(&redis.Options{Addr: closedAddr(t), DialerRetries: 1, MaxRetries: -1})
	t.Cleanup(func() { _ = c.Close() })
	// go-redis logs a failed dial before it hands the error to Ping.
	if err := c.Ping(context.Background()).Err(); err == nil {
		t.Fatal("Ping to a closed port: got no error, want a dial error")
	}

	const want = "redis: connection pool: failed to dial after 1 attempts"
	for _, line := range strings.Split(buf.String(), "\n") {
		if line == "" {
			continue
		}
		var rec struct{ Level, Msg, Component string }
		if err := json.Unmarshal([]byte(line), &rec); err != nil {
			t.Fatalf("log line %q: not JSON: %v", line, err)
		}
		if strings.HasPrefix(rec.Msg, want) {
			if rec.Level != "WARN" || rec.Component != "redis" || rec.Msg != strings.TrimSpace(rec.Msg) {
				t.Errorf("go-redis's record: got %q, want level WARN, component redis and a trimmed msg", line)
			}
			return
		}
	}
	t.Errorf("log after a failed dial: got %q, want a JSON record with msg %q…", buf.String(), want)
}
