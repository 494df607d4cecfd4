package memstore

import (
	"context"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"math"
	"slices"
	"sync"
	"time"

	"klondike/lobby"
	"klondike/lobby/rating"
	"klondike/match"
)

// Ratings is the memory implementation of lobby.Ratings, for one process.
// Ratings, histories and ladders last as long as the process, or until
// Forget; a rated round's record lasts lobby.RatedRoundRetention by the
// process's clock. Records and history points come out as the Redis
// store's do: records as their JSON reads back, points' times to the
// microsecond in UTC. Each ladder is an order-statistic tree, so a page or
// a place costs O(log N) and its length, as on Redis. Its zero value is
// not usable: call NewRatings.
type Ratings struct {
	mu        sync.Mutex
	books     map[string]*ratingBook     // by rating key
	rounds    map[string]keptRound       // by round id
	of        map[string]map[string]bool // player -> the keys they are rated under
	lastSweep time.Time
}

var _ lobby.Ratings = (*Ratings)(nil)

// ratingBook is everything kept under one rating key.
type ratingBook struct {
	players map[string]*ratedPlayer
	ladder  rankTree // the established players' ladderKey
	lapses  rankTree // the same players' lapseKey, soonest first
}

type ratedPlayer struct {
	r       rating.Rating
	name    string
	history []lobby.RatingPoint // oldest first
	rung    string              // its key in ladder, "" when off it
	lapse   string              // its key in lapses, "" when off the ladder
}

type keptRound struct {
	rr      lobby.RatedRound
	expires time.Time
}

// Errors of arguments no caller should pass.
var (
	errNoRatingKey   = errors.New("memstore: a rated round needs an id and a rating key")
	errBadRatedRound = errors.New("memstore: every player of a rated round needs an id of their own")
)

// NewRatings returns ratings that hold nothing yet.
func NewRatings() *Ratings {
	return &Ratings{
		books: map[string]*ratingBook{}, rounds: map[string]keptRound{},
		of: map[string]map[string]bool{}, lastSweep: time.Now(),
	}
}

// Get implements lobby.Ratings.
func (s *Ratings) Get(_ context.Context, key string, ids []string) ([]rating.Rating, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make([]rating.Rating, len(ids))
	b := s.books[key]
	for i, id := range ids {
		out[i] = rating.New()
		if b == nil {
			continue
		}
		if p := b.players[id]; p != nil {
			out[i] = p.r
		}
	}
	return out, nil
}

// Apply implements lobby.Ratings: every check before any write, under one
// lock.
func (s *Ratings) Apply(_ context.Context, rr lobby.RatedRound) (lobby.RatedRound, bool, error) {
	if rr.RoundID == "" || rr.Key == "" {
		return lobby.RatedRound{}, false, errNoRatingKey
	}
	if err := checkPlayers(rr); err != nil {
		return lobby.RatedRound{}, false, err
	}
	rr, err := roundTrip(rr)
	if err != nil {
		return lobby.RatedRound{}, false, err
	}
	now := time.Now()
	s.mu.Lock()
	defer s.mu.Unlock()
	s.sweep(now)
	if k, ok := s.rounds[rr.RoundID]; ok && now.Before(k.expires) {
		return cloneRound(k.rr), false, nil
	}
	b := s.books[rr.Key]
	for _, c := range rr.Changes {
		rounds := 0
		if b != nil && b.players[c.PlayerID] != nil {
			rounds = b.players[c.PlayerID].r.Rounds
		}
		if rounds != c.Before.Rounds {
			return lobby.RatedRound{}, false, lobby.ErrRatingMoved
		}
	}
	if b == nil {
		b = &ratingBook{players: map[string]*ratedPlayer{}}
		s.books[rr.Key] = b
	}
	for _, c := range rr.Changes {
		p := b.players[c.PlayerID]
		if p == nil {
			p = &ratedPlayer{}
			b.players[c.PlayerID] = p
		}
		p.r, p.name = c.After, c.Name
		p.history = append(p.history, lobby.RatingPoint{
			RoundID: rr.RoundID, At: pointTime(rr.At), Rating: c.After.Rating, Deviation: c.After.Deviation,
		})
		if n := len(p.history); n > lobby.MaxRatingHistory {
			p.history = slices.Delete(p.history, 0, n-lobby.MaxRatingHistory)
		}
		b.offLadder(p)
		if !c.After.Provisional() {
			p.rung, p.lapse = ladderKey(c.After.Rating, c.PlayerID), lapseKey(lapseMicros(c.After), c.PlayerID)
			b.ladder.Insert(p.rung)
			b.lapses.Insert(p.lapse)
		}
		if s.of[c.PlayerID] == nil {
			s.of[c.PlayerID] = map[string]bool{}
		}
		s.of[c.PlayerID][rr.Key] = true
	}
	s.rounds[rr.RoundID] = keptRound{rr: rr, expires: now.Add(lobby.RatedRoundRetention)}
	return cloneRound(rr), true, nil
}

// Round implements lobby.Ratings.
func (s *Ratings) Round(_ context.Context, roundID string) (lobby.RatedRound, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	k, ok := s.rounds[roundID]
	if !ok || !time.Now().Before(k.expires) {
		return lobby.RatedRound{}, match.ErrNotFound
	}
	return cloneRound(k.rr), nil
}

// Ladder implements lobby.Ratings; a negative from counts as 0.
func (s *Ratings) Ladder(_ context.Context, key string, from, limit int, now time.Time) ([]lobby.LadderEntry, int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	b := s.books[key]
	if b == nil {
		return nil, 0, nil
	}
	b.dropLapsed(now)
	from = max(from, 0)
	var page []lobby.LadderEntry
	for i, k := range b.ladder.Range(from, min(limit, b.ladder.Len())) {
		id := k[8:]
		p := b.players[id]
		page = append(page, lobby.LadderEntry{Place: from + i, PlayerID: id, Name: p.name, Rating: p.r})
	}
	return page, b.ladder.Len(), nil
}

// Place implements lobby.Ratings.
func (s *Ratings) Place(_ context.Context, key, id string, now time.Time) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	b := s.books[key]
	if b == nil {
		return -1, nil
	}
	b.dropLapsed(now)
	p := b.players[id]
	if p == nil || p.rung == "" {
		return -1, nil
	}
	place, _ := b.ladder.Rank(p.rung)
	return place, nil
}

// History implements lobby.Ratings.
func (s *Ratings) History(_ context.Context, key, id string, limit int) ([]lobby.RatingPoint, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	b := s.books[key]
	if b == nil || b.players[id] == nil || limit < 1 {
		return nil, nil
	}
	h := b.players[id].history
	return slices.Clone(h[max(len(h)-limit, 0):]), nil
}

// Of implements lobby.Ratings.
func (s *Ratings) Of(_ context.Context, id string) (map[string]rating.Rating, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := map[string]rating.Rating{}
	for key := range s.of[id] {
		if p := s.books[key].players[id]; p != nil {
			out[key] = p.r
		}
	}
	return out, nil
}

// Forget implements lobby.Ratings.
func (s *Ratings) Forget(_ context.Context, id string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	for key := range s.of[id] {
		b := s.books[key]
		if p := b.players[id]; p != nil {
			b.offLadder(p)
			delete(b.players, id)
		}
	}
	delete(s.of, id)
	return nil
}

// offLadder takes p off b's ladder, if on it.
func (b *ratingBook) offLadder(p *ratedPlayer) {
	if p.rung != "" {
		b.ladder.Delete(p.rung)
		b.lapses.Delete(p.lapse)
		p.rung, p.lapse = "", ""
	}
}

// dropLapsed takes off b's ladder every player whose deviation passed
// rating.ProvisionalRD before now.
func (b *ratingBook) dropLapsed(now time.Time) {
	limit := float64(now.UnixMicro())
	for {
		first := b.lapses.Range(0, 1)
		if len(first) == 0 || fromSortable(binary.BigEndian.Uint64([]byte(first[0][:8]))) >= limit {
			return
		}
		b.offLadder(b.players[first[0][8:]])
	}
}

// sweep forgets the rounds kept past their retention, at most once a
// sweepEvery; s.mu is held.
func (s *Ratings) sweep(now time.Time) {
	if now.Sub(s.lastSweep) < sweepEvery {
		return
	}
	s.lastSweep = now
	maps.DeleteFunc(s.rounds, func(_ string, k keptRound) bool { return !now.Before(k.expires) })
}

// checkPlayers refuses a round with a player without an id, or twice.
func checkPlayers(rr lobby.RatedRound) error {
	seen := make(map[string]bool, len(rr.Changes))
	for _, c := range rr.Changes {
		if c.PlayerID == "" || seen[c.PlayerID] {
			return errBadRatedRound
		}
		seen[c.PlayerID] = true
	}
	return nil
}

// roundTrip returns rr as its JSON reads back, as the Redis store keeps it.
func roundTrip(rr lobby.RatedRound) (lobby.RatedRound, error) {
	b, err := json.Marshal(rr)
	if err != nil {
		return lobby.RatedRound{}, fmt.Errorf("memstore: rated round %s: %w", rr.RoundID, err)
	}
	var out lobby.RatedRound
	if err := json.Unmarshal(b, &out); err != nil {
		return lobby.RatedRound{}, fmt.Errorf("memstore: rated round %s: %w", rr.RoundID, err)
	}
	return out, nil
}

// cloneRound copies rr's slices, so that callers never share them.
func cloneRound(rr lobby.RatedRound) lobby.RatedRound {
	rr.Changes = slices.Clone(rr.Changes)
	rr.Apart = slices.Clone(rr.Apart)
	return rr
}

// pointTime is t as a history point keeps it on Redis.
func pointTime(t time.Time) time.Time { return time.UnixMicro(t.UnixMicro()).UTC() }

// ladderKey orders a ladder: rating descending, then player id ascending.
func ladderKey(r float64, id string) string {
	var b [8]byte
	binary.BigEndian.PutUint64(b[:], ^sortable(r))
	return string(b[:]) + id
}

// lapseKey orders the lapses: soonest first.
func lapseKey(micros float64, id string) string {
	var b [8]byte
	binary.BigEndian.PutUint64(b[:], sortable(micros))
	return string(b[:]) + id
}

// sortable maps f to an integer in the same order (-0 as 0), so that big
// endian bytes of it sort as f does.
func sortable(f float64) uint64 {
	if f == 0 {
		f = 0
	}
	b := math.Float64bits(f)
	if b>>63 == 1 {
		return ^b
	}
	return b | 1<<63
}

// fromSortable undoes sortable.
func fromSortable(u uint64) float64 {
	if u>>63 == 1 {
		return math.Float64frombits(u &^ (1 << 63))
	}
	return math.Float64frombits(^u)
}

// lapseMicros is when r lapses (rating.Rating.LapseMicros).
func lapseMicros(r rating.Rating) float64 { return r.LapseMicros() }
