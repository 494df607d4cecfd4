package ws

import "sync"

// sendQueue is a connection's queue of outgoing messages, bounded at
// limit messages and budget bytes, and the state of its writer: at most one
// writer runs at a time, and only while the queue holds something to write
// (messages, a due ping, the end). It holds memory only while messages
// wait: a buffered channel of SendQueue slots would hold all its slots for
// the whole life of every connection, idle or not.
//
// A message's bytes count from its push until the writer, having written
// it, comes back for the next batch (or the writing ends): a message being
// written is held in memory as much as a waiting one.
type sendQueue struct {
	mu       sync.Mutex
	msgs     [][]byte
	limit    int
	budget   int64         // most bytes held: the queue's and the writer's batch
	bytes    int64         // held now: the queued messages' and the batch's
	batch    int64         // bytes of the writer's batch: released at its next turn
	running  bool          // a writer runs (or has been told to start)
	pingDue  bool          // the ping timer fired; the writer sends the ping
	ended    bool          // the connection is ending: nothing more is queued
	finished bool          // the last writer has returned: nothing more is written
	done     chan struct{} // closed when finished is set
}

// maxKeptQueue is the capacity, in messages, up to which the queue and the
// writer keep their slices for reuse; after a larger burst they let them
// go, so that a connection that once fell behind does not keep the room.
const maxKeptQueue = 32

// newSendQueue makes a queue of limit messages and DefaultSendBudget
// bytes; a connection sets its own budget.
func newSendQueue(limit int) sendQueue {
	return sendQueue{limit: limit, budget: DefaultSendBudget, done: make(chan struct{})}
}

// claim makes the caller the writer, unless one runs or the writing is
// over; the caller holds q.mu.
func (q *sendQueue) claim() bool {
	if q.running || q.finished {
		return false
	}
	q.running = true
	return true
}

// push adds msg unless limit messages already wait, msg would take the
// bytes held over the budget, or the connection is ending; it never
// blocks. With start, the caller must start the writer.
func (q *sendQueue) push(msg []byte) (ok, start bool) {
	n := int64(len(msg))
	q.mu.Lock()
	defer q.mu.Unlock()
	if q.ended || len(q.msgs) >= q.limit || q.bytes+n > q.budget {
		return false, false
	}
	q.msgs = append(q.msgs, msg)
	q.bytes += n
	return true, q.claim()
}

// queuePing asks for a ping. With start, the caller must run the writer.
func (q *sendQueue) queuePing() (start bool) {
	q.mu.Lock()
	defer q.mu.Unlock()
	if q.ended {
		return false
	}
	q.pingDue = true
	return q.claim()
}

// end marks the connection as ending: from now on nothing is queued, and
// the writer writes the close. With drop, the waiting messages are let go
// at once (they will not be written). With start, the caller must run the
// writer.
func (q *sendQueue) end(drop bool) (start bool) {
	q.mu.Lock()
	defer q.mu.Unlock()
	q.ended = true
	if drop {
		clear(q.msgs)
		q.msgs = nil
		q.bytes = q.batch
	}
	return q.claim()
}

// next is the writer's turn: it releases the bytes of the previous batch
// (written by now), returns every waiting message, in order, whether a
// ping is due and whether the connection is ending, and leaves the queue
// empty; spare (whose messages the writer has written) becomes the queue's
// next slice. When there is nothing to do (no message, no ping, not
// ending) the writer's run is over: running is cleared in the same
// critical section, so that the next push starts a new writer, and spare
// is dropped.
func (q *sendQueue) next(spare [][]byte) (msgs [][]byte, ping, ending, idle bool) {
	clear(spare)
	if cap(spare) > maxKeptQueue {
		spare = nil
	}
	q.mu.Lock()
	defer q.mu.Unlock()
	q.bytes -= q.batch
	q.batch = q.bytes // every message held is in the batch handed out
	if len(q.msgs) == 0 && !q.pingDue && !q.ended {
		q.running = false
		q.msgs = nil // an idle connection holds no slice
		return nil, false, false, true
	}
	msgs, ping, ending = q.msgs, q.pingDue, q.ended
	q.msgs, q.pingDue = spare[:0], false
	return msgs, ping, ending, false
}

// drain is next for a queue that no writer ever writes (a Detached
// connection's, whose running stays set): it releases the previous batch
// and returns every waiting message, in order, as the next batch.
func (q *sendQueue) drain(spare [][]byte) [][]byte {
	clear(spare)
	if cap(spare) > maxKeptQueue {
		spare = nil
	}
	q.mu.Lock()
	defer q.mu.Unlock()
	q.bytes -= q.batch
	q.batch = q.bytes
	msgs := q.msgs
	q.msgs = spare[:0]
	return msgs
}

// take returns every waiting message, in order, and leaves the queue
// empty, as next does, for the writer that writes the close.
func (q *sendQueue) take() [][]byte {
	q.mu.Lock()
	defer q.mu.Unlock()
	msgs := q.msgs
	q.msgs = nil
	q.batch = q.bytes
	return msgs
}

// finish records that the last writer has returned, and releases what it
// held; only the running writer calls it, once.
func (q *sendQueue) finish() {
	q.mu.Lock()
	q.finished, q.running, q.msgs = true, false, nil
	q.bytes, q.batch = 0, 0
	q.mu.Unlock()
	close(q.done)
}

// heldBytes is how many bytes of messages the queue and the writer's batch
// hold, as the budget counts them.
func (q *sendQueue) heldBytes() int64 {
	q.mu.Lock()
	defer q.mu.Unlock()
	return q.bytes
}
