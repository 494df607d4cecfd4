package client

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"testing"

	"klondike/api/protocol"
)

// TestGetReplay: a replay is read; any other answer is a StatusError.
func TestGetReplay(t *testing.T) {
	hs := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != protocol.ReplayPath("r1") {
			http.NotFound(w, r)
			return
		}
		w.Write([]byte(`{"round_id":"r1","seed":"42"}`))
	}))
	defer hs.Close()
	rep, err := GetReplay(context.Background(), nil, hs.URL+protocol.ReplayPath("r1"))
	if err != nil || rep.RoundID != "r1" || rep.Seed != "42" {
		t.Fatalf("GetReplay = %+v, %v", rep, err)
	}
	var se *StatusError
	if _, err := GetReplay(context.Background(), nil, hs.URL+protocol.ReplayPath("r2")); !errors.As(err, &se) || se.Code != http.StatusNotFound {
		t.Fatalf("a round not over: %v, want a 404 StatusError", err)
	}
}
