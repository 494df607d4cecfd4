package webtest

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/gorilla/websocket"

	"klondike/api"
)

// listPage is how many open matches a page of list_matches holds when the
// client names no limit (docs/protocol.md, list_matches).
const listPage = 50

// startUncappedServer is startServer with no cap on the open matches or the
// new sessions of one address: every test player comes from loopback.
func startUncappedServer(t *testing.T) string {
	t.Helper()
	return startServerConfig(t, api.Config{
		MaxOpenMatchesPerIP:  -1,
		NewSessionsPerMinute: -1,
		// The matches' players hang up once they are made: their matches
		// must stay open for the whole test.
		AbandonedAfter: time.Hour,
	})
}

// openPublicMatches has n players, each on a connection of its own, open a
// public match, and returns the matches' codes in the order they were made.
func openPublicMatches(t *testing.T, base string, first, n int) []string {
	t.Helper()
	u := "ws" + strings.TrimPrefix(base, "http") + "/ws"
	codes := make([]string, 0, n)
	for i := first; i < first+n; i++ {
		conn, _, err := websocket.DefaultDialer.Dial(u, nil)
		if err != nil {
			t.Fatalf("dial %s: %v", u, err)
		}
		ask(t, conn, map[string]any{"type": "hello", "id": "h", "name": fmt.Sprintf("Host %02d", i)})
		m := ask(t, conn, map[string]any{"type": "create_match", "id": "c", "settings": map[string]any{"public": true, "max_players": 2}})
		var reply struct {
			Match struct{ Code string } `json:"match"`
		}
		if err := m.decode(&reply); err != nil || reply.Match.Code == "" {
			t.Fatalf("create_match answered %s (%v)", m.raw, err)
		}
		codes = append(codes, reply.Match.Code)
		conn.Close()
	}
	return codes
}

// A frame is one message read from the server.
type frame struct {
	raw []byte
	Re  string `json:"re"`
	Typ string `json:"type"`
}

func (f frame) decode(v any) error { return json.Unmarshal(f.raw, v) }

// ask sends msg and returns the server's reply to it, failing the test on
// an error reply; pushes read meanwhile are skipped.
func ask(t *testing.T, conn *websocket.Conn, msg map[string]any) frame {
	t.Helper()
	if err := conn.WriteJSON(msg); err != nil {
		t.Fatalf("send %v: %v", msg, err)
	}
	id := msg["id"].(string)
	if err := conn.SetReadDeadline(time.Now().Add(stepTimeout)); err != nil {
		t.Fatal(err)
	}
	for range 100 {
		_, b, err := conn.ReadMessage()
		if err != nil {
			t.Fatalf("waiting for the reply to %v: %v", msg, err)
		}
		f := frame{raw: b}
		if err := json.Unmarshal(b, &f); err != nil {
			t.Fatalf("reply to %v: %v: %s", msg, err, b)
		}
		if f.Re == id || (f.Typ == "welcome" && msg["type"] == "hello") {
			if f.Typ == "error" {
				t.Fatalf("%v answered %s", msg, b)
			}
			return f
		}
	}
	t.Fatalf("no reply to %v in 100 messages", msg)
	return frame{}
}

// listedJS is the codes the lobby lists, in order.
const listedJS = `[...document.querySelectorAll('#open-matches li.match-item')].map((e) => e.dataset.code)`

// TestPagingShowsEveryOpenMatch: with more open public matches than a page
// holds, the lobby lists the first page and a "Show more" button; the
// button appends the rest, once each and in order, and goes; the polls
// that follow keep every page shown and add a match made later at the end.
func TestPagingShowsEveryOpenMatch(t *testing.T) {
	base := startUncappedServer(t)
	codes := openPublicMatches(t, base, 1, listPage+10)

	b := newBrowser(t)
	p := b.newPage("paula", base)
	p.enterName("/", "Paula")
	p.waitJS("the first page", fmt.Sprintf(`%s.length === %d`, listedJS, listPage))
	p.waitShown("Show more", "#more-matches")
	wantListed(t, p, codes[:listPage])

	p.click("show more", "#more-matches")
	p.waitJS("the second page", fmt.Sprintf(`%s.length === %d`, listedJS, len(codes)))
	wantListed(t, p, codes)
	p.waitJS("Show more gone", fmt.Sprintf(`!%s('#more-matches')`, shownJS))
	if got := eval[string](p, "the focus", `(document.activeElement.closest('li') || {dataset: {}}).dataset.code || ''`); got != codes[listPage] {
		t.Errorf("after the last page the focus is on %q, want the Join of its first match %q", got, codes[listPage])
	}

	// A poll reads both pages again; a match made since comes at the end.
	codes = append(codes, openPublicMatches(t, base, len(codes)+1, 1)...)
	p.waitJS("the new match", fmt.Sprintf(`%s.length === %d`, listedJS, len(codes)))
	wantListed(t, p, codes)
	if p.shown("#more-matches") {
		t.Errorf("Show more is shown with every match listed")
	}
	p.checkConsole()
}

// wantListed fails the test unless the lobby lists exactly want, in order.
func wantListed(t *testing.T, p *page, want []string) {
	t.Helper()
	got := eval[[]string](p, "the listed codes", listedJS)
	if strings.Join(got, " ") != strings.Join(want, " ") {
		t.Errorf("the lobby lists %d matches %v, want %d %v", len(got), got, len(want), want)
	}
}
