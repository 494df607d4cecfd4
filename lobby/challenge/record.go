package challenge

import (
	"strconv"
	"time"

	"klondike/engine"
	"klondike/match"
)

// A Record is a challenge: one committed deal that any number of players
// each play once, on their own clock, between OpensAt and ClosesAt. Its
// seed and salt stay secret until the window closes.
type Record struct {
	ID       string         `json:"id"`
	Kind     string         `json:"kind"` // KindChallenge or KindDaily
	Variant  string         `json:"variant"`
	Rules    engine.Rules   `json:"rules"`
	Mode     match.Mode     `json:"mode"`
	Fair     match.FairDeal `json:"fair"`
	LimitMs  int64          `json:"limit_ms"` // each attempt's time limit
	OpensAt  time.Time      `json:"opens_at"`
	ClosesAt time.Time      `json:"closes_at"`
	// Day is the UTC date of a daily round ("2026-12-05"), empty otherwise.
	Day string `json:"day,omitempty"`
	// The player who made a challenge; empty for a daily round.
	CreatorID   string `json:"creator_id,omitempty"`
	CreatorName string `json:"creator_name,omitempty"`
	// ClosedEarly: the creator closed the window before its time.
	ClosedEarly bool `json:"closed_early,omitempty"`
}

// Open reports whether attempts may start at now.
func (a *Record) Open(now time.Time) bool {
	return !now.Before(a.OpensAt) && now.Before(a.ClosesAt)
}

// Closed reports whether the window has closed at now: from then on the
// deal, the salt and every replay are public.
func (a *Record) Closed(now time.Time) bool { return !now.Before(a.ClosesAt) }

// An Attempt is one player's single try at a challenge.
type Attempt struct {
	PlayerID  string    `json:"player_id"`
	Name      string    `json:"name"`
	StartedAt time.Time `json:"started_at"`
	// Finished: the attempt's result is on the board.
	Finished bool `json:"finished,omitempty"`
}

// AttemptRecord is the round record of a player's attempt: a round of one
// player that starts when they start and ends at their time limit or at the
// window's close, whichever is first. Moves, seats, resuming on another node
// and replays all work as in a race's round.
func (a *Record) AttemptRecord(at Attempt) match.RoundRecord {
	ends := at.StartedAt.Add(time.Duration(a.LimitMs) * time.Millisecond)
	if a.ClosesAt.Before(ends) {
		ends = a.ClosesAt
	}
	return match.RoundRecord{
		ID: match.AttemptRoundID(a.ID, at.PlayerID), MatchID: a.ID, Rules: a.Rules, Mode: a.Mode, Fair: a.Fair,
		StartsAt: at.StartedAt, EndsAt: ends, Players: []match.Player{{ID: at.PlayerID, Name: at.Name}},
		Phase: "running",
	}
}

// Info returns the challenge's public description at now, with its counts.
func (a *Record) Info(now time.Time, players, finished int) Info {
	in := Info{
		RoundID: a.ID, Kind: a.Kind, Variant: a.Variant, Rules: a.Rules, Mode: a.Mode, LimitMs: a.LimitMs,
		OpensAt: a.OpensAt, ClosesAt: a.ClosesAt, Day: a.Day, CreatorID: a.CreatorID, CreatorName: a.CreatorName,
		Commitment: a.Fair.Commitment, KnownDeal: a.Fair.Known, Winnable: a.Fair.Winnable,
		Closed: a.Closed(now), ClosedEarly: a.ClosedEarly, Players: players, Finished: finished,
	}
	if in.Closed || a.Fair.Known {
		in.Seed = strconv.FormatUint(a.Fair.Seed, 10)
	}
	if in.Closed {
		in.Salt = a.Fair.Salt
	}
	return in
}

// EntryOf returns a finished attempt's entry on the board, ranked on the
// player's own clock. endMs is the attempt's end on that clock: its
// round's EndsAt less its StartsAt (the time limit, cut at the window's
// close). Only a win stops the clock: a game that ended stuck or resigned
// is charged its time penalty up to endMs, as if it had waited out its
// time, so that stopping early never protects a score (and a probe of the
// deal ranks no higher for it). A game that timed out is charged up to its
// end, which is earlier than endMs only when the window closed early. The
// entry's ElapsedMs stays where the game ended.
func EntryOf(a *Record, st match.Standing, endMs int64) match.BoardEntry {
	at, charged := endMs, endMs
	if st.FinishedMs >= 0 {
		at = st.FinishedMs
		if st.Status == engine.TimedOut {
			charged = st.FinishedMs
		}
		charged = max(charged, st.FinishedMs)
	}
	st.Join = 0 // the player id in the key breaks the last tie
	return match.BoardEntry{
		PlayerID: st.PlayerID, Name: st.Name, Score: match.RoundScore(a.Rules, st, charged), Foundation: st.Foundation,
		Moves: st.Moves, Status: st.Status, ElapsedMs: at, ReachedMs: st.ReachedMs,
		Key: match.RankKey(a.Mode, a.Rules, st, charged),
	}
}
