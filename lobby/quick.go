package lobby

import (
	"context"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"klondike/match"
)

// Quick matches on a node go through one queue per settings asked for. A
// request waits in its queue; a few goroutines per queue (quickWorkers)
// each take every request waiting (up to quickBatch) and seat them
// together: in the oldest open
// matches first, each match taking as many as it has seats in one change
// of its record, then in new matches, several made at once. Many
// players asking together so cost a few saves of a few records, where each
// request on its own would race the others for the same oldest match's
// record (and lose, and retry), and the open list is read once a batch
// instead of once a request.
//
// The player's seating lock is held while the request waits, as for every
// other seating. A request whose caller gives up before its batch is taken
// is dropped unseen; once taken, the caller waits for the outcome, so that
// "failed" always means "not seated".

// quickBatch bounds the requests one batch seats.
const quickBatch = 64

// quickWorkers bounds the batches of one queue being seated at once. More
// than one, so that a batch waiting on one busy match does not hold up the
// queue; few, so that batches rarely race for the same open match.
const quickWorkers = 4

// quickFirstLook is how many of the oldest open matches a quick match
// looks at before it reads the rest of the list.
const quickFirstLook = 8

// quickLookLimit bounds the open matches one batch looks at for free
// seats; quickPage is how many it reads at a time after the first
// quickFirstLook.
const (
	quickLookLimit = 200
	quickPage      = 64
)

// quickTimeout bounds the store calls of one batch. A caller waits for its
// batch once it is taken, so this also bounds that wait.
const quickTimeout = 5 * time.Second

type quickQueue struct {
	want    match.Settings
	waiting []*quickReq // guarded by Lobby.mu
	workers int         // goroutines seating its batches; guarded by Lobby.mu

	// partial is held by the worker seating a group too small to fill a
	// match, so that two workers never make two part-filled matches at
	// once: the second one seats its group in fresh, the match the first
	// made, before it makes another.
	partial sync.Mutex
	fresh   *match.Match // guarded by partial
}

type quickReq struct {
	pl    match.Player
	cur   string       // the player's current match, read under their seating lock
	state atomic.Int32 // reqWaiting, reqTaken or reqGivenUp
	done  atomic.Bool  // answered
	res   chan quickRes
}

type quickRes struct {
	info *match.MatchInfo
	err  error
}

// The states of a quick-match request.
const (
	reqWaiting int32 = iota
	reqTaken
	reqGivenUp
)

// answer gives the request its outcome; only the first answer counts.
func (r *quickReq) answer(info *match.MatchInfo, err error) {
	if r.done.CompareAndSwap(false, true) {
		r.res <- quickRes{info, err}
	}
}

// QuickMatch joins an open public quick match with the same game, draw,
// passes and scoring and a free seat, or makes one. A quick match starts by
// itself when full, or a short wait after its second player joins. It is
// rated, and seats players by rating (quickrated.go), unless p asks for a
// casual one (rated false), a seed, or the lobby keeps no ratings.
func (l *Lobby) QuickMatch(ctx context.Context, playerID string, p match.PartialSettings) (*match.MatchInfo, error) {
	pl, err := l.Player(playerID)
	if err != nil {
		return nil, err
	}
	want := match.WithDefaults(p)
	want.Public = true
	want.Rated = l.cfg.Ratings != nil && (p.Rated == nil || *p.Rated) && want.Seed == ""
	if err := want.Validate(); err != nil {
		return nil, err
	}
	if want.Rated {
		return l.quickRated(ctx, pl, want)
	}
	defer l.lockPlayer(playerID)()
	cur, err := l.free(ctx, playerID)
	if err != nil {
		return nil, err
	}
	r := &quickReq{pl: pl, cur: cur, res: make(chan quickRes, 1)}
	l.mu.Lock()
	if l.closed {
		l.mu.Unlock()
		return nil, ErrShuttingDown
	}
	q := l.quick[want]
	if q == nil {
		q = &quickQueue{want: want}
		l.quick[want] = q
	}
	q.waiting = append(q.waiting, r)
	if q.workers < quickWorkers {
		q.workers++
		go l.serveQuick(q)
	}
	l.mu.Unlock()
	select {
	case res := <-r.res:
		return res.info, res.err
	case <-ctx.Done():
		if r.state.CompareAndSwap(reqWaiting, reqGivenUp) {
			return nil, ctx.Err()
		}
		res := <-r.res
		return res.info, res.err
	}
}

// serveQuick seats a queue's requests, batch after batch, until none wait.
func (l *Lobby) serveQuick(q *quickQueue) {
	for {
		l.mu.Lock()
		if len(q.waiting) == 0 {
			if q.workers--; q.workers == 0 {
				delete(l.quick, q.want)
			}
			l.mu.Unlock()
			return
		}
		n := min(len(q.waiting), quickBatch)
		batch := make([]*quickReq, 0, n)
		for _, r := range q.waiting[:n] {
			if r.state.CompareAndSwap(reqWaiting, reqTaken) {
				batch = append(batch, r)
			}
		}
		clear(q.waiting[:n])
		q.waiting = q.waiting[n:]
		closed := l.closed
		l.mu.Unlock()
		if closed {
			answerAll(batch, ErrShuttingDown)
			continue
		}
		l.seatBatch(q, batch)
	}
}

// seatBatch seats a batch of quick-match requests and answers each.
func (l *Lobby) seatBatch(q *quickQueue, batch []*quickReq) {
	want := q.want
	defer func() {
		if v := recover(); v != nil {
			l.cfg.Logger.Error("seating quick-match players failed", "panic", v)
			answerAll(batch, fmt.Errorf("%w: seating failed", match.ErrUnavailable))
		}
	}()
	ctx, cancel := context.WithTimeout(context.Background(), quickTimeout)
	defer cancel()
	rest := l.leaveCurrent(ctx, batch)
	// The open matches, oldest first, a page at a time: the oldest few
	// (one short round trip, almost always enough), then, only if they
	// did not take everyone and there are more, larger pages, up to
	// quickLookLimit matches in all. A match that left the list and
	// joined it again while it is read can come twice: it is tried once.
	tried := map[string]bool{}
	var after int64
	for looked, limit := 0, quickFirstLook; len(rest) > 0 && looked < quickLookLimit; limit = quickPage {
		limit = min(limit, quickLookLimit-looked)
		ms, err := l.cfg.Coord.OpenMatches(ctx, after, limit)
		if err != nil {
			answerAll(rest, err)
			return
		}
		looked += len(ms)
		for _, om := range ms {
			after = om.Seq
			if len(rest) == 0 {
				return
			}
			if tried[om.ID] {
				continue
			}
			tried[om.ID] = true
			n, err := l.quickInto(ctx, om.ID, want, rest)
			if err != nil {
				answerAll(rest, err)
				return
			}
			rest = rest[n:]
		}
		if len(ms) < limit {
			break
		}
	}
	// New matches for the rest, a full match's worth of players each, made
	// at once; the last, smaller group goes through seatPartial.
	var wg sync.WaitGroup
	for len(rest) > 0 {
		k := min(len(rest), want.MaxPlayers)
		group := rest[:k]
		rest = rest[k:]
		wg.Add(1)
		go func() {
			defer wg.Done()
			if len(group) < want.MaxPlayers {
				l.seatPartial(ctx, q, group)
			} else {
				l.seatNew(ctx, want, group)
			}
		}()
	}
	wg.Wait()
}

// seatPartial seats a group too small to fill a match: in the queue's
// fresh match while it has seats, else in a new one, which becomes fresh.
// Batches seated at once by the queue's workers so fill one match instead
// of each making its own, part filled.
func (l *Lobby) seatPartial(ctx context.Context, q *quickQueue, group []*quickReq) {
	defer func() {
		if v := recover(); v != nil {
			l.cfg.Logger.Error("seating quick-match players failed", "panic", v)
			answerAll(group, fmt.Errorf("%w: seating failed", match.ErrUnavailable))
		}
	}()
	q.partial.Lock()
	defer q.partial.Unlock()
	if m := q.fresh; m != nil {
		n, err := l.seatMany(ctx, m, group)
		if err != nil {
			answerAll(group, err)
			return
		}
		group = group[n:]
		if len(group) == 0 {
			return
		}
	}
	q.fresh = l.seatNew(ctx, q.want, group)
}

// seatNew seats a group of requests in new matches: one, unless another
// request found the new match on the open list and took a seat first. It
// returns the last match it seated players in when that one has seats
// left, else nil.
func (l *Lobby) seatNew(ctx context.Context, want match.Settings, group []*quickReq) (last *match.Match) {
	defer func() {
		if v := recover(); v != nil {
			l.cfg.Logger.Error("seating quick-match players failed", "panic", v)
			answerAll(group, fmt.Errorf("%w: seating failed", match.ErrUnavailable))
		}
	}()
	for tries := 0; len(group) > 0; tries++ {
		if tries == 3 {
			answerAll(group, fmt.Errorf("%w: no match would take the players", match.ErrBusy))
			return nil
		}
		m, err := l.newMatch(ctx, want, true)
		if err != nil {
			answerAll(group, err)
			return nil
		}
		n, err := l.seatMany(ctx, m, group)
		if err != nil {
			answerAll(group, err)
			return nil
		}
		group = group[n:]
		if len(group) == 0 && len(m.Info().Players) < want.MaxPlayers {
			return m
		}
	}
	return nil
}

// quickInto seats the first of the requests in the open match id if it is
// a quick match with the wanted rules and free seats: how many it took (0
// when it took none; the caller tries the next), or an error that ends the
// batch (those not seated are answered by the caller).
func (l *Lobby) quickInto(ctx context.Context, id string, want match.Settings, reqs []*quickReq) (int, error) {
	info := l.openInfo(ctx, id)
	if info == nil {
		return 0, nil
	}
	s := info.Settings
	if !info.Quick || len(info.Players) >= s.MaxPlayers || s.Variant() != want.Variant() || s.Draw != want.Draw ||
		s.Passes != want.Passes || s.Scoring != want.Scoring || s.Rated != want.Rated ||
		(s.Deals == match.DealsWinnable) != (want.Deals == match.DealsWinnable) {
		return 0, nil
	}
	m, err := l.Match(ctx, info.ID)
	if err != nil {
		return 0, nil
	}
	return l.seatMany(ctx, m, reqs)
}

// leaveCurrent takes the batch's players out of their current matches
// first (see leaveFor), all at once, and returns those it may seat; the
// others are answered (ErrInAnotherMatch for one playing in a match that
// started since they asked).
func (l *Lobby) leaveCurrent(ctx context.Context, batch []*quickReq) []*quickReq {
	ok := make([]bool, len(batch))
	var wg sync.WaitGroup
	for i, r := range batch {
		if r.cur == "" {
			ok[i] = true
			continue
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			if err := l.leaveFor(ctx, r.pl.ID, r.cur, ""); err != nil {
				r.answer(nil, err)
				return
			}
			ok[i] = true
		}()
	}
	wg.Wait()
	rest := batch[:0:0]
	for i, r := range batch {
		if ok[i] {
			rest = append(rest, r)
		}
	}
	return rest
}

// seatMany joins as many of the requests' players to m as it has seats, in
// one change of its record, makes m their current match and answers them:
// how many it seated (the first n of reqs). A refusal that changed nothing
// (full, started, busy) is 0 and no error. Any other error may come from a
// join that landed though its answer was lost: every player of reqs gets m
// as their current match (see settle), and the error is returned.
func (l *Lobby) seatMany(ctx context.Context, m *match.Match, reqs []*quickReq) (int, error) {
	ps := make([]match.Player, len(reqs))
	for i, r := range reqs {
		ps[i] = r.pl
	}
	n, err := l.joinMany(ctx, m, ps)
	if err != nil {
		if definitelyNotJoined(err) {
			return 0, nil
		}
		l.settleAll(ctx, m, reqs)
		return 0, err
	}
	seated := reqs[:n]
	var wg sync.WaitGroup
	for _, r := range seated {
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer func() {
				if v := recover(); v != nil {
					l.cfg.Logger.Error("recording a quick-match player's match failed", "panic", v)
					l.unseat(ctx, m, r.pl.ID)
					r.answer(nil, fmt.Errorf("%w: seating failed", match.ErrUnavailable))
				}
			}()
			if err := l.point(ctx, r.pl.ID, m.ID); err != nil {
				l.unseat(ctx, m, r.pl.ID)
				r.answer(nil, err)
			}
		}()
	}
	wg.Wait()
	info := m.Info()
	for _, r := range seated {
		r.answer(info, nil) // a no-op for those answered with an error
	}
	return n, nil
}

// settleAll settles the requests' players' unknown joins to m, all at once.
func (l *Lobby) settleAll(ctx context.Context, m *match.Match, reqs []*quickReq) {
	var wg sync.WaitGroup
	for _, r := range reqs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			l.settle(ctx, m, r.pl.ID)
		}()
	}
	wg.Wait()
}

func answerAll(reqs []*quickReq, err error) {
	for _, r := range reqs {
		r.answer(nil, err)
	}
}
