package redisstore

import (
	"context"
	_ "embed"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/redis/go-redis/v9"

	"klondike/lobby/challenge"
	"klondike/match"
)

// Challenges keeps challenges, their attempts and boards
// (challenge.Store) and the players' records (challenge.RecordStore) in
// Redis, shared by every node; see the package doc for its keys. Every
// round's keys share its hash tag, and each write or read of a round is
// one script run, so it works on Redis Cluster as on a single server. It
// is safe for concurrent use; its zero value is not usable: call NewChallenges.
//
// go-redis resends a command whose reply it lost. Every write here is safe
// to resend, but a resent Create, StartAttempt, Finish or AddResult
// that had done its work finds it done and reports so (not created, not
// fresh, false): callers must not take a false for proof that another
// node did the work.
type Challenges struct {
	c      redis.UniversalClient
	prefix string
}

var (
	_ challenge.Store       = (*Challenges)(nil)
	_ challenge.RecordStore = (*Challenges)(nil)
)

// recordsTTL is how long a player's records live after their last game
// counted; countedFor is how long a game stays counted, so that counting it
// again changes nothing: far longer than any game's round lives (its last
// chance to be counted), and short enough that a player's set of games
// stays small.
const (
	recordsTTL = 400 * 24 * time.Hour
	countedFor = 30 * 24 * time.Hour
)

// addTries bounds AddResult's reads and writes when other adds of the same
// player keep changing the record in between.
const addTries = 64

var (
	//go:embed challenge_create.lua
	createSrc    string
	createScript = redis.NewScript(createSrc)

	//go:embed challenge_close.lua
	closeSrc    string
	closeScript = redis.NewScript(closeSrc)

	//go:embed challenge_start.lua
	startSrc    string
	startScript = redis.NewScript(startSrc)

	//go:embed challenge_attempts.lua
	attemptsSrc    string
	attemptsScript = redis.NewScript(attemptsSrc)

	//go:embed challenge_finish.lua
	finishSrc    string
	finishScript = redis.NewScript(finishSrc)

	//go:embed challenge_board.lua
	boardSrc    string
	boardScript = redis.NewScript(boardSrc)

	//go:embed challenge_addresult.lua
	addResultSrc    string
	addResultScript = redis.NewScript(addResultSrc)

	//go:embed challenge_made.lua
	madeSrc    string
	madeScript = redis.NewScript(madeSrc)
)

// madeSlack is how much longer than its challenge an entry of a creator's
// index lives: the entry is written after the record, whose expiry Redis
// counts from its own clock, and its expiry is counted from the node's.
// Made skips and forgets an entry whose record is gone meanwhile.
const madeSlack = time.Minute

// madeTries bounds Made's reads of the index when it keeps finding entries
// of challenges gone.
const madeTries = 8

// maxPlace bounds the places and counts a page's script is given: beyond
// the length of any Redis list or sorted set (under 2³²), and below 10¹⁷,
// from which a number reaches a command from Lua in exponent form, which
// ZRANGE and LRANGE refuse. A page from further on is as empty as one
// from maxPlace.
const maxPlace = 1 << 40

// Errors of arguments no caller should pass.
var (
	errNoID     = errors.New("redisstore: a challenge needs an id")
	errBadKey   = errors.New("redisstore: a board entry's key must end in \":\" and its player id")
	errBadGame  = errors.New("redisstore: a game result needs a game id and a variant")
	errBadLimit = errors.New("redisstore: a page's limit must be positive")
)

// NewChallenges returns the Challenges of the deployment with the key prefix
// (DefaultPrefix when empty). It does not close the client.
func NewChallenges(c redis.UniversalClient, prefix string) *Challenges {
	if prefix == "" {
		prefix = DefaultPrefix
	}
	return &Challenges{c: c, prefix: prefix}
}

// keys returns the round's keys, in the order every round script takes
// them: record, attempts, started, board, entries, members.
func (a *Challenges) keys(id string) []string {
	tag := a.prefix + "{async:" + id + "}:"
	return []string{tag + "rec", tag + "attempts", tag + "started", tag + "board", tag + "entries", tag + "members"}
}

// playerKeys returns the keys of the player's records, in the order
// challenge_addresult.lua takes them: records, games, recent.
func (a *Challenges) playerKeys(playerID string) []string {
	tag := a.prefix + "{player:" + playerID + "}:"
	return []string{tag + "records", tag + "games", tag + "recent"}
}

// madeKeys returns the keys of the index of the challenges the player
// made, in the order challenge_made.lua takes them: made, madeexp.
func (a *Challenges) madeKeys(creatorID string) []string {
	tag := a.prefix + "{player:" + creatorID + "}:"
	return []string{tag + "made", tag + "madeexp"}
}

// challengeErr maps the scripts' NOTFOUND to match.ErrNotFound, and any other
// error as mapErr does.
func challengeErr(err error) error {
	if redis.HasErrorPrefix(err, "NOTFOUND") {
		return match.ErrNotFound
	}
	return mapErr(err)
}

// badReply is the error of a script reply not in the script's form.
func badReply(what string, v any) error {
	return fmt.Errorf("redisstore: %s: unexpected reply %v", what, v)
}

func decodeRecord(id, s string) (challenge.Record, error) {
	var rec challenge.Record
	if err := json.Unmarshal([]byte(s), &rec); err != nil {
		return rec, fmt.Errorf("redisstore: challenge %s: bad record: %w", id, err)
	}
	return rec, nil
}

// Create implements challenge.Store: a SET NX PX of the record, and
// a GET of the one that stands if that fails, in one script. The round's
// other keys take the record's expiry when they are made.
//
// A challenge a player made (KindChallenge with a CreatorID) is then
// indexed under its creator, in a second script on the creator's keys
// (another slot of a cluster): challenge_made.lua, which also forgets the
// creator's challenges expired by then. The record comes first, so the
// index never names a challenge not yet stored; if the index cannot be
// written, Create fails though the record stands, and a Create again of
// the same record (not created) writes the index.
func (a *Challenges) Create(ctx context.Context, rec challenge.Record, ttl time.Duration) (challenge.Record, bool, error) {
	if rec.ID == "" {
		return challenge.Record{}, false, errNoID
	}
	b, err := json.Marshal(rec)
	if err != nil {
		return challenge.Record{}, false, fmt.Errorf("redisstore: challenge %s: %w", rec.ID, err)
	}
	v, err := createScript.Run(ctx, a.c, a.keys(rec.ID)[:1], b, ms(ttl).Milliseconds()).Slice()
	if err != nil {
		return challenge.Record{}, false, challengeErr(err)
	}
	if len(v) != 2 {
		return challenge.Record{}, false, badReply("Create", v)
	}
	made, _ := v[0].(int64)
	s, ok := v[1].(string)
	if !ok {
		return challenge.Record{}, false, badReply("Create", v)
	}
	stored, err := decodeRecord(rec.ID, s)
	if err != nil {
		return stored, false, err
	}
	if stored.Kind == challenge.KindChallenge && stored.CreatorID != "" {
		now := time.Now()
		err := madeScript.Run(ctx, a.c, a.madeKeys(stored.CreatorID), stored.ID, stored.OpensAt.UnixMilli(),
			now.Add(ms(ttl)+madeSlack).UnixMilli(), now.UnixMilli()).Err()
		if err != nil {
			return challenge.Record{}, false, mapErr(err)
		}
	}
	return stored, made == 1, nil
}

// Made implements challenge.Store: a ZREVRANGE of the creator's index and
// a GET of each record (one pipeline; different slots of a cluster), so
// newest first is by OpensAt (when a player's challenge opens, which is
// when it was made), then by id, greater first. Entries whose record is
// gone, or is no challenge of the player's, leave the index (ZREMs), and
// the index is read again, up to madeTries times, for those after them.
func (a *Challenges) Made(ctx context.Context, creatorID string, limit int) ([]challenge.Record, error) {
	if limit < 1 {
		return nil, errBadLimit
	}
	keys := a.madeKeys(creatorID)
	loaded := map[string]*challenge.Record{} // nil: gone
	var out []challenge.Record
	for range madeTries {
		ids, err := a.c.ZRevRange(ctx, keys[0], 0, int64(limit-1)).Result()
		if err != nil {
			return nil, mapErr(err)
		}
		var load []string
		for _, id := range ids {
			if _, ok := loaded[id]; !ok {
				load = append(load, id)
			}
		}
		if err := a.loadMade(ctx, creatorID, load, loaded); err != nil {
			return nil, err
		}
		out = out[:0]
		var gone []string
		for _, id := range ids {
			if rec := loaded[id]; rec != nil {
				out = append(out, *rec)
			} else {
				gone = append(gone, id)
			}
		}
		if len(gone) == 0 {
			break
		}
		_, err = a.c.Pipelined(ctx, func(p redis.Pipeliner) error {
			p.ZRem(ctx, keys[0], gone)
			p.ZRem(ctx, keys[1], gone)
			return nil
		})
		if err != nil {
			return nil, mapErr(err)
		}
	}
	return out, nil
}

// loadMade reads the records of ids, one pipeline of GETs, into loaded: nil
// for one gone or no challenge the player made.
func (a *Challenges) loadMade(ctx context.Context, creatorID string, ids []string, loaded map[string]*challenge.Record) error {
	if len(ids) == 0 {
		return nil
	}
	gets := make([]*redis.StringCmd, len(ids))
	_, err := a.c.Pipelined(ctx, func(p redis.Pipeliner) error {
		for i, id := range ids {
			gets[i] = p.Get(ctx, a.keys(id)[0])
		}
		return nil
	})
	if err != nil && !errors.Is(err, redis.Nil) {
		return mapErr(err)
	}
	for i, id := range ids {
		loaded[id] = nil
		s, err := gets[i].Result()
		if errors.Is(err, redis.Nil) {
			continue
		}
		if err != nil {
			return mapErr(err)
		}
		rec, err := decodeRecord(id, s)
		if err != nil {
			return err
		}
		if rec.Kind == challenge.KindChallenge && rec.CreatorID == creatorID {
			loaded[id] = &rec
		}
	}
	return nil
}

// Load implements challenge.Store: a GET.
func (a *Challenges) Load(ctx context.Context, id string) (challenge.Record, error) {
	s, err := a.c.Get(ctx, a.keys(id)[0]).Result()
	if errors.Is(err, redis.Nil) {
		return challenge.Record{}, match.ErrNotFound
	}
	if err != nil {
		return challenge.Record{}, mapErr(err)
	}
	return decodeRecord(id, s)
}

// closeTries bounds CloseEarly's reads and writes while other writers keep
// changing the record (only other closes do).
const closeTries = 16

// CloseEarly implements challenge.Store: it reads the record, and writes
// the closed one unless the record changed meanwhile (then again). A close
// at or after the round's changes nothing.
func (a *Challenges) CloseEarly(ctx context.Context, id string, at time.Time) (challenge.Record, error) {
	key := a.keys(id)[:1]
	for range closeTries {
		old, err := a.c.Get(ctx, key[0]).Result()
		if errors.Is(err, redis.Nil) {
			return challenge.Record{}, match.ErrNotFound
		}
		if err != nil {
			return challenge.Record{}, mapErr(err)
		}
		rec, err := decodeRecord(id, old)
		if err != nil || !at.Before(rec.ClosesAt) {
			return rec, err
		}
		rec.ClosesAt, rec.ClosedEarly = at, true
		b, err := json.Marshal(rec)
		if err != nil {
			return challenge.Record{}, fmt.Errorf("redisstore: challenge %s: %w", id, err)
		}
		done, err := closeScript.Run(ctx, a.c, key, old, b).Int64()
		if err != nil {
			return challenge.Record{}, challengeErr(err)
		}
		if done == 1 {
			return decodeRecord(id, string(b))
		}
	}
	return challenge.Record{}, fmt.Errorf("%w: redisstore: challenge %s: the record kept changing", match.ErrUnavailable, id)
}

func decodeAttempt(id, s string, finished bool) (challenge.Attempt, error) {
	var at challenge.Attempt
	if err := json.Unmarshal([]byte(s), &at); err != nil {
		return at, fmt.Errorf("redisstore: challenge %s: bad attempt: %w", id, err)
	}
	at.Finished = finished
	return at, nil
}

// StartAttempt implements challenge.Store: an HSETNX in the attempts
// hash, and the player at the end of the started list, in one script;
// ErrNotFound without the round. The stored attempt's Finished is never
// set: an attempt is finished when the player has an entry.
func (a *Challenges) StartAttempt(ctx context.Context, id string, at challenge.Attempt) (challenge.Attempt, bool, error) {
	if at.PlayerID == "" {
		return challenge.Attempt{}, false, errNoPlayer
	}
	at.Finished = false
	b, err := json.Marshal(at)
	if err != nil {
		return challenge.Attempt{}, false, fmt.Errorf("redisstore: attempt of %s: %w", at.PlayerID, err)
	}
	v, err := startScript.Run(ctx, a.c, a.keys(id), at.PlayerID, b).Slice()
	if err != nil {
		return challenge.Attempt{}, false, challengeErr(err)
	}
	if len(v) != 3 {
		return challenge.Attempt{}, false, badReply("StartAttempt", v)
	}
	fresh, _ := v[0].(int64)
	s, ok := v[1].(string)
	finished, _ := v[2].(int64)
	if !ok {
		return challenge.Attempt{}, false, badReply("StartAttempt", v)
	}
	stored, err := decodeAttempt(id, s, finished == 1)
	return stored, fresh == 1 && err == nil, err
}

// Attempt implements challenge.Store: an HGET and an HEXISTS in one
// pipeline.
func (a *Challenges) Attempt(ctx context.Context, id, playerID string) (challenge.Attempt, error) {
	keys := a.keys(id)
	var get *redis.StringCmd
	var fin *redis.BoolCmd
	_, err := a.c.Pipelined(ctx, func(p redis.Pipeliner) error {
		get = p.HGet(ctx, keys[1], playerID)
		fin = p.HExists(ctx, keys[5], playerID)
		return nil
	})
	if errors.Is(err, redis.Nil) {
		return challenge.Attempt{}, match.ErrNotFound
	}
	if err != nil {
		return challenge.Attempt{}, mapErr(err)
	}
	return decodeAttempt(id, get.Val(), fin.Val())
}

// Attempts implements challenge.Store with one script run: attempts come
// in the order they started (the started list), and the cursor is the
// place of the next one (decimal). Attempts are never taken away, so a page
// never repeats an attempt nor skips one; an attempt started while a
// caller pages comes on a later page.
func (a *Challenges) Attempts(ctx context.Context, id, cursor string, limit int) ([]challenge.Attempt, string, error) {
	if limit < 1 {
		return nil, "", errBadLimit
	}
	from := 0
	if cursor != "" {
		n, err := strconv.Atoi(cursor)
		if err != nil || n < 0 {
			return nil, "", fmt.Errorf("redisstore: bad cursor %q", cursor)
		}
		from = min(n, maxPlace)
	}
	v, err := attemptsScript.Run(ctx, a.c, a.keys(id), from, min(limit, maxPlace)).Slice()
	if err != nil {
		return nil, "", challengeErr(err)
	}
	if len(v) != 2 {
		return nil, "", badReply("Attempts", v)
	}
	total, ok1 := v[0].(int64)
	raw, ok2 := v[1].([]any)
	if !ok1 || !ok2 || len(raw)%2 != 0 {
		return nil, "", badReply("Attempts", v)
	}
	out := make([]challenge.Attempt, 0, len(raw)/2)
	for i := 0; i < len(raw); i += 2 {
		s, ok := raw[i].(string)
		if !ok {
			continue // an attempt missing from the hash: none to give
		}
		fin, _ := raw[i+1].(int64)
		at, err := decodeAttempt(id, s, fin == 1)
		if err != nil {
			return nil, "", err
		}
		out = append(out, at)
	}
	next := ""
	if to := from + len(raw)/2; int64(to) < total {
		next = strconv.Itoa(to)
	}
	return out, next, nil
}

// Finish implements challenge.Store with one script run, O(log N): see
// challenge_finish.lua. ErrNotFound without the round or the player's attempt.
func (a *Challenges) Finish(ctx context.Context, id string, e match.BoardEntry) (bool, error) {
	if e.PlayerID == "" {
		return false, errNoPlayer
	}
	if _, p, _ := strings.Cut(e.Key, ":"); p != e.PlayerID {
		return false, errBadKey
	}
	e.Rank = 0
	b, err := json.Marshal(e)
	if err != nil {
		return false, fmt.Errorf("redisstore: entry of %s: %w", e.PlayerID, err)
	}
	n, err := finishScript.Run(ctx, a.c, a.keys(id), e.PlayerID, e.Key, b).Int64()
	if err != nil {
		return false, challengeErr(err)
	}
	return n == 1, nil
}

// boardRead is a read of a board (challenge_board.lua): the entries at places
// from to to (0 the first, none when to < from), and those around places
// on each side of the player's.
type boardRead struct {
	from, to int
	player   string
	around   int
}

// read runs challenge_board.lua for r; ErrNotFound without the round.
func (a *Challenges) read(ctx context.Context, id string, r boardRead) (challenge.BoardPage, error) {
	r.from, r.to, r.around = min(r.from, maxPlace), min(r.to, maxPlace), min(r.around, maxPlace)
	v, err := boardScript.Run(ctx, a.c, a.keys(id), r.from, r.to, r.player, r.around).Slice()
	if err != nil {
		return challenge.BoardPage{}, challengeErr(err)
	}
	if len(v) != 6 {
		return challenge.BoardPage{}, badReply("Board", v)
	}
	finished, ok1 := v[0].(int64)
	players, ok2 := v[1].(int64)
	list, ok3 := v[2].([]any)
	rank, ok4 := v[3].(int64)
	lo, ok5 := v[4].(int64)
	around, ok6 := v[5].([]any)
	if !ok1 || !ok2 || !ok3 || !ok4 || !ok5 || !ok6 {
		return challenge.BoardPage{}, badReply("Board", v)
	}
	page := challenge.BoardPage{Players: int(players), Finished: int(finished)}
	if page.Top, err = decodeEntries(id, list, r.from+1); err != nil {
		return challenge.BoardPage{}, err
	}
	if rank >= 0 {
		page.Rank = int(rank) + 1
		if page.Around, err = decodeEntries(id, around, int(lo)+1); err != nil {
			return challenge.BoardPage{}, err
		}
	}
	return page, nil
}

// decodeEntries decodes the script's members and entries, ranked from
// first on.
func decodeEntries(id string, raw []any, first int) ([]match.BoardEntry, error) {
	if len(raw)%2 != 0 {
		return nil, badReply("Board", raw)
	}
	out := make([]match.BoardEntry, len(raw)/2)
	for i := range out {
		m, ok1 := raw[2*i].(string)
		s, ok2 := raw[2*i+1].(string)
		if !ok1 || !ok2 {
			return nil, fmt.Errorf("redisstore: challenge %s: board member %v has no entry", id, raw[2*i])
		}
		if err := json.Unmarshal([]byte(s), &out[i]); err != nil {
			return nil, fmt.Errorf("redisstore: challenge %s: bad entry %q: %w", id, s, err)
		}
		out[i].Rank, out[i].Key = first+i, m
	}
	return out, nil
}

// Board implements challenge.Store with one script run: see
// challenge_board.lua. ErrNotFound without the round.
func (a *Challenges) Board(ctx context.Context, id string, top int, playerID string, around int) (challenge.BoardPage, error) {
	return a.read(ctx, id, boardRead{from: 0, to: max(top, 0) - 1, player: playerID, around: max(around, 0)})
}

// BoardRange implements challenge.Store with one script run (as Board);
// ErrNotFound without the round. A from below 1 counts as 1.
func (a *Challenges) BoardRange(ctx context.Context, id string, from, limit int) ([]match.BoardEntry, error) {
	from = min(max(from, 1)-1, maxPlace)
	page, err := a.read(ctx, id, boardRead{from: from, to: from + min(max(limit, 0), maxPlace) - 1})
	return page.Top, err
}

// PlayerEntry implements challenge.Store with one script run (as Board).
func (a *Challenges) PlayerEntry(ctx context.Context, id, playerID string) (match.BoardEntry, error) {
	if playerID == "" {
		return match.BoardEntry{}, match.ErrNotFound
	}
	page, err := a.read(ctx, id, boardRead{from: 0, to: -1, player: playerID})
	if err != nil {
		return match.BoardEntry{}, err
	}
	if len(page.Around) != 1 {
		return match.BoardEntry{}, match.ErrNotFound
	}
	return page.Around[0], nil
}

// AddResult implements challenge.RecordStore: it reads the player's record of
// the variant and whether the game is counted (one pipeline), adds the
// game in Go (challenge.VariantRecord.Add), and writes the record with a script
// that refuses if the record changed meanwhile, when it reads again. The
// same script puts the result in the player's recent ones, a sorted set
// by Finished that keeps challenge.MaxRecent: a result counted late goes
// where its time puts it, or nowhere if that many newer ones are kept. The
// records, the recent results and the games counted live recordsTTL past
// the player's last game counted; a game is counted once within
// countedFor.
func (a *Challenges) AddResult(ctx context.Context, playerID string, g challenge.GameResult) (bool, error) {
	if playerID == "" {
		return false, errNoPlayer
	}
	if g.GameID == "" || g.Variant == "" {
		return false, errBadGame
	}
	result, err := json.Marshal(g)
	if err != nil {
		return false, fmt.Errorf("redisstore: result of %s: %w", playerID, err)
	}
	keys := a.playerKeys(playerID)
	for range addTries {
		var rec *redis.StringCmd
		var counted *redis.FloatCmd
		_, err := a.c.Pipelined(ctx, func(p redis.Pipeliner) error {
			rec = p.HGet(ctx, keys[0], g.Variant)
			counted = p.ZScore(ctx, keys[1], g.GameID)
			return nil
		})
		if err != nil && !errors.Is(err, redis.Nil) {
			return false, mapErr(err)
		}
		if counted.Err() == nil {
			return false, nil
		}
		var v challenge.VariantRecord
		old := rec.Val()
		if old != "" {
			if err := json.Unmarshal([]byte(old), &v); err != nil {
				return false, fmt.Errorf("redisstore: records of %s: bad record %q: %w", playerID, old, err)
			}
		}
		v.Add(g)
		b, err := json.Marshal(v)
		if err != nil {
			return false, fmt.Errorf("redisstore: records of %s: %w", playerID, err)
		}
		now := time.Now().UnixMilli()
		n, err := addResultScript.Run(ctx, a.c, keys, g.Variant, old, b, g.GameID,
			now, now-countedFor.Milliseconds(), recordsTTL.Milliseconds(),
			result, g.Finished.UnixMilli(), challenge.MaxRecent).Int64()
		if err != nil {
			return false, mapErr(err)
		}
		if n >= 0 {
			return n == 1, nil
		}
	}
	return false, fmt.Errorf("%w: redisstore: records of %s kept changing", match.ErrUnavailable, playerID)
}

// Records implements challenge.RecordStore: an HGETALL.
func (a *Challenges) Records(ctx context.Context, playerID string) ([]challenge.VariantRecord, error) {
	m, err := a.c.HGetAll(ctx, a.playerKeys(playerID)[0]).Result()
	if err != nil {
		return nil, mapErr(err)
	}
	out := make([]challenge.VariantRecord, 0, len(m))
	for variant, s := range m {
		var v challenge.VariantRecord
		if err := json.Unmarshal([]byte(s), &v); err != nil {
			return nil, fmt.Errorf("redisstore: records of %s: bad record of %s: %w", playerID, variant, err)
		}
		out = append(out, v)
	}
	slices.SortFunc(out, func(x, y challenge.VariantRecord) int { return strings.Compare(x.Variant, y.Variant) })
	return out, nil
}

// Recent implements challenge.RecordStore: a ZREVRANGE of the player's
// recent results, newest first by Finished, then by their JSON, greater
// first.
func (a *Challenges) Recent(ctx context.Context, playerID string, limit int) ([]challenge.GameResult, error) {
	if limit < 1 {
		return nil, errBadLimit
	}
	raw, err := a.c.ZRevRange(ctx, a.playerKeys(playerID)[2], 0, int64(limit-1)).Result()
	if err != nil {
		return nil, mapErr(err)
	}
	out := make([]challenge.GameResult, len(raw))
	for i, s := range raw {
		if err := json.Unmarshal([]byte(s), &out[i]); err != nil {
			return nil, fmt.Errorf("redisstore: recent results of %s: bad result %q: %w", playerID, s, err)
		}
	}
	return out, nil
}

// DeleteRecords implements challenge.RecordStore: one DEL of the player's
// records, recent results and games counted (one slot), so a game counted
// before counts again. The index of the challenges the player made stays,
// as the challenges do, until they expire.
func (a *Challenges) DeleteRecords(ctx context.Context, playerID string) error {
	return mapErr(a.c.Del(ctx, a.playerKeys(playerID)...).Err())
}
