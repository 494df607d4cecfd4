package ws

import "testing"

// TestSendQueue checks the send queue's bound, order and writer
// hand-over, and that it lets go of the room a burst took, so that an idle
// connection holds none.
func TestSendQueue(t *testing.T) {
	const limit = 40
	q := newSendQueue(limit)
	for i := range limit {
		ok, start := q.push([]byte{byte(i)})
		if !ok {
			t.Fatalf("push of message %d of %d refused", i+1, limit)
		}
		if start != (i == 0) {
			t.Fatalf("push of message %d: start = %v; want a writer started by the first push only", i+1, start)
		}
	}
	if ok, _ := q.push([]byte{99}); ok {
		t.Fatalf("push of message %d accepted beyond the limit %d", limit+1, limit)
	}
	got, ping, ending, idle := q.next(nil)
	if len(got) != limit || ping || ending || idle {
		t.Fatalf("next() = %d messages, ping %v, ending %v, idle %v; want %d messages only", len(got), ping, ending, idle, limit)
	}
	for i, m := range got {
		if len(m) != 1 || m[0] != byte(i) {
			t.Fatalf("next()[%d] = %v, want [%d]: out of order", i, m, i)
		}
	}
	// While the writer runs, neither a push nor a ping starts another.
	if _, start := q.push([]byte("x")); start {
		t.Fatal("a push started a second writer while one runs")
	}
	if q.queuePing() {
		t.Fatal("a ping started a second writer while one runs")
	}
	rest, ping, _, idle := q.next(got)
	if len(rest) != 1 || !ping || idle {
		t.Fatalf("next() = %d messages, ping %v, idle %v; want the message and the ping queued meanwhile", len(rest), ping, idle)
	}
	if cap(q.msgs) != 0 {
		t.Errorf("after a burst of %d the queue keeps room for %d messages, want none (at most %d are kept)",
			limit, cap(q.msgs), maxKeptQueue)
	}
	// A small slice goes back to the queue while the writer runs, its
	// messages dropped.
	q.push([]byte("y"))
	again, _, _, _ := q.next(rest)
	if len(again) != 1 || cap(q.msgs) == 0 || rest[0] != nil {
		t.Errorf("a one-message slice handed back: queue room %d, its message %q; want it reused and cleared", cap(q.msgs), rest[0])
	}
	// Nothing left: the writer's run is over, the queue holds no room, and
	// the next push starts a writer.
	if _, _, _, idle := q.next(again); !idle || q.running {
		t.Fatalf("next() on an empty queue: idle %v, running %v; want the writer to stop", idle, q.running)
	}
	if cap(q.msgs) != 0 {
		t.Errorf("an idle queue keeps room for %d messages, want none", cap(q.msgs))
	}
	if !q.queuePing() {
		t.Fatal("a ping on an idle queue did not start a writer")
	}
	if _, ping, _, _ := q.next(nil); !ping {
		t.Fatal("the ping was lost")
	}
	q.next(nil) // idle again
	if ok, start := q.push([]byte("b")); !ok || !start {
		t.Fatalf("push on an idle queue: ok %v start %v; want a writer started", ok, start)
	}
	// The end: queued messages stay for the close; nothing more is queued.
	if q.end(false) {
		t.Fatal("end started a second writer while one runs")
	}
	if ok, start := q.push([]byte("late")); ok || start {
		t.Fatalf("push after the end: ok %v start %v; want it refused", ok, start)
	}
	if q.queuePing() {
		t.Fatal("a ping after the end started a writer")
	}
	msgs, _, ending, _ := q.next(nil)
	if !ending || len(msgs) != 1 || string(msgs[0]) != "b" {
		t.Fatalf("next() after the end: ending %v, %q; want ending with [b]", ending, msgs)
	}
	q.finish()
	select {
	case <-q.done:
	default:
		t.Fatal("done not closed by finish")
	}
	if q.end(false) || q.queuePing() {
		t.Fatal("a writer was started after the writing finished")
	}
	// An idle queue that ends starts the writer that writes the close.
	q2 := newSendQueue(limit)
	if !q2.end(false) {
		t.Fatal("end of an idle queue did not start a writer")
	}
}
