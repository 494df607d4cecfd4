package challenge

import (
	"context"
	"crypto/rand"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"time"

	"klondike/engine"
	"klondike/match"
)

// Limits of a challenge's window.
const (
	DefaultWindow = 24 * time.Hour
	MaxWindow     = 7 * 24 * time.Hour
	MinWindow     = time.Minute
)

// Errors of challenges; the api maps each to a wire code.
var (
	ErrNoSuchChallenge = errors.New("no such challenge or daily round")
	ErrNotCreator      = errors.New("only the challenge's creator can close it")
	ErrBadWindow       = fmt.Errorf("%w: a challenge's window is %v to %v", match.ErrBadSettings, MinWindow, MaxWindow)
	// ErrTooManyChallenges: the player made Config.ChallengesPerHour
	// challenges in the last hour.
	ErrTooManyChallenges = errors.New("too many challenges made lately; try again later")
	// ErrAlreadyPlayed: the player has had their one attempt.
	ErrAlreadyPlayed = errors.New("you have played this round already: one attempt a player")
	// ErrWindowClosed: the challenge's window has closed, or not opened yet.
	ErrWindowClosed = errors.New("this round's window is closed")
)

// ttl is how long the store keeps a challenge made at now.
func (s *Service) ttl(rec *Record, now time.Time) time.Duration {
	return rec.ClosesAt.Sub(now) + s.cfg.Retention
}

// Create makes a challenge by the player: a fresh hidden deal (or
// the numbered deal the settings name, an open deal) that anyone with its
// id may play once until window has passed (0: a day). Of the settings,
// the rules, the mode, the time limit and the seed apply.
func (s *Service) Create(ctx context.Context, playerID string, p match.PartialSettings, window time.Duration) (Record, error) {
	if err := s.checkReady(); err != nil {
		return Record{}, err
	}
	pl, err := s.lobby.Player(playerID)
	if err != nil {
		return Record{}, err
	}
	if window == 0 {
		window = DefaultWindow
	}
	if window < MinWindow || window > MaxWindow {
		return Record{}, ErrBadWindow
	}
	set := match.WithDefaults(p)
	set.Deals = match.DealsAny
	if err := set.Validate(); err != nil {
		return Record{}, err
	}
	rules, _ := set.Rules()
	var fair match.FairDeal
	if set.Seed != "" {
		seed, _ := strconv.ParseUint(set.Seed, 10, 64) // Validate checked it
		fair = match.KnownDeal(seed)
	} else if fair, err = match.NewFairDeal(rand.Reader); err != nil {
		return Record{}, err
	}
	now := time.Now()
	// Counted in the shared allowances, so that each node is not another
	// hour's worth.
	ok, err := s.cfg.Allowances.Take(ctx, "challenges:"+playerID, s.cfg.ChallengesPerHour, time.Hour, now)
	if err != nil {
		return Record{}, err
	}
	if !ok {
		return Record{}, ErrTooManyChallenges
	}
	rec := Record{
		ID: "c" + randomHex(6), Kind: KindChallenge, Variant: Variant(rules), Rules: rules, Mode: set.Mode,
		Fair: fair, LimitMs: int64(set.TimeLimitS) * 1000, OpensAt: now, ClosesAt: now.Add(window),
		CreatorID: pl.ID, CreatorName: pl.Name,
	}
	stored, made, err := s.cfg.Challenges.Create(ctx, rec, s.ttl(&rec, now))
	if err != nil {
		return Record{}, err
	}
	if made {
		s.count(rec.Kind, "created")
	}
	return stored, nil
}

// Load returns a challenge's record, or ErrNoSuchChallenge.
func (s *Service) Load(ctx context.Context, id string) (Record, error) {
	if err := s.checkReady(); err != nil {
		return Record{}, err
	}
	rec, err := s.cfg.Challenges.Load(ctx, id)
	if errors.Is(err, match.ErrNotFound) {
		return rec, ErrNoSuchChallenge
	}
	return rec, err
}

// Info returns what anyone may know of the challenge now, with its
// counts. A closed challenge's attempts are closed out first (closeOut).
func (s *Service) Info(ctx context.Context, rec *Record) (Info, error) {
	now := time.Now()
	if err := s.closeOut(ctx, rec, now); err != nil {
		return Info{}, err
	}
	page, err := s.cfg.Challenges.Board(ctx, rec.ID, 0, "", 0)
	if err != nil {
		return Info{}, err
	}
	return rec.Info(now, page.Players, page.Finished), nil
}

// CloseEarly closes a challenge's window now, at its creator's word: the
// attempts still being played end, and the deal and the replays are
// published.
func (s *Service) CloseEarly(ctx context.Context, playerID, id string) (Record, error) {
	rec, err := s.Load(ctx, id)
	if err != nil {
		return rec, err
	}
	if rec.Kind != KindChallenge || rec.CreatorID != playerID {
		return rec, ErrNotCreator
	}
	now := time.Now()
	if rec.Closed(now) {
		return rec, nil
	}
	if rec, err = s.cfg.Challenges.CloseEarly(ctx, id, now); err != nil {
		return rec, err
	}
	// Every attempt ends now, on every node: its store round is closed, so
	// no move lands after the deal is published.
	if err := s.closeOut(ctx, &rec, now); err != nil {
		return rec, err
	}
	s.endLocalAttempts(id)
	return rec, nil
}

// Board returns a page of the round's board: the first top entries, and
// the player's own entry with around neighbours on each side.
func (s *Service) Board(ctx context.Context, rec *Record, top int, playerID string, around int) (BoardPage, error) {
	now := time.Now()
	if err := s.closeOut(ctx, rec, now); err != nil {
		return BoardPage{}, err
	}
	if cached, ok := s.tops.get(rec.ID, top, now); ok {
		page, err := s.cfg.Challenges.Board(ctx, rec.ID, 0, playerID, around)
		page.Top = cached
		return page, err
	}
	page, err := s.cfg.Challenges.Board(ctx, rec.ID, top, playerID, around)
	if err == nil && top > 0 {
		s.tops.put(rec.ID, top, page.Top, now)
	}
	return page, err
}

// BoardRange returns the entries of the round's board from rank from on.
func (s *Service) BoardRange(ctx context.Context, rec *Record, from, limit int) ([]match.BoardEntry, error) {
	now := time.Now()
	if err := s.closeOut(ctx, rec, now); err != nil {
		return nil, err
	}
	if from > 1 {
		return s.cfg.Challenges.BoardRange(ctx, rec.ID, from, limit)
	}
	if cached, ok := s.tops.get(rec.ID, limit, now); ok {
		return cached, nil
	}
	entries, err := s.cfg.Challenges.BoardRange(ctx, rec.ID, 1, limit)
	if err == nil && limit > 0 {
		s.tops.put(rec.ID, limit, entries, now)
	}
	return entries, err
}

// A Replay is a closed challenge's deal and a page of its
// players' games, by rank: everything needed to verify its board.
type Replay struct {
	Round   Record
	Layout  engine.Deal
	Players []match.PlayerReplay
	// NextFrom is the rank the next page starts at; 0 after the last.
	NextFrom int
}

// Replay returns a page of a closed challenge's replays, from rank from on,
// or match.ErrRoundNotRunning while its window is open: the deal and the
// logs are secret until then. A page holds at most limit players, and
// fewer once their replays pass match.MaxReplayPageBytes of JSON; it always
// holds one if any is left.
func (s *Service) Replay(ctx context.Context, rec *Record, from, limit int) (Replay, error) {
	now := time.Now()
	if !rec.Closed(now) {
		return Replay{}, match.ErrRoundNotRunning
	}
	entries, err := s.BoardRange(ctx, rec, from, limit+1)
	if err != nil {
		return Replay{}, err
	}
	rep := Replay{Round: *rec, Layout: engine.NumberedDealFor(rec.Rules.Game, rec.Fair.Seed)}
	if len(entries) > limit {
		entries = entries[:limit]
		rep.NextFrom = from + limit
	}
	size := len("[]")
	for i, e := range entries {
		log, err := s.cfg.Store.Log(ctx, match.AttemptRoundID(rec.ID, e.PlayerID), e.PlayerID)
		if err != nil && !errors.Is(err, match.ErrNotFound) {
			return Replay{}, fmt.Errorf("%w: %v", match.ErrUnavailable, err)
		}
		st, err := s.attemptStanding(ctx, rec, e.PlayerID)
		if err != nil {
			return Replay{}, err
		}
		p := match.PlayerReplay{
			PlayerID: e.PlayerID, Name: e.Name, Moves: append([]match.LogEntry{}, log...), Status: e.Status.String(),
			Points: st.Points, Score: e.Score, Elapsed: e.ElapsedMs, Helped: st.Helped,
		}
		b, err := json.Marshal(p)
		if err != nil {
			return Replay{}, err
		}
		grow := len(b)
		if i > 0 {
			grow++ // the comma
		}
		if i > 0 && size+grow > match.MaxReplayPageBytes {
			rep.NextFrom = from + i
			break
		}
		rep.Players = append(rep.Players, p)
		size += grow
	}
	return rep, nil
}

// attemptStanding returns the player's standing in their attempt.
func (s *Service) attemptStanding(ctx context.Context, rec *Record, playerID string) (match.Standing, error) {
	sts, err := s.cfg.Store.Standings(ctx, match.AttemptRoundID(rec.ID, playerID))
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
