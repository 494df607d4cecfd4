package match

import (
	"slices"
	"strconv"
	"time"

	"klondike/engine"
)

// An Entry is one line of a round's leaderboard or results.
type Entry struct {
	PlayerID   string        `json:"player_id"`
	Name       string        `json:"name"`
	Rank       int           `json:"rank"`
	Score      int           `json:"score"` // the round score on the server's clock
	Foundation int           `json:"foundation"`
	Moves      int           `json:"moves"`
	Status     engine.Status `json:"status"`
	FinishedMs *int64        `json:"finished_ms"`      // null while playing
	ReachedMs  int64         `json:"reached_ms"`       // when the result was reached: the tie-break
	Helped     bool          `json:"helped,omitempty"` // played with hints: practice, not a result
}

// RoundScore returns a standing's round score at nowMs on the round's clock:
// in standard scoring the move points less the time penalty so far, plus the
// time bonus once won. Only a win stops the clock: the penalty of a game that
// is stuck, resigned or still being played runs until nowMs (the round's end
// once it is over), so giving up early never protects a score.
func RoundScore(r engine.Rules, s Standing, nowMs int64) int {
	at := nowMs
	if s.Status == engine.Won && s.FinishedMs >= 0 {
		at = s.FinishedMs
	}
	return engine.TimedScore(r.Scoring, s.Points, time.Duration(at)*time.Millisecond, s.Status == engine.Won)
}

// Rank orders the standings into a leaderboard at nowMs.
//
// In race mode winners come first, by finish time; then everyone else by
// cards on the foundations, then by round score. In score mode everyone is
// ordered by round score. Ties are broken by the earlier time of reaching
// the tied result (ReachedMs: when the player's foundation count and points
// last changed; a winner's finish time), then by seat order. Every entry so
// gets a distinct rank, 1 first.
func Rank(mode Mode, r engine.Rules, st []Standing, nowMs int64) []Entry {
	type keyed struct {
		e    Entry
		join int
	}
	ks := make([]keyed, len(st))
	for i, s := range st {
		e := Entry{
			PlayerID: s.PlayerID, Name: s.Name, Score: RoundScore(r, s, nowMs),
			Foundation: s.Foundation, Moves: s.Moves, Status: s.Status, ReachedMs: s.ReachedMs, Helped: s.Helped,
		}
		if s.FinishedMs >= 0 {
			f := s.FinishedMs
			e.FinishedMs = &f
		}
		ks[i] = keyed{e, s.Join}
	}
	slices.SortStableFunc(ks, func(a, b keyed) int {
		if c := compareEntries(mode, &a.e, &b.e); c != 0 {
			return c
		}
		return a.join - b.join
	})
	out := make([]Entry, len(ks))
	for i := range ks {
		out[i] = ks[i].e
		out[i].Rank = i + 1
	}
	return out
}

// compareEntries orders a before b (negative) when a ranks higher.
func compareEntries(mode Mode, a, b *Entry) int {
	if mode == ModeRace {
		aw, bw := a.Status == engine.Won, b.Status == engine.Won
		switch {
		case aw && !bw:
			return -1
		case bw && !aw:
			return 1
		case aw && bw:
			if c := cmpInt64(*a.FinishedMs, *b.FinishedMs); c != 0 {
				return c
			}
		default:
			if a.Foundation != b.Foundation {
				return b.Foundation - a.Foundation
			}
			if a.Score != b.Score {
				return b.Score - a.Score
			}
		}
	} else if a.Score != b.Score {
		return b.Score - a.Score
	}
	return cmpInt64(a.ReachedMs, b.ReachedMs)
}

func cmpInt64(a, b int64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// rankScoreOffset keeps RankKey's score field positive: round scores are
// above −52 (Vegas) and below a million.
const rankScoreOffset = 1_000_000_000

// RankKey returns a text key whose byte order is the round's ranking order
// for standings at atMs: the smallest key ranks first. Keys made with the
// same atMs order exactly as Rank does; a store that keeps a sorted set of
// them (made at each write) holds the exact final order once the round's
// last standings are written at its end, and Rank is the authority before.
func RankKey(mode Mode, r engine.Rules, s Standing, atMs int64) string {
	score := int64(rankScoreOffset - RoundScore(r, s, atMs))
	var b []byte
	pad := func(n int64, width int) {
		s := strconv.FormatInt(n, 10)
		for i := len(s); i < width; i++ {
			b = append(b, '0')
		}
		b = append(b, s...)
	}
	switch {
	case mode == ModeRace && s.Status == engine.Won:
		b = append(b, '0')
		pad(s.FinishedMs, 12)
	case mode == ModeRace:
		b = append(b, '1')
		pad(int64(engine.NumCards-s.Foundation), 2)
		pad(score, 12)
	default:
		pad(score, 12)
	}
	pad(s.ReachedMs, 12)
	pad(int64(s.Join), 4)
	b = append(b, ':')
	return string(append(b, s.PlayerID...))
}
