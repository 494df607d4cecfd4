package main

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"sort"
	"sync"
	"time"

	"klondike/api/client"
	"klondike/api/protocol"
	"klondike/engine"
)

const (
	// verifyTimeout bounds the whole check against the replays.
	verifyTimeout = 60 * time.Second
	// verifyWorkers is how many replays the check fetches at once; the
	// runner's HTTP client keeps as many idle connections.
	verifyWorkers = 4
)

// A roundRecord is what one bot had acknowledged in one round.
type roundRecord struct {
	roundID  string
	playerID string
	moves    []ackedMove
	over     bool // the bot saw the round end
}

// An ackedMove is a move the server acknowledged, at its seq.
type ackedMove struct {
	seq  int32
	move engine.Move
}

// addRecord keeps a bot's round record for the check.
func (r *runner) addRecord(rec *roundRecord) {
	r.recMu.Lock()
	r.records = append(r.records, rec)
	r.recMu.Unlock()
}

// verify compares, for every bot and every round it played, the moves the
// server acknowledged to it with the round's replay log.
func (r *runner) verify(ctx context.Context) checkReport {
	var cr checkReport
	ctx, cancel := context.WithTimeout(ctx, verifyTimeout)
	defer cancel()
	r.recMu.Lock()
	byRound := map[string][]*roundRecord{}
	for _, rec := range r.records {
		byRound[rec.roundID] = append(byRound[rec.roundID], rec)
	}
	r.recMu.Unlock()
	ids := make([]string, 0, len(byRound))
	for id := range byRound {
		ids = append(ids, id)
	}
	sort.Strings(ids)
	var mu sync.Mutex
	detail := func(format string, a ...any) {
		if len(cr.Details) < maxSamples {
			cr.Details = append(cr.Details, fmt.Sprintf(format, a...))
		}
	}
	jobs := make(chan string)
	var wg sync.WaitGroup
	for range verifyWorkers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for id := range jobs {
				rep, status, err := r.fetchReplay(ctx, id)
				mu.Lock()
				recs := byRound[id]
				switch {
				case err != nil:
					cr.Unverified += len(recs)
					cr.FetchErrors++
					detail("round %s: %v", id, err)
				case status == http.StatusNotFound:
					cr.Unverified += len(recs) // not over (or forgotten): nothing to compare
				default:
					cr.Rounds++
					for _, rec := range recs {
						compareReplay(&cr, rec, rep, detail)
					}
				}
				mu.Unlock()
			}
		}()
	}
	for _, id := range ids {
		select {
		case jobs <- id:
		case <-ctx.Done():
		}
		if ctx.Err() != nil {
			break
		}
	}
	close(jobs)
	wg.Wait()
	return cr
}

// fetchReplay reads the round's replay log over HTTP; a round not over
// (or forgotten) answers 404, which is no error.
func (r *runner) fetchReplay(ctx context.Context, id string) (*protocol.Replay, int, error) {
	rep, err := client.GetReplay(ctx, r.http, r.httpBase+protocol.ReplayPath(id))
	var se *client.StatusError
	switch {
	case errors.As(err, &se) && se.Code == http.StatusNotFound:
		return nil, se.Code, nil
	case errors.As(err, &se):
		return nil, se.Code, err
	case err != nil:
		return nil, 0, err
	}
	return rep, http.StatusOK, nil
}

// compareReplay checks one bot's acknowledged moves against the replay:
// an acknowledged seq missing from the log is lost, a seq logged twice or
// out of its place is doubled, a different move at an acknowledged seq is
// mismatched. Logged moves the bot never saw acknowledged (its connection
// ended with the move in flight) are only counted.
func compareReplay(cr *checkReport, rec *roundRecord, rep *protocol.Replay, detail func(string, ...any)) {
	cr.Records++
	var log []protocol.LogEntry
	found := false
	for _, p := range rep.Players {
		if p.PlayerID == rec.playerID {
			log, found = p.Moves, true
			break
		}
	}
	if !found {
		cr.Lost += int64(len(rec.moves))
		if len(rec.moves) > 0 {
			detail("round %s: player %s not in the replay, %d acknowledged moves", rec.roundID, rec.playerID, len(rec.moves))
		}
		return
	}
	bySeq := make(map[int]string, len(log))
	for i, e := range log {
		if _, dup := bySeq[e.Seq]; dup {
			cr.Doubled++
			detail("round %s player %s: seq %d logged twice", rec.roundID, rec.playerID, e.Seq)
			continue
		}
		if e.Seq != i+1 {
			cr.Doubled++
			detail("round %s player %s: log entry %d has seq %d", rec.roundID, rec.playerID, i+1, e.Seq)
		}
		bySeq[e.Seq] = e.Move
	}
	acked := make(map[int]bool, len(rec.moves))
	for _, a := range rec.moves {
		seq := int(a.seq)
		if acked[seq] {
			cr.Doubled++
			detail("round %s player %s: seq %d acknowledged twice", rec.roundID, rec.playerID, seq)
			continue
		}
		acked[seq] = true
		got, ok := bySeq[seq]
		if !ok {
			cr.Lost++
			detail("round %s player %s: acknowledged seq %d (%s) is not in the replay", rec.roundID, rec.playerID, seq, a.move)
			continue
		}
		if m, err := engine.ParseMove(got); err != nil || m.String() != a.move.String() {
			cr.Mismatched++
			detail("round %s player %s: seq %d acknowledged as %s, logged as %s", rec.roundID, rec.playerID, seq, a.move, got)
		}
	}
	for seq := range bySeq {
		if !acked[seq] {
			cr.RecordedNotAcked++
		}
	}
	cr.MovesChecked += int64(len(rec.moves))
}
