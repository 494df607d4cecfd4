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

	"klondike/match"
)

// Async keeps asynchronous rounds, their attempts and boards
// (match.AsyncStore) and the players' records (match.RecordStore) in
// Redis, shared by every node; see the package doc for its keys. Every
// round's keys share its hash tag, and each write or read of a round is
// one script run, so it works on Redis Cluster as on a single server. It
// is safe for concurrent use; its zero value is not usable: call NewAsync.
//
// go-redis resends a command whose reply it lost. Every write here is safe
// to resend, but a resent CreateAsync, StartAttempt, Finish or AddResult
// that had done its work finds it done and reports so (not created, not
// fresh, false): callers must not take a false for proof that another
// node did the work.
type Async struct {
	c      redis.UniversalClient
	prefix string
}

var (
	_ match.AsyncStore  = (*Async)(nil)
	_ match.RecordStore = (*Async)(nil)
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
	//go:embed async_create.lua
	asyncCreateSrc    string
	asyncCreateScript = redis.NewScript(asyncCreateSrc)

	//go:embed async_close.lua
	asyncCloseSrc    string
	asyncCloseScript = redis.NewScript(asyncCloseSrc)

	//go:embed async_start.lua
	asyncStartSrc    string
	asyncStartScript = redis.NewScript(asyncStartSrc)

	//go:embed async_attempts.lua
	asyncAttemptsSrc    string
	asyncAttemptsScript = redis.NewScript(asyncAttemptsSrc)

	//go:embed async_finish.lua
	asyncFinishSrc    string
	asyncFinishScript = redis.NewScript(asyncFinishSrc)

	//go:embed async_board.lua
	asyncBoardSrc    string
	asyncBoardScript = redis.NewScript(asyncBoardSrc)

	//go:embed async_addresult.lua
	asyncAddResultSrc    string
	asyncAddResultScript = redis.NewScript(asyncAddResultSrc)
)

// Errors of arguments no caller should pass.
var (
	errNoAsyncID = errors.New("redisstore: an asynchronous round needs an id")
	errBadKey    = errors.New("redisstore: a board entry's key must end in \":\" and its player id")
	errBadGame   = errors.New("redisstore: a game result needs a game id and a variant")
	errBadLimit  = errors.New("redisstore: a page's limit must be positive")
)

// NewAsync returns the Async of the deployment with the key prefix
// (DefaultPrefix when empty). It does not close the client.
func NewAsync(c redis.UniversalClient, prefix string) *Async {
	if prefix == "" {
		prefix = DefaultPrefix
	}
	return &Async{c: c, prefix: prefix}
}

// keys returns the round's keys, in the order every round script takes
// them: record, attempts, started, board, entries, members.
func (a *Async) keys(id string) []string {
	tag := a.prefix + "{async:" + id + "}:"
	return []string{tag + "rec", tag + "attempts", tag + "started", tag + "board", tag + "entries", tag + "members"}
}

// playerKeys returns the keys of the player's records: records, games.
func (a *Async) playerKeys(playerID string) []string {
	tag := a.prefix + "{player:" + playerID + "}:"
	return []string{tag + "records", tag + "games"}
}

// asyncErr maps the scripts' NOTFOUND to match.ErrNotFound, and any other
// error as mapErr does.
func asyncErr(err error) error {
	if redis.HasErrorPrefix(err, "NOTFOUND") {
		return match.ErrNotFound
	}
	return mapErr(err)
}

// badReply is the error of a script reply not in the script's form.
func badReply(what string, v any) error {
	return fmt.Errorf("redisstore: %s: unexpected reply %v", what, v)
}

func decodeRecord(id, s string) (match.AsyncRecord, error) {
	var rec match.AsyncRecord
	if err := json.Unmarshal([]byte(s), &rec); err != nil {
		return rec, fmt.Errorf("redisstore: asynchronous round %s: bad record: %w", id, err)
	}
	return rec, nil
}

// CreateAsync implements match.AsyncStore: a SET NX PX of the record, and
// a GET of the one that stands if that fails, in one script. The round's
// other keys take the record's expiry when they are made.
func (a *Async) CreateAsync(ctx context.Context, rec match.AsyncRecord, ttl time.Duration) (match.AsyncRecord, bool, error) {
	if rec.ID == "" {
		return match.AsyncRecord{}, false, errNoAsyncID
	}
	b, err := json.Marshal(rec)
	if err != nil {
		return match.AsyncRecord{}, false, fmt.Errorf("redisstore: asynchronous round %s: %w", rec.ID, err)
	}
	v, err := asyncCreateScript.Run(ctx, a.c, a.keys(rec.ID)[:1], b, ms(ttl).Milliseconds()).Slice()
	if err != nil {
		return match.AsyncRecord{}, false, asyncErr(err)
	}
	if len(v) != 2 {
		return match.AsyncRecord{}, false, badReply("CreateAsync", v)
	}
	made, _ := v[0].(int64)
	s, ok := v[1].(string)
	if !ok {
		return match.AsyncRecord{}, false, badReply("CreateAsync", v)
	}
	stored, err := decodeRecord(rec.ID, s)
	return stored, made == 1 && err == nil, err
}

// LoadAsync implements match.AsyncStore: a GET.
func (a *Async) LoadAsync(ctx context.Context, id string) (match.AsyncRecord, error) {
	s, err := a.c.Get(ctx, a.keys(id)[0]).Result()
	if errors.Is(err, redis.Nil) {
		return match.AsyncRecord{}, match.ErrNotFound
	}
	if err != nil {
		return match.AsyncRecord{}, mapErr(err)
	}
	return decodeRecord(id, s)
}

// closeTries bounds CloseAsync's reads and writes while other writers keep
// changing the record (only other closes do).
const closeTries = 16

// CloseAsync implements match.AsyncStore: it reads the record, and writes
// the closed one unless the record changed meanwhile (then again). A close
// at or after the round's changes nothing.
func (a *Async) CloseAsync(ctx context.Context, id string, at time.Time) (match.AsyncRecord, error) {
	key := a.keys(id)[:1]
	for range closeTries {
		old, err := a.c.Get(ctx, key[0]).Result()
		if errors.Is(err, redis.Nil) {
			return match.AsyncRecord{}, match.ErrNotFound
		}
		if err != nil {
			return match.AsyncRecord{}, mapErr(err)
		}
		rec, err := decodeRecord(id, old)
		if err != nil || !at.Before(rec.ClosesAt) {
			return rec, err
		}
		rec.ClosesAt, rec.ClosedEarly = at, true
		b, err := json.Marshal(rec)
		if err != nil {
			return match.AsyncRecord{}, fmt.Errorf("redisstore: asynchronous round %s: %w", id, err)
		}
		done, err := asyncCloseScript.Run(ctx, a.c, key, old, b).Int64()
		if err != nil {
			return match.AsyncRecord{}, asyncErr(err)
		}
		if done == 1 {
			return decodeRecord(id, string(b))
		}
	}
	return match.AsyncRecord{}, fmt.Errorf("%w: redisstore: asynchronous round %s: the record kept changing", match.ErrUnavailable, id)
}

func decodeAttempt(id, s string, finished bool) (match.Attempt, error) {
	var at match.Attempt
	if err := json.Unmarshal([]byte(s), &at); err != nil {
		return at, fmt.Errorf("redisstore: asynchronous round %s: bad attempt: %w", id, err)
	}
	at.Finished = finished
	return at, nil
}

// StartAttempt implements match.AsyncStore: an HSETNX in the attempts
// hash, and the player at the end of the started list, in one script;
// ErrNotFound without the round. The stored attempt's Finished is never
// set: an attempt is finished when the player has an entry.
func (a *Async) StartAttempt(ctx context.Context, id string, at match.Attempt) (match.Attempt, bool, error) {
	if at.PlayerID == "" {
		return match.Attempt{}, false, errNoPlayer
	}
	at.Finished = false
	b, err := json.Marshal(at)
	if err != nil {
		return match.Attempt{}, false, fmt.Errorf("redisstore: attempt of %s: %w", at.PlayerID, err)
	}
	v, err := asyncStartScript.Run(ctx, a.c, a.keys(id), at.PlayerID, b).Slice()
	if err != nil {
		return match.Attempt{}, false, asyncErr(err)
	}
	if len(v) != 3 {
		return match.Attempt{}, false, badReply("StartAttempt", v)
	}
	fresh, _ := v[0].(int64)
	s, ok := v[1].(string)
	finished, _ := v[2].(int64)
	if !ok {
		return match.Attempt{}, false, badReply("StartAttempt", v)
	}
	stored, err := decodeAttempt(id, s, finished == 1)
	return stored, fresh == 1 && err == nil, err
}

// Attempt implements match.AsyncStore: an HGET and an HEXISTS in one
// pipeline.
func (a *Async) Attempt(ctx context.Context, id, playerID string) (match.Attempt, error) {
	keys := a.keys(id)
	var get *redis.StringCmd
	var fin *redis.BoolCmd
	_, err := a.c.Pipelined(ctx, func(p redis.Pipeliner) error {
		get = p.HGet(ctx, keys[1], playerID)
		fin = p.HExists(ctx, keys[5], playerID)
		return nil
	})
	if errors.Is(err, redis.Nil) {
		return match.Attempt{}, match.ErrNotFound
	}
	if err != nil {
		return match.Attempt{}, mapErr(err)
	}
	return decodeAttempt(id, get.Val(), fin.Val())
}

// Attempts implements match.AsyncStore with one script run: attempts come
// in the order they started (the started list), and the cursor is the
// place of the next one (decimal). Attempts are never taken away, so a page
// never repeats an attempt nor skips one; an attempt started while a
// caller pages comes on a later page.
func (a *Async) Attempts(ctx context.Context, id, cursor string, limit int) ([]match.Attempt, string, error) {
	if limit < 1 {
		return nil, "", errBadLimit
	}
	from := 0
	if cursor != "" {
		n, err := strconv.Atoi(cursor)
		if err != nil || n < 0 {
			return nil, "", fmt.Errorf("redisstore: bad cursor %q", cursor)
		}
		from = n
	}
	v, err := asyncAttemptsScript.Run(ctx, a.c, a.keys(id), from, limit).Slice()
	if err != nil {
		return nil, "", asyncErr(err)
	}
	if len(v) != 2 {
		return nil, "", badReply("Attempts", v)
	}
	total, ok1 := v[0].(int64)
	raw, ok2 := v[1].([]any)
	if !ok1 || !ok2 || len(raw)%2 != 0 {
		return nil, "", badReply("Attempts", v)
	}
	out := make([]match.Attempt, 0, len(raw)/2)
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

// Finish implements match.AsyncStore with one script run, O(log N): see
// async_finish.lua. ErrNotFound without the round or the player's attempt.
func (a *Async) Finish(ctx context.Context, id string, e match.BoardEntry) (bool, error) {
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
	n, err := asyncFinishScript.Run(ctx, a.c, a.keys(id), e.PlayerID, e.Key, b).Int64()
	if err != nil {
		return false, asyncErr(err)
	}
	return n == 1, nil
}

// boardRead is a read of a board (async_board.lua): the entries at places
// from to to (0 the first, none when to < from), and those around places
// on each side of the player's.
type boardRead struct {
	from, to int
	player   string
	around   int
}

// read runs async_board.lua for r; ErrNotFound without the round.
func (a *Async) read(ctx context.Context, id string, r boardRead) (match.BoardPage, error) {
	v, err := asyncBoardScript.Run(ctx, a.c, a.keys(id), r.from, r.to, r.player, r.around).Slice()
	if err != nil {
		return match.BoardPage{}, asyncErr(err)
	}
	if len(v) != 6 {
		return match.BoardPage{}, badReply("Board", v)
	}
	finished, ok1 := v[0].(int64)
	players, ok2 := v[1].(int64)
	list, ok3 := v[2].([]any)
	rank, ok4 := v[3].(int64)
	lo, ok5 := v[4].(int64)
	around, ok6 := v[5].([]any)
	if !ok1 || !ok2 || !ok3 || !ok4 || !ok5 || !ok6 {
		return match.BoardPage{}, badReply("Board", v)
	}
	page := match.BoardPage{Players: int(players), Finished: int(finished)}
	if page.Top, err = decodeEntries(id, list, r.from+1); err != nil {
		return match.BoardPage{}, err
	}
	if rank >= 0 {
		page.Rank = int(rank) + 1
		if page.Around, err = decodeEntries(id, around, int(lo)+1); err != nil {
			return match.BoardPage{}, err
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
			return nil, fmt.Errorf("redisstore: asynchronous round %s: board member %v has no entry", id, raw[2*i])
		}
		if err := json.Unmarshal([]byte(s), &out[i]); err != nil {
			return nil, fmt.Errorf("redisstore: asynchronous round %s: bad entry %q: %w", id, s, err)
		}
		out[i].Rank, out[i].Key = first+i, m
	}
	return out, nil
}

// Board implements match.AsyncStore with one script run: see
// async_board.lua. ErrNotFound without the round.
func (a *Async) Board(ctx context.Context, id string, top int, playerID string, around int) (match.BoardPage, error) {
	return a.read(ctx, id, boardRead{from: 0, to: max(top, 0) - 1, player: playerID, around: max(around, 0)})
}

// BoardRange implements match.AsyncStore with one script run (as Board);
// ErrNotFound without the round. A from below 1 counts as 1.
func (a *Async) BoardRange(ctx context.Context, id string, from, limit int) ([]match.BoardEntry, error) {
	from = max(from, 1) - 1
	page, err := a.read(ctx, id, boardRead{from: from, to: from + max(limit, 0) - 1})
	return page.Top, err
}

// PlayerEntry implements match.AsyncStore with one script run (as Board).
func (a *Async) PlayerEntry(ctx context.Context, id, playerID string) (match.BoardEntry, error) {
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

// AddResult implements match.RecordStore: it reads the player's record of
// the variant and whether the game is counted (one pipeline), adds the
// game in Go (match.VariantRecord.Add), and writes the record with a script
// that refuses if the record changed meanwhile, when it reads again. The
// records and the games counted live recordsTTL past the player's last
// game counted; a game is counted once within countedFor.
func (a *Async) AddResult(ctx context.Context, playerID string, g match.GameResult) (bool, error) {
	if playerID == "" {
		return false, errNoPlayer
	}
	if g.GameID == "" || g.Variant == "" {
		return false, errBadGame
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
		var v match.VariantRecord
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
		n, err := asyncAddResultScript.Run(ctx, a.c, keys, g.Variant, old, b, g.GameID,
			now, now-countedFor.Milliseconds(), recordsTTL.Milliseconds()).Int64()
		if err != nil {
			return false, mapErr(err)
		}
		if n >= 0 {
			return n == 1, nil
		}
	}
	return false, fmt.Errorf("%w: redisstore: records of %s kept changing", match.ErrUnavailable, playerID)
}

// Records implements match.RecordStore: an HGETALL.
func (a *Async) Records(ctx context.Context, playerID string) ([]match.VariantRecord, error) {
	m, err := a.c.HGetAll(ctx, a.playerKeys(playerID)[0]).Result()
	if err != nil {
		return nil, mapErr(err)
	}
	out := make([]match.VariantRecord, 0, len(m))
	for variant, s := range m {
		var v match.VariantRecord
		if err := json.Unmarshal([]byte(s), &v); err != nil {
			return nil, fmt.Errorf("redisstore: records of %s: bad record of %s: %w", playerID, variant, err)
		}
		out = append(out, v)
	}
	slices.SortFunc(out, func(x, y match.VariantRecord) int { return strings.Compare(x.Variant, y.Variant) })
	return out, nil
}
