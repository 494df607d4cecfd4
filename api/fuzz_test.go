package api

import (
	"encoding/json"
	"io"
	"log/slog"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/gorilla/websocket"
)

// FuzzDecodeEnvelope checks that any frame decodes into an envelope or a
// problem, never a panic, and that an envelope's raw bytes are the frame.
func FuzzDecodeEnvelope(f *testing.F) {
	for _, s := range []string{`{"type":"hello","name":"a"}`, `{"type":1}`, `[]`, `null`, `{"type":"move","id":"` + strings.Repeat("x", 65) + `"}`, "\xff", `{"type":"x","id":{}}`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, frame []byte) {
		env, _, problem := decodeEnvelope(frame)
		if (env == nil) == (problem == "") {
			t.Fatalf("decodeEnvelope(%q) = %v, %q: want exactly one of an envelope and a problem", frame, env, problem)
		}
		if env != nil && (string(env.Raw) != string(frame) || len(env.ID) > 64) {
			t.Fatalf("decodeEnvelope(%q) = %+v", frame, env)
		}
	})
}

// FuzzServerMessage sends any frame, of every message type, to a live
// server after hello and checks that the connection still answers: no input
// can crash the server or close a connection by itself.
func FuzzServerMessage(f *testing.F) {
	types := []string{"hello", "create_match", "list_matches", "join_match", "quick_match", "leave_match",
		"ready", "start_match", "spectate", "rematch", "move", "resign", "hint", "nope"}
	bodies := []string{``, `,"settings":null`, `,"settings":{"draw":2}`, `,"settings":{"rounds":"x"}`, `,"match_id":7`,
		`,"code":"ABC"`, `,"round_id":"x","seq":-1,"move":"D"`, `,"seq":1e99`, `,"move":{"a":1}`, `,"ready":"yes"`,
		`,"settings":{"seed":"18446744073709551616"}`, `,"name":"` + strings.Repeat("é", 30) + `"`}
	for _, ty := range types {
		for _, b := range bodies {
			f.Add(`{"type":"` + ty + `"` + b + `}`)
		}
	}
	f.Add(`{"type":"create_match","settings":{"max_players":1,"countdown_s":0,"seed":"1"}}`)
	srv := NewTestServer(TestConfig{Logger: slog.New(slog.NewTextHandler(io.Discard, nil)), Limits: Limits{MsgRate: -1}})
	ts := httptest.NewServer(srv)
	f.Cleanup(func() { srv.Close(); ts.Close() })
	url := "ws" + strings.TrimPrefix(ts.URL, "http") + "/ws"
	conn, _, err := websocket.DefaultDialer.Dial(url, nil)
	if err != nil {
		f.Fatal(err)
	}
	f.Cleanup(func() { conn.Close() })
	if err := conn.WriteMessage(websocket.TextMessage, []byte(`{"type":"hello","name":"fuzz"}`)); err != nil {
		f.Fatal(err)
	}
	read := func(t *testing.T, want string) {
		t.Helper()
		_ = conn.SetReadDeadline(time.Now().Add(5 * time.Second))
		for {
			_, b, err := conn.ReadMessage()
			if err != nil {
				t.Fatalf("connection lost: %v", err)
			}
			var m struct {
				Type string `json:"type"`
				Re   string `json:"re"`
			}
			if json.Unmarshal(b, &m) == nil && m.Re == want {
				return
			}
		}
	}
	f.Fuzz(func(t *testing.T, frame string) {
		if len(frame) > DefaultReadLimit-100 {
			return // an oversized frame closes the connection by design
		}
		if err := conn.WriteMessage(websocket.TextMessage, []byte(frame)); err != nil {
			t.Fatal(err)
		}
		if err := conn.WriteMessage(websocket.TextMessage, []byte(`{"type":"list_matches","id":"probe"}`)); err != nil {
			t.Fatal(err)
		}
		read(t, "probe")
	})
}
