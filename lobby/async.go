package lobby

import (
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"strconv"
	"time"

	"klondike/engine"
	"klondike/match"
)

// Asynchronous rounds: one committed deal that any number of players each
// play once, on their own clock, within a window. A challenge is made by a
// player and shared as a link; the daily rounds are made by the server
// (daily.go). Each player's attempt is a match.Round of one player
// (attempt.go), so moves, seats, resuming on any node and replays work as
// in a race.

// Errors of asynchronous rounds.
var (
	ErrNoSuchAsyncRound = errors.New("no such challenge or daily round")
	ErrNotCreator       = errors.New("only the challenge's creator can close it")
	ErrBadWindow        = fmt.Errorf("%w: a challenge's window is %v to %v", match.ErrBadSettings, match.MinChallengeWindow, match.MaxChallengeWindow)
	// ErrTooManyChallenges: the player made Config.ChallengesPerHour
	// challenges in the last hour.
	ErrTooManyChallenges = errors.New("too many challenges made lately; try again later")
)

// Defaults of the Config fields of asynchronous rounds.
const (
	// DefaultAsyncRetention: a round's board and replays stay a week past
	// its close, so that last week's dailies can still be audited.
	DefaultAsyncRetention    = 7 * 24 * time.Hour
	DefaultChallengesPerHour = 20
	DefaultGhostEvery        = time.Second
)

// asyncTTL is how long the store keeps a round made at now.
func (l *Lobby) asyncTTL(rec *match.AsyncRecord, now time.Time) time.Duration {
	return rec.ClosesAt.Sub(now) + l.cfg.AsyncRetention
}

// CreateChallenge makes a challenge by the player: a fresh hidden deal (or
// the numbered deal the settings name, an open deal) that anyone with its
// id may play once until window has passed (0: a day). Of the settings,
// the rules, the mode, the time limit and the seed apply.
func (l *Lobby) CreateChallenge(ctx context.Context, playerID string, p match.PartialSettings, window time.Duration) (match.AsyncRecord, error) {
	if err := l.checkReady(); err != nil {
		return match.AsyncRecord{}, err
	}
	pl, err := l.player(playerID)
	if err != nil {
		return match.AsyncRecord{}, err
	}
	if window == 0 {
		window = match.DefaultChallengeWindow
	}
	if window < match.MinChallengeWindow || window > match.MaxChallengeWindow {
		return match.AsyncRecord{}, ErrBadWindow
	}
	s := match.WithDefaults(p)
	s.Deals = match.DealsAny
	if err := s.Validate(); err != nil {
		return match.AsyncRecord{}, err
	}
	rules, _ := s.Rules()
	var fair match.FairDeal
	if s.Seed != "" {
		seed, _ := strconv.ParseUint(s.Seed, 10, 64) // Validate checked it
		fair = match.KnownDeal(seed)
	} else if fair, err = match.NewFairDeal(rand.Reader); err != nil {
		return match.AsyncRecord{}, err
	}
	now := time.Now()
	if !l.challenges.take(playerID, now) {
		return match.AsyncRecord{}, ErrTooManyChallenges
	}
	rec := match.AsyncRecord{
		ID: "c" + randomHex(6), Kind: match.KindChallenge, Variant: match.Variant(rules), Rules: rules, Mode: s.Mode,
		Fair: fair, LimitMs: int64(s.TimeLimitS) * 1000, OpensAt: now, ClosesAt: now.Add(window),
		CreatorID: pl.ID, CreatorName: pl.Name,
	}
	stored, made, err := l.cfg.Async.CreateAsync(ctx, rec, l.asyncTTL(&rec, now))
	if err != nil {
		return match.AsyncRecord{}, err
	}
	if made {
		l.count(rec.Kind, "created")
	}
	return stored, nil
}

// count tells the metrics of an event of an asynchronous round.
func (l *Lobby) count(kind, event string) {
	if l.cfg.OnAsync != nil {
		l.cfg.OnAsync(kind, event)
	}
}

// AsyncRound returns an asynchronous round's record.
func (l *Lobby) AsyncRound(ctx context.Context, id string) (match.AsyncRecord, error) {
	if err := l.checkReady(); err != nil {
		return match.AsyncRecord{}, err
	}
	rec, err := l.cfg.Async.LoadAsync(ctx, id)
	if errors.Is(err, match.ErrNotFound) {
		return rec, ErrNoSuchAsyncRound
	}
	return rec, err
}

// AsyncInfo returns what anyone may know of the round now, with its
// counts. A closed round's attempts are settled first (see settleAsync).
func (l *Lobby) AsyncInfo(ctx context.Context, rec *match.AsyncRecord) (match.AsyncInfo, error) {
	now := time.Now()
	if err := l.settleAsync(ctx, rec, now); err != nil {
		return match.AsyncInfo{}, err
	}
	page, err := l.cfg.Async.Board(ctx, rec.ID, 0, "", 0)
	if err != nil {
		return match.AsyncInfo{}, err
	}
	return rec.Info(now, page.Players, page.Finished), nil
}

// CloseChallenge closes a challenge's window now, at its creator's word:
// the attempts still being played end, and the deal and the replays are
// published.
func (l *Lobby) CloseChallenge(ctx context.Context, playerID, id string) (match.AsyncRecord, error) {
	rec, err := l.AsyncRound(ctx, id)
	if err != nil {
		return rec, err
	}
	if rec.Kind != match.KindChallenge || rec.CreatorID != playerID {
		return rec, ErrNotCreator
	}
	now := time.Now()
	if rec.Closed(now) {
		return rec, nil
	}
	if rec, err = l.cfg.Async.CloseAsync(ctx, id, now); err != nil {
		return rec, err
	}
	// Every attempt ends now, on every node: its store round is closed, so
	// no move lands after the deal is published.
	if err := l.settleAsync(ctx, &rec, now); err != nil {
		return rec, err
	}
	l.endLocalAttempts(id)
	return rec, nil
}

// Board returns a page of the round's board: the first top entries, and
// the player's own entry with around neighbours on each side.
func (l *Lobby) Board(ctx context.Context, rec *match.AsyncRecord, top int, playerID string, around int) (match.BoardPage, error) {
	now := time.Now()
	if err := l.settleAsync(ctx, rec, now); err != nil {
		return match.BoardPage{}, err
	}
	if cached, ok := l.tops.get(rec.ID, top, now); ok {
		page, err := l.cfg.Async.Board(ctx, rec.ID, 0, playerID, around)
		page.Top = cached
		return page, err
	}
	page, err := l.cfg.Async.Board(ctx, rec.ID, top, playerID, around)
	if err == nil && top > 0 {
		l.tops.put(rec.ID, top, page.Top, now)
	}
	return page, err
}

// BoardRange returns the entries of the round's board from rank from on.
func (l *Lobby) BoardRange(ctx context.Context, rec *match.AsyncRecord, from, limit int) ([]match.BoardEntry, error) {
	now := time.Now()
	if err := l.settleAsync(ctx, rec, now); err != nil {
		return nil, err
	}
	if from > 1 {
		return l.cfg.Async.BoardRange(ctx, rec.ID, from, limit)
	}
	if cached, ok := l.tops.get(rec.ID, limit, now); ok {
		return cached, nil
	}
	entries, err := l.cfg.Async.BoardRange(ctx, rec.ID, 1, limit)
	if err == nil && limit > 0 {
		l.tops.put(rec.ID, limit, entries, now)
	}
	return entries, err
}

// An AsyncReplay is a closed asynchronous round's deal and a page of its
// players' games, by rank: everything needed to verify its board.
type AsyncReplay struct {
	Round   match.AsyncRecord
	Layout  engine.Deal
	Players []match.PlayerReplay
	// NextFrom is the rank the next page starts at; 0 after the last.
	NextFrom int
}

// Replay returns a page of a closed round's replays, from rank from on,
// or match.ErrRoundNotRunning while its window is open: the deal and the
// logs are secret until then.
func (l *Lobby) Replay(ctx context.Context, rec *match.AsyncRecord, from, limit int) (AsyncReplay, error) {
	now := time.Now()
	if !rec.Closed(now) {
		return AsyncReplay{}, match.ErrRoundNotRunning
	}
	entries, err := l.BoardRange(ctx, rec, from, limit+1)
	if err != nil {
		return AsyncReplay{}, err
	}
	rep := AsyncReplay{Round: *rec, Layout: engine.NumberedDealFor(rec.Rules.Game, rec.Fair.Seed)}
	if len(entries) > limit {
		entries = entries[:limit]
		rep.NextFrom = from + limit
	}
	for _, e := range entries {
		log, err := l.cfg.Store.Log(ctx, match.AttemptRoundID(rec.ID, e.PlayerID), e.PlayerID)
		if err != nil && !errors.Is(err, match.ErrNotFound) {
			return AsyncReplay{}, fmt.Errorf("%w: %v", match.ErrUnavailable, err)
		}
		st, err := l.attemptStanding(ctx, rec, e.PlayerID)
		if err != nil {
			return AsyncReplay{}, err
		}
		rep.Players = append(rep.Players, match.PlayerReplay{
			PlayerID: e.PlayerID, Name: e.Name, Moves: append([]match.LogEntry{}, log...), Status: e.Status.String(),
			Points: st.Points, Score: e.Score, Elapsed: e.ElapsedMs, Helped: st.Helped,
		})
	}
	return rep, nil
}

// attemptStanding returns the player's standing in their attempt.
func (l *Lobby) attemptStanding(ctx context.Context, rec *match.AsyncRecord, playerID string) (match.Standing, error) {
	sts, err := l.cfg.Store.Standings(ctx, match.AttemptRoundID(rec.ID, playerID))
	if err != nil && !errors.Is(err, match.ErrNotFound) {
		return match.Standing{}, fmt.Errorf("%w: %v", match.ErrUnavailable, err)
	}
	for _, st := range sts {
		if st.PlayerID == playerID {
			return st, nil
		}
	}
	return match.Standing{PlayerID: playerID, FinishedMs: -1}, nil
}
