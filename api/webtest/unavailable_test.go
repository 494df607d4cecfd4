package webtest

import (
	"context"
	"fmt"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"klondike/api/servertest"
	"klondike/lobby/memstore"
	"klondike/match"
)

// outageWindow is how long the store refuses moves in
// TestMoveOutlastsAnOutage: longer than a client that gives up after a few
// seconds would wait, shorter than the client's retries last.
const outageWindow = 6 * time.Second

// A failingStore is a match.Store whose Append fails as unavailable, as a
// Redis master failing over does, while refuse is set: it records nothing.
type failingStore struct {
	match.Store
	refuse  atomic.Bool
	refused atomic.Int64 // the appends refused
	first   atomic.Int64 // when the first was refused, in Unix nanoseconds
}

func (s *failingStore) Append(ctx context.Context, roundID string, epoch uint64, e match.LogEntry, st match.Standing) error {
	if s.refuse.Load() {
		s.first.CompareAndSwap(0, time.Now().UnixNano())
		s.refused.Add(1)
		return fmt.Errorf("%w: failingStore: failing over", match.ErrUnavailable)
	}
	return s.Store.Append(ctx, roundID, epoch, e, st)
}

// startFailingServer is startServer with the memory store behind a
// failingStore, which it returns.
func startFailingServer(t *testing.T) (string, *failingStore) {
	t.Helper()
	mem := memstore.NewBackends()
	store := &failingStore{Store: mem.Store}
	base := startServerConfig(t, servertest.Config{Store: store, Players: mem.Players, Coord: mem.Coord, Challenges: mem.Challenges, Records: mem.Challenges})
	return base, store
}

// TestMoveOutlastsAnOutage: a move made once while the store refuses every
// move for outageWindow lands by itself once the store is back: the page
// says the move will be sent again and never that the server is busy, the
// card shows on its foundation, the client sent only that move at that
// seq, and the server's log holds it once.
func TestMoveOutlastsAnOutage(t *testing.T) {
	t.Parallel()
	base, store := startFailingServer(t)
	b := newBrowser(t)
	p := b.newPage("olga", base)
	p.enterName("/", "Olga")
	p.practice("klondike", "1")
	p.waitShown("AH on pile 6", card("T6", "AH"))
	// Every toast shown and every move sent, from now on.
	eval[bool](p, "watch the toasts and the moves", `(() => {
		window.toastsSeen = [];
		new MutationObserver((ms) => ms.forEach((m) => m.addedNodes.forEach((n) => window.toastsSeen.push(n.textContent))))
			.observe(document.getElementById('toasts'), { childList: true });
		window.movesSent = [];
		const c = window.klondike.state.conn, send = c.send.bind(c);
		c.send = (type, body) => { if (type === 'move') window.movesSent.push(body.move + '@' + body.seq); return send(type, body); };
		return true;
	})()`)

	store.refuse.Store(true)
	p.dblclick("double-click AH", card("T6", "AH"))
	deadline := time.Now().Add(stepTimeout)
	for store.refused.Load() == 0 {
		if time.Now().After(deadline) {
			store.refuse.Store(false)
			t.Fatalf("no move reached the store within %v", stepTimeout)
		}
		time.Sleep(10 * time.Millisecond)
	}
	p.waitText("the notice that the move will be sent again", ".toast", "your move will be sent again")
	time.Sleep(time.Until(time.Unix(0, store.first.Load()).Add(outageWindow)))
	if p.shown(card("FH", "AH")) {
		t.Errorf("AH shows on its foundation while the store refuses it")
	}
	store.refuse.Store(false)

	// As a person sees it: AH inside the foundation's slot, QD turned up.
	p.waitShown("AH on its foundation", card("FH", "AH"))
	p.waitShown("QD turned up", card("T6", "QD"))
	if ah, fh := p.boxOf(card("FH", "AH")), p.boxOf(`.board [data-slot="FH"]`); !ah.overlaps(fh) {
		t.Errorf("AH at %+v, outside its foundation at %+v", ah, fh)
	}
	if p.shown(card("T6", "AH")) {
		t.Errorf("AH still shows on pile 6")
	}
	if n := eval[int](p, "the moves", `window.klondike.state.round.view.moves`); n != 1 {
		t.Errorf("the board counts %d moves, want 1", n)
	}

	toasts := eval[[]string](p, "the toasts seen", `window.toastsSeen`)
	notices := 0
	for _, s := range toasts {
		if strings.Contains(s, "busy") || strings.Contains(s, "refused") {
			t.Errorf("toast %q during the outage", s)
		}
		if strings.Contains(s, "will be sent again") {
			notices++
		}
	}
	if notices != 1 {
		t.Errorf("the notice shown %d times, want once; toasts: %q", notices, toasts)
	}
	sent := eval[[]string](p, "the moves sent", `window.movesSent`)
	if refused := store.refused.Load(); len(sent) < 2 || int64(len(sent)) != refused+1 {
		t.Errorf("sent %q with %d refused, want the refused tries and the one accepted", sent, refused)
	}
	for _, s := range sent {
		if s != sent[0] {
			t.Errorf("sent %q, want the one move at one seq", sent)
			break
		}
	}

	roundID := eval[string](p, "the round", `window.klondike.state.round.id`)
	me := eval[string](p, "the player", `window.klondike.state.me`)
	entries, err := store.Log(context.Background(), roundID, me)
	if err != nil {
		t.Fatalf("Log(%s, %s): %v", roundID, me, err)
	}
	if len(entries) != 1 || entries[0].Seq != 1 || entries[0].Move != "T6-F" {
		t.Errorf("Log(%s, %s) = %+v, want T6-F once, at seq 1", roundID, me, entries)
	}
}
