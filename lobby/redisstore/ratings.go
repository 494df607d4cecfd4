package redisstore

import (
	"context"
	_ "embed"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/redis/go-redis/v9"

	"klondike/lobby"
	"klondike/lobby/rating"
	"klondike/match"
)

// Ratings keeps the players' ratings (lobby.Ratings) in Redis, shared by
// every node, under the keys
//
//	<prefix>{rating:<key>}:ratings        hash: player -> their rating and name (JSON)
//	<prefix>{rating:<key>}:ladder         sorted set: the established players -> minus their rating
//	<prefix>{rating:<key>}:lapses         sorted set: the same players -> when they become provisional (µs; +inf never)
//	<prefix>{rating:<key>}:hist:<player>  list: the player's last points, newest first, "at_µs|rating|deviation|round"
//	<prefix>{rating:<key>}:round:<round>  string: a round applied under the key: its record (JSON), for lobby.RatedRoundRetention
//	<prefix>{ratedround:<round>}:key      string: the rating key the round was applied under, as long
//	<prefix>{player:<id>}:ratings         set: the rating keys the player may have a rating under
//
// Everything of one rating key shares its hash tag, so that Apply checks
// and writes all its players, their histories and the ladder in one script
// run, atomically, on Redis Cluster as on a single server; a whole key
// lives on one master. A round's key and a player's index of keys are in
// other slots: Apply writes them before its script, so that Round finds a
// record as soon as it is written and Forget every key a player may have a
// rating under (an entry for a round then refused is one Of and Forget
// find empty).
//
// The ladder's score is minus the rating: ZRANGE orders equal scores by
// member, ascending, which is the ladder's order of equal ratings by
// player id (ZREVRANGE would order them descending). The lapses are
// computed when a player's rating is written, since a rating's deviation
// grows only with time; Ladder and Place take off the ladder the players
// whose lapse is past before they read it, lapseSweep a script run.
//
// Times are the caller's, in microseconds. Ratings and histories do not
// expire: Forget deletes them. It is safe for concurrent use; its zero
// value is not usable: call NewRatings.
type Ratings struct {
	c      redis.UniversalClient
	prefix string
}

var _ lobby.Ratings = (*Ratings)(nil)

// lapseSweep bounds the players a script run takes off a ladder, so that
// a ladder left unread while many lapsed never blocks Redis long: Ladder
// and Place run it again until none is left.
const lapseSweep = 1000

var (
	//go:embed rating_apply.lua
	ratingApplySrc    string
	ratingApplyScript = redis.NewScript(ratingApplySrc)

	//go:embed rating_ladder.lua
	ratingLadderSrc    string
	ratingLadderScript = redis.NewScript(ratingLadderSrc)

	//go:embed rating_forget.lua
	ratingForgetSrc    string
	ratingForgetScript = redis.NewScript(ratingForgetSrc)
)

// Errors of arguments no caller should pass.
var (
	errNoRatingKey   = errors.New("redisstore: a rated round needs an id and a rating key")
	errBadRatedRound = errors.New("redisstore: every player of a rated round needs an id of their own")
)

// NewRatings returns the Ratings of the deployment with the key prefix
// (DefaultPrefix when empty). It does not close the client.
func NewRatings(c redis.UniversalClient, prefix string) *Ratings {
	if prefix == "" {
		prefix = DefaultPrefix
	}
	return &Ratings{c: c, prefix: prefix}
}

// storedRating is a player's value in a key's ratings: the name is the
// one of their last round, which the ladder shows.
type storedRating struct {
	rating.Rating
	Name string `json:"name"`
}

// keys returns the rating key's keys, in the order the scripts take them:
// ratings, ladder, lapses.
func (s *Ratings) keys(key string) []string {
	tag := s.tag(key)
	return []string{tag + "ratings", tag + "ladder", tag + "lapses"}
}

func (s *Ratings) tag(key string) string { return s.prefix + "{rating:" + key + "}:" }

func (s *Ratings) histKey(key, id string) string { return s.tag(key) + "hist:" + id }

func (s *Ratings) recordKey(key, roundID string) string { return s.tag(key) + "round:" + roundID }

func (s *Ratings) roundKeyKey(roundID string) string {
	return s.prefix + "{ratedround:" + roundID + "}:key"
}

func (s *Ratings) indexKey(id string) string { return s.prefix + "{player:" + id + "}:ratings" }

// Get implements lobby.Ratings: one HMGET.
func (s *Ratings) Get(ctx context.Context, key string, ids []string) ([]rating.Rating, error) {
	out := make([]rating.Rating, len(ids))
	if len(ids) == 0 {
		return out, nil
	}
	vals, err := s.c.HMGet(ctx, s.keys(key)[0], ids...).Result()
	if err != nil {
		return nil, mapErr(err)
	}
	for i, v := range vals {
		out[i] = rating.New()
		if v, ok := v.(string); ok {
			st, err := decodeRating(v)
			if err != nil {
				return nil, fmt.Errorf("redisstore: rating of %s under %s: %w", ids[i], key, err)
			}
			out[i] = st.Rating
		}
	}
	return out, nil
}

// Apply implements lobby.Ratings: the round's key and the players' indexes
// of keys first (a pipeline), then one script run on the rating key (see
// rating_apply.lua).
func (s *Ratings) Apply(ctx context.Context, rr lobby.RatedRound) (lobby.RatedRound, bool, error) {
	keys, args, err := s.applyArgs(rr)
	if err != nil {
		return lobby.RatedRound{}, false, err
	}
	_, err = s.c.Pipelined(ctx, func(p redis.Pipeliner) error {
		// NX: a round applied again under another key must not lose the
		// way to its record.
		p.SetNX(ctx, s.roundKeyKey(rr.RoundID), rr.Key, lobby.RatedRoundRetention)
		for _, c := range rr.Changes {
			p.SAdd(ctx, s.indexKey(c.PlayerID), rr.Key)
		}
		return nil
	})
	if err != nil {
		return lobby.RatedRound{}, false, mapErr(err)
	}
	reply, err := ratingApplyScript.Run(ctx, s.c, keys, args...).Slice()
	if err != nil {
		return lobby.RatedRound{}, false, mapErr(err)
	}
	switch code, _ := reply[0].(int64); code {
	case 1:
		return rr, true, nil
	case 2:
		return lobby.RatedRound{}, false, lobby.ErrRatingMoved
	}
	kept, err := decodeRound(reply[1])
	if err != nil {
		return lobby.RatedRound{}, false, fmt.Errorf("redisstore: rated round %s: %w", rr.RoundID, err)
	}
	return kept, false, nil
}

// applyArgs returns the keys and arguments of rating_apply.lua for rr.
func (s *Ratings) applyArgs(rr lobby.RatedRound) ([]string, []any, error) {
	if rr.RoundID == "" || rr.Key == "" {
		return nil, nil, errNoRatingKey
	}
	seen := make(map[string]bool, len(rr.Changes))
	for _, c := range rr.Changes {
		if c.PlayerID == "" || seen[c.PlayerID] {
			return nil, nil, errBadRatedRound
		}
		seen[c.PlayerID] = true
	}
	rec, err := json.Marshal(rr)
	if err != nil {
		return nil, nil, fmt.Errorf("redisstore: rated round %s: %w", rr.RoundID, err)
	}
	keys := append(s.keys(rr.Key), s.recordKey(rr.Key, rr.RoundID))
	args := make([]any, 0, 3+6*len(rr.Changes))
	args = append(args, rec, lobby.RatedRoundRetention.Milliseconds(), lobby.MaxRatingHistory-1)
	for _, c := range rr.Changes {
		st, err := json.Marshal(storedRating{Rating: c.After, Name: c.Name})
		if err != nil {
			return nil, nil, fmt.Errorf("redisstore: rating of %s: %w", c.PlayerID, err)
		}
		point := micros(rr.At) + "|" + formatFloat(c.After.Rating) + "|" + formatFloat(c.After.Deviation) + "|" + rr.RoundID
		score, lapse := "", ""
		if !c.After.Provisional() {
			score, lapse = formatFloat(-c.After.Rating), lapseScore(c.After)
		}
		keys = append(keys, s.histKey(rr.Key, c.PlayerID))
		args = append(args, c.PlayerID, c.Before.Rounds, st, point, score, lapse)
	}
	return keys, args, nil
}

// Round implements lobby.Ratings: the round's key, then its record.
func (s *Ratings) Round(ctx context.Context, roundID string) (lobby.RatedRound, error) {
	if roundID == "" {
		return lobby.RatedRound{}, match.ErrNotFound
	}
	key, err := s.c.Get(ctx, s.roundKeyKey(roundID)).Result()
	if err == nil {
		var rec string
		rec, err = s.c.Get(ctx, s.recordKey(key, roundID)).Result()
		if err == nil {
			rr, err := decodeRound(rec)
			if err != nil {
				return lobby.RatedRound{}, fmt.Errorf("redisstore: rated round %s: %w", roundID, err)
			}
			return rr, nil
		}
	}
	if errors.Is(err, redis.Nil) {
		return lobby.RatedRound{}, match.ErrNotFound
	}
	return lobby.RatedRound{}, mapErr(err)
}

// Ladder implements lobby.Ratings with one script run, or more while
// lapsed players are left to take off (see rating_ladder.lua); a
// negative from counts as 0.
func (s *Ratings) Ladder(ctx context.Context, key string, from, limit int, now time.Time) ([]lobby.LadderEntry, int, error) {
	from = min(max(from, 0), maxPlace)
	total, raw, _, err := s.readLadder(ctx, key, from, from+min(max(limit, 0), maxPlace)-1, "", now)
	if err != nil {
		return nil, 0, err
	}
	var page []lobby.LadderEntry
	for i := 0; i+1 < len(raw); i += 2 {
		id, _ := raw[i].(string)
		e := lobby.LadderEntry{Place: from + i/2, PlayerID: id}
		if v, ok := raw[i+1].(string); ok {
			st, err := decodeRating(v)
			if err != nil {
				return nil, 0, fmt.Errorf("redisstore: rating of %s under %s: %w", id, key, err)
			}
			e.Name, e.Rating = st.Name, st.Rating
		}
		page = append(page, e)
	}
	return page, total, nil
}

// Place implements lobby.Ratings as Ladder does, without a page.
func (s *Ratings) Place(ctx context.Context, key, id string, now time.Time) (int, error) {
	if id == "" {
		return -1, nil
	}
	_, _, place, err := s.readLadder(ctx, key, 0, -1, id, now)
	return place, err
}

// readLadder runs rating_ladder.lua until it has taken off every lapsed
// player, and returns its reply.
func (s *Ratings) readLadder(ctx context.Context, key string, from, to int, id string, now time.Time) (total int, page []any, place int, err error) {
	for {
		reply, err := ratingLadderScript.Run(ctx, s.c, s.keys(key), micros(now), lapseSweep, from, to, id).Slice()
		if err != nil {
			return 0, nil, -1, mapErr(err)
		}
		if more, _ := reply[0].(int64); more == 1 {
			continue
		}
		n, _ := reply[1].(int64)
		page, _ := reply[2].([]any)
		at, _ := reply[3].(int64)
		return int(n), page, int(at), nil
	}
}

// History implements lobby.Ratings: one LRANGE.
func (s *Ratings) History(ctx context.Context, key, id string, limit int) ([]lobby.RatingPoint, error) {
	if limit < 1 {
		return nil, nil
	}
	vals, err := s.c.LRange(ctx, s.histKey(key, id), 0, int64(min(limit, maxPlace))-1).Result()
	if err != nil {
		return nil, mapErr(err)
	}
	out := make([]lobby.RatingPoint, 0, len(vals))
	for _, v := range slices.Backward(vals) {
		p, err := parsePoint(v)
		if err != nil {
			return nil, fmt.Errorf("redisstore: history of %s under %s: %w", id, key, err)
		}
		out = append(out, p)
	}
	return out, nil
}

// Of implements lobby.Ratings: the player's index of keys, then one HGET a
// key (a pipeline: each key has its slot).
func (s *Ratings) Of(ctx context.Context, id string) (map[string]rating.Rating, error) {
	keys, err := s.c.SMembers(ctx, s.indexKey(id)).Result()
	if err != nil {
		return nil, mapErr(err)
	}
	out := make(map[string]rating.Rating, len(keys))
	if len(keys) == 0 {
		return out, nil
	}
	gets := make([]*redis.StringCmd, len(keys))
	_, err = s.c.Pipelined(ctx, func(p redis.Pipeliner) error {
		for i, k := range keys {
			gets[i] = p.HGet(ctx, s.keys(k)[0], id)
		}
		return nil
	})
	if err != nil && !errors.Is(err, redis.Nil) {
		return nil, mapErr(err)
	}
	for i, k := range keys {
		v, err := gets[i].Result()
		if errors.Is(err, redis.Nil) {
			continue // a round that was refused, or Forget's meanwhile
		}
		if err != nil {
			return nil, mapErr(err)
		}
		st, err := decodeRating(v)
		if err != nil {
			return nil, fmt.Errorf("redisstore: rating of %s under %s: %w", id, k, err)
		}
		out[k] = st.Rating
	}
	return out, nil
}

// Forget implements lobby.Ratings: one script run a key of the player's
// index (rating_forget.lua), then those keys off the index, which keeps
// any that an Apply added meanwhile.
func (s *Ratings) Forget(ctx context.Context, id string) error {
	keys, err := s.c.SMembers(ctx, s.indexKey(id)).Result()
	if err != nil {
		return mapErr(err)
	}
	if len(keys) == 0 {
		return nil
	}
	for _, k := range keys {
		ks := append(s.keys(k), s.histKey(k, id))
		if err := ratingForgetScript.Run(ctx, s.c, ks, id).Err(); err != nil {
			return mapErr(err)
		}
	}
	members := make([]any, len(keys))
	for i, k := range keys {
		members[i] = k
	}
	return mapErr(s.c.SRem(ctx, s.indexKey(id), members...).Err())
}

func decodeRating(v string) (storedRating, error) {
	var st storedRating
	err := json.Unmarshal([]byte(v), &st)
	return st, err
}

func decodeRound(v any) (lobby.RatedRound, error) {
	s, _ := v.(string)
	var rr lobby.RatedRound
	err := json.Unmarshal([]byte(s), &rr)
	return rr, err
}

// parsePoint reads a history point, "at_µs|rating|deviation|round": the
// round id last, so that it may hold any byte.
func parsePoint(v string) (lobby.RatingPoint, error) {
	f := strings.SplitN(v, "|", 4)
	if len(f) != 4 {
		return lobby.RatingPoint{}, fmt.Errorf("a history point %q", v)
	}
	at, err1 := strconv.ParseInt(f[0], 10, 64)
	r, err2 := strconv.ParseFloat(f[1], 64)
	d, err3 := strconv.ParseFloat(f[2], 64)
	if err := errors.Join(err1, err2, err3); err != nil {
		return lobby.RatingPoint{}, fmt.Errorf("a history point %q: %w", v, err)
	}
	return lobby.RatingPoint{RoundID: f[3], At: time.UnixMicro(at).UTC(), Rating: r, Deviation: d}, nil
}

// formatFloat writes f exactly, in a form Redis reads as a score.
func formatFloat(f float64) string { return strconv.FormatFloat(f, 'g', -1, 64) }

// lapseScore is when r lapses (rating.Rating.LapseMicros) as a score:
// whole microseconds, or "+inf" for never.
func lapseScore(r rating.Rating) string {
	at := r.LapseMicros()
	if math.IsInf(at, 1) {
		return "+inf"
	}
	return strconv.FormatFloat(math.Floor(at), 'f', 0, 64)
}
