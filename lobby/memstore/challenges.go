package memstore

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"klondike/lobby/challenge"
	"klondike/match"
)

// countedFor is how long Challenges remembers that it counted a game in a
// player's records, to count it once: far longer than any game's round
// lives (its last chance to be counted), and short enough that a player's
// list of games stays small.
const countedFor = 30 * 24 * time.Hour

// Challenges is the memory implementation of challenge.Store and
// challenge.RecordStore, for one process. A round and everything in it expire
// together, at the ttl Create was given, and leave the index of the
// challenges their creator made (Made) then; players' records and recent
// results last as long as the process, or until DeleteRecords. Records, attempts and entries are stored as their
// JSON reads back, so they come out as the Redis store's do (times without
// a monotonic reading, in UTC or a fixed zone). Its zero value is not
// usable: call NewChallenges.
type Challenges struct {
	mu      sync.Mutex
	rounds  map[string]*challengeRound
	players map[string]*playerRecords
	// made indexes the challenges (KindChallenge) by their creators: the
	// ids of the rounds each made, gone ones forgotten by the sweep and
	// by Made.
	made      map[string]map[string]bool
	lastSweep time.Time
}

var (
	_ challenge.Store       = (*Challenges)(nil)
	_ challenge.RecordStore = (*Challenges)(nil)
)

type challengeRound struct {
	rec      challenge.Record
	expires  time.Time
	attempts map[string]challenge.Attempt // by player, Finished always false
	started  []string                     // players by the start of their attempts: Attempts' pages
	entries  map[string]match.BoardEntry
	board    rankTree // the entries' keys
}

type playerRecords struct {
	variants map[string]challenge.VariantRecord
	counted  map[string]bool // game ids counted in the last countedFor
	order    []countedGame   // the same, oldest first
	recent   []recentResult  // the last challenge.MaxRecent results, newest first (recentBefore)
}

// A recentResult is a result of a player's recent list as its JSON reads
// back, with the keys it is ordered by, those of the Redis store's sorted
// set: the time it finished (ms), then its JSON.
type recentResult struct {
	g    challenge.GameResult
	ms   int64
	json string
}

// recentBefore reports whether x comes before y in a recent list: newer,
// or as new and greater in its JSON (the order of ZREVRANGE).
func recentBefore(x, y recentResult) bool {
	if x.ms != y.ms {
		return x.ms > y.ms
	}
	return x.json > y.json
}

type countedGame struct {
	id string
	at time.Time
}

// Errors of arguments no caller should pass.
var (
	errNoID     = errors.New("memstore: a challenge needs an id")
	errNoPlayer = errors.New("memstore: a player id must not be empty")
	errBadKey   = errors.New("memstore: a board entry's key must end in \":\" and its player id")
	errBadGame  = errors.New("memstore: a game result needs a game id and a variant")
	errBadLimit = errors.New("memstore: a page's limit must be positive")
)

// NewChallenges returns an empty Challenges.
func NewChallenges() *Challenges {
	return &Challenges{
		rounds: map[string]*challengeRound{}, players: map[string]*playerRecords{},
		made: map[string]map[string]bool{}, lastSweep: time.Now(),
	}
}

// viaJSON returns v as its JSON reads back.
func viaJSON[T any](v T) (T, error) {
	var out T
	b, err := json.Marshal(v)
	if err == nil {
		err = json.Unmarshal(b, &out)
	}
	return out, err
}

// sweep forgets expired rounds, and the creators' index of them, at most
// once a sweepEvery; a.mu is held.
func (a *Challenges) sweep(now time.Time) {
	if now.Sub(a.lastSweep) < sweepEvery {
		return
	}
	a.lastSweep = now
	maps.DeleteFunc(a.rounds, func(_ string, r *challengeRound) bool { return !now.Before(r.expires) })
	for creator, ids := range a.made {
		maps.DeleteFunc(ids, func(id string, _ bool) bool { return !a.madeBy(a.rounds[id], creator) })
		if len(ids) == 0 {
			delete(a.made, creator)
		}
	}
}

// madeBy reports whether r is a challenge the player made (nil is none).
func (a *Challenges) madeBy(r *challengeRound, creatorID string) bool {
	return r != nil && r.rec.Kind == challenge.KindChallenge && r.rec.CreatorID == creatorID
}

// live returns the round unless it is missing or expired; a.mu is held.
func (a *Challenges) live(id string, now time.Time) (*challengeRound, error) {
	r := a.rounds[id]
	if r == nil {
		return nil, match.ErrNotFound
	}
	if !now.Before(r.expires) {
		delete(a.rounds, id)
		return nil, match.ErrNotFound
	}
	return r, nil
}

// Create implements challenge.Store. A ttl below a millisecond
// counts as one, as on Redis.
func (a *Challenges) Create(_ context.Context, rec challenge.Record, ttl time.Duration) (challenge.Record, bool, error) {
	if rec.ID == "" {
		return challenge.Record{}, false, errNoID
	}
	rec, err := viaJSON(rec)
	if err != nil {
		return challenge.Record{}, false, fmt.Errorf("memstore: round %s: %w", rec.ID, err)
	}
	now := time.Now()
	a.mu.Lock()
	defer a.mu.Unlock()
	a.sweep(now)
	if r, err := a.live(rec.ID, now); err == nil {
		return r.rec, false, nil
	}
	r := &challengeRound{
		rec: rec, expires: now.Add(max(ttl, time.Millisecond)),
		attempts: map[string]challenge.Attempt{}, entries: map[string]match.BoardEntry{},
	}
	a.rounds[rec.ID] = r
	if a.madeBy(r, rec.CreatorID) && rec.CreatorID != "" {
		ids := a.made[rec.CreatorID]
		if ids == nil {
			ids = map[string]bool{}
			a.made[rec.CreatorID] = ids
		}
		ids[rec.ID] = true
	}
	return rec, true, nil
}

// Made implements challenge.Store: newest first is by OpensAt (when a
// player's challenge opens, which is when it was made), then by id,
// greater first, as on Redis. The creator's gone challenges leave the
// index here.
func (a *Challenges) Made(_ context.Context, creatorID string, limit int) ([]challenge.Record, error) {
	if limit < 1 {
		return nil, errBadLimit
	}
	now := time.Now()
	a.mu.Lock()
	defer a.mu.Unlock()
	ids := a.made[creatorID]
	out := make([]challenge.Record, 0, min(len(ids), limit))
	for id := range ids {
		r, err := a.live(id, now)
		if err != nil || !a.madeBy(r, creatorID) {
			delete(ids, id)
			continue
		}
		out = append(out, r.rec)
	}
	if len(ids) == 0 {
		delete(a.made, creatorID)
	}
	slices.SortFunc(out, func(x, y challenge.Record) int {
		return cmp.Or(cmp.Compare(y.OpensAt.UnixMilli(), x.OpensAt.UnixMilli()), strings.Compare(y.ID, x.ID))
	})
	return out[:min(len(out), limit)], nil
}

// Load implements challenge.Store.
func (a *Challenges) Load(_ context.Context, id string) (challenge.Record, error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	r, err := a.live(id, time.Now())
	if err != nil {
		return challenge.Record{}, err
	}
	return r.rec, nil
}

// CloseEarly implements challenge.Store: a close at or after the round's
// changes nothing.
func (a *Challenges) CloseEarly(_ context.Context, id string, at time.Time) (challenge.Record, error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	r, err := a.live(id, time.Now())
	if err != nil {
		return challenge.Record{}, err
	}
	if !at.Before(r.rec.ClosesAt) {
		return r.rec, nil
	}
	rec := r.rec
	rec.ClosesAt, rec.ClosedEarly = at, true
	if rec, err = viaJSON(rec); err != nil {
		return challenge.Record{}, fmt.Errorf("memstore: round %s: %w", id, err)
	}
	r.rec = rec
	return rec, nil
}

// StartAttempt implements challenge.Store; ErrNotFound if the round is
// missing.
func (a *Challenges) StartAttempt(_ context.Context, id string, at challenge.Attempt) (challenge.Attempt, bool, error) {
	if at.PlayerID == "" {
		return challenge.Attempt{}, false, errNoPlayer
	}
	at.Finished = false
	at, err := viaJSON(at)
	if err != nil {
		return challenge.Attempt{}, false, fmt.Errorf("memstore: attempt of %s: %w", at.PlayerID, err)
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	r, err := a.live(id, time.Now())
	if err != nil {
		return challenge.Attempt{}, false, err
	}
	if old, ok := r.attempts[at.PlayerID]; ok {
		return r.attempt(old), false, nil
	}
	r.attempts[at.PlayerID] = at
	r.started = append(r.started, at.PlayerID)
	return at, true, nil
}

// attempt returns a stored attempt with its Finished set.
func (r *challengeRound) attempt(at challenge.Attempt) challenge.Attempt {
	_, at.Finished = r.entries[at.PlayerID]
	return at
}

// Attempt implements challenge.Store.
func (a *Challenges) Attempt(_ context.Context, id, playerID string) (challenge.Attempt, error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	r, err := a.live(id, time.Now())
	if err != nil {
		return challenge.Attempt{}, err
	}
	at, ok := r.attempts[playerID]
	if !ok {
		return challenge.Attempt{}, match.ErrNotFound
	}
	return r.attempt(at), nil
}

// Attempts implements challenge.Store: attempts come in the order they
// started, and the cursor is the place of the next one (decimal). Attempts
// are never taken away, so a page never repeats an attempt nor skips one;
// an attempt started while a caller pages comes on a later page.
func (a *Challenges) Attempts(_ context.Context, id, cursor string, limit int) ([]challenge.Attempt, string, error) {
	if limit < 1 {
		return nil, "", errBadLimit
	}
	from := 0
	if cursor != "" {
		n, err := strconv.Atoi(cursor)
		if err != nil || n < 0 {
			return nil, "", fmt.Errorf("memstore: bad cursor %q", cursor)
		}
		from = n
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	r, err := a.live(id, time.Now())
	if err != nil {
		return nil, "", err
	}
	from = min(from, len(r.started))
	to := min(from+limit, len(r.started))
	out := make([]challenge.Attempt, 0, to-from)
	for _, p := range r.started[from:to] {
		out = append(out, r.attempt(r.attempts[p]))
	}
	next := ""
	if to < len(r.started) {
		next = strconv.Itoa(to)
	}
	return out, next, nil
}

// entryPlayer returns the player whose entry has the board key k: what
// follows its first ':'. match.RankKey puts only digits before it.
func entryPlayer(k string) string {
	_, p, _ := strings.Cut(k, ":")
	return p
}

// Finish implements challenge.Store; ErrNotFound if the round or the
// player's attempt is missing.
func (a *Challenges) Finish(_ context.Context, id string, e match.BoardEntry) (bool, error) {
	if e.PlayerID == "" {
		return false, errNoPlayer
	}
	if entryPlayer(e.Key) != e.PlayerID {
		return false, errBadKey
	}
	e.Rank = 0
	key := e.Key
	e, err := viaJSON(e)
	if err != nil {
		return false, fmt.Errorf("memstore: entry of %s: %w", e.PlayerID, err)
	}
	e.Key = key
	a.mu.Lock()
	defer a.mu.Unlock()
	r, err := a.live(id, time.Now())
	if err != nil {
		return false, err
	}
	if _, ok := r.attempts[e.PlayerID]; !ok {
		return false, match.ErrNotFound
	}
	if _, ok := r.entries[e.PlayerID]; ok {
		return false, nil
	}
	r.board.Insert(e.Key)
	r.entries[e.PlayerID] = e
	return true, nil
}

// entriesAt returns the entries at places from to from+n-1 (0 the first),
// ranked.
func (r *challengeRound) entriesAt(from, n int) []match.BoardEntry {
	keys := r.board.Range(from, n)
	out := make([]match.BoardEntry, len(keys))
	for i, k := range keys {
		out[i] = r.entries[entryPlayer(k)]
		out[i].Rank = from + i + 1
	}
	return out
}

// Board implements challenge.Store; ErrNotFound if the round is missing.
func (a *Challenges) Board(_ context.Context, id string, top int, playerID string, around int) (challenge.BoardPage, error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	r, err := a.live(id, time.Now())
	if err != nil {
		return challenge.BoardPage{}, err
	}
	page := challenge.BoardPage{Players: len(r.attempts), Finished: r.board.Len(), Top: r.entriesAt(0, top)}
	if e, ok := r.entries[playerID]; ok {
		around = max(around, 0)
		rank, _ := r.board.Rank(e.Key)
		lo := max(rank-around, 0)
		page.Around = r.entriesAt(lo, rank+around+1-lo)
		page.Rank = rank + 1
	}
	return page, nil
}

// BoardRange implements challenge.Store; ErrNotFound if the round is
// missing. A from below 1 counts as 1.
func (a *Challenges) BoardRange(_ context.Context, id string, from, limit int) ([]match.BoardEntry, error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	r, err := a.live(id, time.Now())
	if err != nil {
		return nil, err
	}
	return r.entriesAt(max(from, 1)-1, limit), nil
}

// PlayerEntry implements challenge.Store.
func (a *Challenges) PlayerEntry(_ context.Context, id, playerID string) (match.BoardEntry, error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	r, err := a.live(id, time.Now())
	if err != nil {
		return match.BoardEntry{}, err
	}
	e, ok := r.entries[playerID]
	if !ok {
		return match.BoardEntry{}, match.ErrNotFound
	}
	rank, _ := r.board.Rank(e.Key)
	e.Rank = rank + 1
	return e, nil
}

// AddResult implements challenge.RecordStore. A game is counted once within
// countedFor; the recent list is ordered by Finished, so a result counted
// late goes where its time puts it, or nowhere if MaxRecent newer ones are
// kept.
func (a *Challenges) AddResult(_ context.Context, playerID string, g challenge.GameResult) (bool, error) {
	if playerID == "" {
		return false, errNoPlayer
	}
	if g.GameID == "" || g.Variant == "" {
		return false, errBadGame
	}
	b, err := json.Marshal(g)
	if err == nil {
		g = challenge.GameResult{}
		err = json.Unmarshal(b, &g)
	}
	if err != nil {
		return false, fmt.Errorf("memstore: result of %s: %w", playerID, err)
	}
	res := recentResult{g: g, ms: g.Finished.UnixMilli(), json: string(b)}
	now := time.Now()
	a.mu.Lock()
	defer a.mu.Unlock()
	p := a.players[playerID]
	if p == nil {
		p = &playerRecords{variants: map[string]challenge.VariantRecord{}, counted: map[string]bool{}}
		a.players[playerID] = p
	}
	for len(p.order) > 0 && now.Sub(p.order[0].at) >= countedFor {
		delete(p.counted, p.order[0].id)
		p.order = p.order[1:]
	}
	if p.counted[g.GameID] {
		return false, nil
	}
	v := p.variants[g.Variant]
	v.Add(g)
	p.variants[g.Variant] = v
	p.counted[g.GameID] = true
	p.order = append(p.order, countedGame{g.GameID, now})
	i := 0
	for i < len(p.recent) && recentBefore(p.recent[i], res) {
		i++
	}
	if i < challenge.MaxRecent {
		p.recent = slices.Insert(p.recent, i, res)
		p.recent = p.recent[:min(len(p.recent), challenge.MaxRecent)]
	}
	return true, nil
}

// Recent implements challenge.RecordStore.
func (a *Challenges) Recent(_ context.Context, playerID string, limit int) ([]challenge.GameResult, error) {
	if limit < 1 {
		return nil, errBadLimit
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	p := a.players[playerID]
	if p == nil {
		return nil, nil
	}
	out := make([]challenge.GameResult, 0, min(len(p.recent), limit))
	for _, r := range p.recent[:min(len(p.recent), limit)] {
		out = append(out, r.g)
	}
	return out, nil
}

// DeleteRecords implements challenge.RecordStore: the player's records,
// recent results and games counted are forgotten, so a game counted before
// counts again.
func (a *Challenges) DeleteRecords(_ context.Context, playerID string) error {
	a.mu.Lock()
	defer a.mu.Unlock()
	delete(a.players, playerID)
	return nil
}

// Records implements challenge.RecordStore.
func (a *Challenges) Records(_ context.Context, playerID string) ([]challenge.VariantRecord, error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	p := a.players[playerID]
	if p == nil {
		return nil, nil
	}
	out := make([]challenge.VariantRecord, 0, len(p.variants))
	for _, name := range slices.Sorted(maps.Keys(p.variants)) {
		v := p.variants[name]
		// The caller's copy shares no pointer with the stored one.
		if v.BestScore != nil {
			s := *v.BestScore
			v.BestScore = &s
		}
		if v.FastestMs != nil {
			f := *v.FastestMs
			v.FastestMs = &f
		}
		out = append(out, v)
	}
	return out, nil
}
