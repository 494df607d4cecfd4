package client

import (
	"context"
	"encoding/json"
	"io"
	"net/http"

	"klondike/api/protocol"
)

// maxReplayBytes bounds a replay read: the longest round's log is far
// smaller.
const maxReplayBytes = 64 << 20

// A StatusError is an HTTP answer other than 200 OK.
type StatusError struct {
	Code   int
	Status string // such as "404 Not Found"
}

func (e *StatusError) Error() string { return "GET replay: " + e.Status }

// GetReplay fetches a finished round's replay log from url (the server's
// base with protocol.ReplayPath), by hc (http.DefaultClient when nil). An
// answer other than 200 OK is a *StatusError: a round not over, or
// forgotten, answers 404.
func GetReplay(ctx context.Context, hc *http.Client, url string) (*protocol.Replay, error) {
	if hc == nil {
		hc = http.DefaultClient
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return nil, err
	}
	resp, err := hc.Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, 1<<20))
		return nil, &StatusError{Code: resp.StatusCode, Status: resp.Status}
	}
	return ReadReplay(resp.Body)
}

// ReadReplay reads a replay log as the server publishes it.
func ReadReplay(r io.Reader) (*protocol.Replay, error) {
	var rep protocol.Replay
	if err := json.NewDecoder(io.LimitReader(r, maxReplayBytes)).Decode(&rep); err != nil {
		return nil, err
	}
	return &rep, nil
}
