package ws

import (
	"strings"
	"testing"
	"time"
)

// TestSendQueueBytes checks the send queue's byte accounting: a message's
// bytes are held from its push until the writer comes back for the next
// batch, or the connection ends; a push over the budget is refused, one
// that reaches it exactly is not, and a message larger than the whole
// budget never goes in.
func TestSendQueueBytes(t *testing.T) {
	const budget = 100
	q := newSendQueue(1000)
	q.budget = budget
	held := func(want int64) {
		t.Helper()
		if got := q.heldBytes(); got != want {
			t.Fatalf("heldBytes() = %d, want %d", got, want)
		}
	}
	push := func(n int, want bool) {
		t.Helper()
		if ok, _ := q.push(make([]byte, n)); ok != want {
			t.Fatalf("push of %d bytes with %d held of %d: ok = %v, want %v", n, q.heldBytes(), budget, ok, want)
		}
	}
	push(budget+1, false) // larger than the whole budget, on an empty queue
	held(0)
	push(40, true)
	push(40, true)
	push(30, false) // 110 > 100
	held(80)
	push(20, true) // exactly the budget
	push(1, false)
	held(budget)

	// The batch being written still counts, until the writer's next turn.
	batch, _, _, _ := q.next(nil)
	if len(batch) != 3 {
		t.Fatalf("next() = %d messages, want 3", len(batch))
	}
	held(budget)
	push(1, false)
	batch, _, _, idle := q.next(batch)
	if !idle || len(batch) != 0 {
		t.Fatalf("next() after the batch: %d messages, idle %v; want idle", len(batch), idle)
	}
	held(0)

	// Messages queued while a batch is written: the batch is released,
	// they are the next batch.
	push(60, true)
	batch, _, _, _ = q.next(nil)
	push(30, true)
	push(11, false) // 60 + 30 + 11 > 100
	held(90)
	batch, _, _, _ = q.next(batch)
	held(30)
	push(70, true)
	held(budget)
	batch, _, _, _ = q.next(batch)
	held(70)
	if _, _, _, idle := q.next(batch); !idle {
		t.Fatal("next() on an empty queue is not idle")
	}
	held(0)

	// The end that drops the queue (a slow consumer, a broken connection)
	// releases the waiting messages at once, the batch at finish.
	push(50, true)
	q.next(nil)
	push(30, true)
	q.end(true)
	held(50)
	push(1, false)
	if msgs, _, ending, _ := q.next(nil); !ending || len(msgs) != 0 {
		t.Fatalf("next() after end(true): %d messages, ending %v; want none, ending", len(msgs), ending)
	}
	held(0)
	q.finish()
	held(0)

	// The end that flushes keeps the waiting messages for the close,
	// counted until the writing finishes.
	q = newSendQueue(1000)
	q.budget = budget
	push(30, true)
	q.end(false)
	held(30)
	msgs, _, ending, _ := q.next(nil)
	if !ending || len(msgs) != 1 {
		t.Fatalf("next() after end(false): %d messages, ending %v; want 1, ending", len(msgs), ending)
	}
	held(30)
	q.finish()
	held(0)
}

// TestSendOverBudgetClosesSlow: one message larger than the whole budget,
// on a connection with nothing queued, closes it as a slow consumer.
func TestSendOverBudgetClosesSlow(t *testing.T) {
	const budget = 1000
	s := newTestServer(t, Limits{SendBudget: budget})
	c := s.hello(t, "p1")
	conn := s.h.conn("p1")
	// The welcome's bytes count until the writer comes back after writing
	// it, which may be just after the client has read it.
	for deadline := time.Now().Add(5 * time.Second); conn.send.heldBytes() != 0; time.Sleep(time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("%d bytes still held after the welcome", conn.send.heldBytes())
		}
	}
	if !conn.Send([]byte(`{"type":"fits","pad":"` + strings.Repeat("a", budget-50) + `"}`)) {
		t.Fatal("Send within the budget refused")
	}
	if m := recv(t, c); m["type"] != "fits" {
		t.Fatalf("got %v", m)
	}
	if conn.Send([]byte(`{"type":"big","pad":"` + strings.Repeat("a", budget) + `"}`)) {
		t.Fatalf("Send of more than the budget of %d bytes accepted", budget)
	}
	expectClose(t, c, testCloses.SlowCode, testCloses.Slow)
	s.waitClosed(t, 1)
	if v := s.m.slow.get(); v != 1 {
		t.Fatalf("slow disconnects counted %d, want 1", v)
	}
	if conn.Send([]byte(`{}`)) {
		t.Fatal("Send after the slow disconnect succeeded")
	}
}
