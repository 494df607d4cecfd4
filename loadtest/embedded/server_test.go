package embedded_test

import (
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"testing"
	"time"

	"github.com/gorilla/websocket"

	"klondike/loadtest/embedded"
	"klondike/lobby/redisstore/redistest"
)

// createMatch says hello to the server at wsURL and creates a match,
// failing the test unless the server answers with the match.
func createMatch(t *testing.T, wsURL string) {
	t.Helper()
	ws, _, err := websocket.DefaultDialer.Dial(wsURL, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer ws.Close()
	_ = ws.SetReadDeadline(time.Now().Add(10 * time.Second))
	for _, step := range []struct{ send, want string }{
		{`{"type":"hello","name":"alice"}`, "welcome"},
		{`{"type":"create_match","settings":{}}`, "match"},
	} {
		if err := ws.WriteMessage(websocket.TextMessage, []byte(step.send)); err != nil {
			t.Fatal(err)
		}
		for {
			_, frame, err := ws.ReadMessage()
			if err != nil {
				t.Fatalf("after %s: %v, want %s", step.send, err, step.want)
			}
			var m struct{ Type string }
			if err := json.Unmarshal(frame, &m); err != nil {
				t.Fatalf("after %s: %s: %v", step.send, frame, err)
			}
			if m.Type == step.want {
				break
			}
			if m.Type == "error" {
				t.Fatalf("after %s: %s, want %s", step.send, frame, step.want)
			}
		}
	}
}

var quiet = slog.New(slog.NewTextHandler(io.Discard, nil))

func TestStartServerMemory(t *testing.T) {
	s, err := embedded.StartServer(embedded.ServerConfig{Logger: quiet})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Stop()
	createMatch(t, s.URL)
}

// TestStartServerRedis: with Redis the server keeps its sessions and the
// matches' records there, and the commands sent are counted; with NoCoord
// the records stay in the process.
func TestStartServerRedis(t *testing.T) {
	for _, noCoord := range []bool{false, true} {
		srv := redistest.Start(t) // skips without redis-server (fails in CI, which requires it)
		r, err := embedded.OpenRedis(srv.URL())
		if err != nil {
			t.Fatal(err)
		}
		s, err := embedded.StartServer(embedded.ServerConfig{Redis: r, NoCoord: noCoord, Logger: quiet})
		if err != nil {
			t.Fatal(err)
		}
		before := r.Commands()
		createMatch(t, s.URL)
		if sent := r.Commands() - before; sent == 0 {
			t.Errorf("NoCoord %v: no command counted for a hello and a new match", noCoord)
		}
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		recs, err := srv.Client(t).Keys(ctx, "klondike-loadtest:*{m:*}:rec").Result()
		cancel()
		if err != nil {
			t.Fatal(err)
		}
		if inRedis := len(recs) > 0; inRedis == noCoord {
			t.Errorf("NoCoord %v: match records in Redis %q", noCoord, recs)
		}
		s.Stop()
	}
}
