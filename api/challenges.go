package api

import (
	"context"
	"errors"
	"net/http"
	"strconv"
	"time"

	"klondike/api/protocol"
	"klondike/api/ws"
	"klondike/engine"
	"klondike/lobby"
	"klondike/lobby/challenge"
	"klondike/match"
)

// Challenges over the WebSocket (challenges, the daily deal, boards,
// records) and over HTTP (GET /api/v1/daily, the leaderboard and replay
// routes for challenges, GET /api/v1/players/{id}/records): the handlers
// of lobby/challenge's Service.

func (s *Service) createChallenge(ctx context.Context, c *ws.Conn, env *Envelope, pid string) error {
	var m protocol.CreateChallenge
	if err := decode(env, &m); err != nil {
		return err
	}
	if m.WindowS < 0 {
		return challenge.ErrBadWindow
	}
	rec, err := s.Challenges.Create(ctx, pid, settingsOf(m.Settings), time.Duration(m.WindowS)*time.Second)
	if err != nil {
		return err
	}
	return s.replyChallenge(ctx, c, env, pid, &rec)
}

// roundRef reads the challenge that get_async_round,
// close_challenge and start_attempt name.
func roundRef(env *Envelope) (string, error) {
	var m protocol.RoundRef
	if err := decode(env, &m); err != nil {
		return "", err
	}
	if m.RoundID == "" {
		return "", errBadRequest(env.Type + " needs round_id")
	}
	return m.RoundID, nil
}

func (s *Service) getChallenge(ctx context.Context, c *ws.Conn, env *Envelope, pid string) error {
	id, err := roundRef(env)
	if err != nil {
		return err
	}
	rec, err := s.Challenges.Load(ctx, id)
	if err != nil {
		return err
	}
	if rec.CreatorID != "" {
		gone, err := s.Lobby.Deleted(ctx, []string{rec.CreatorID})
		if err != nil {
			return err
		}
		if gone[rec.CreatorID] {
			rec.CreatorName = lobby.DeletedName
		}
	}
	return s.replyChallenge(ctx, c, env, pid, &rec)
}

func (s *Service) closeChallenge(ctx context.Context, c *ws.Conn, env *Envelope, pid string) error {
	id, err := roundRef(env)
	if err != nil {
		return err
	}
	rec, err := s.Challenges.CloseEarly(ctx, pid, id)
	if err != nil {
		return err
	}
	return s.replyChallenge(ctx, c, env, pid, &rec)
}

func (s *Service) startAttempt(ctx context.Context, c *ws.Conn, env *Envelope, pid string) error {
	id, err := roundRef(env)
	if err != nil {
		return err
	}
	ev, err := s.Challenges.StartAttempt(ctx, pid, id)
	if err != nil {
		return err
	}
	c.SendJSON(startedOf(ev, env.ID))
	return nil
}

func (s *Service) getDaily(ctx context.Context, c *ws.Conn, env *Envelope, _ string) error {
	day, rounds, err := dailyInfo(ctx, s.Challenges)
	if err != nil {
		return err
	}
	c.SendJSON(protocol.Daily{Type: protocol.TypeDaily, Re: env.ID, Day: day, Rounds: convert(rounds, wireChallengeInfo)})
	return nil
}

func (s *Service) getBoard(ctx context.Context, c *ws.Conn, env *Envelope, pid string) error {
	var m protocol.GetBoard
	if err := decode(env, &m); err != nil {
		return err
	}
	rec, err := s.Challenges.Load(ctx, m.RoundID)
	if err != nil {
		return err
	}
	top := clamp(m.Top, protocol.DefaultBoardTop, protocol.MaxBoardTop)
	around := clamp(m.Around, protocol.DefaultBoardAround, protocol.MaxBoardAround)
	page, err := s.Challenges.Board(ctx, &rec, top, pid, around)
	if err != nil {
		return err
	}
	if err := anonymizePage(ctx, s.Lobby, &page); err != nil {
		return err
	}
	c.SendJSON(protocol.Board{Type: protocol.TypeBoard, Re: env.ID, RoundID: rec.ID, Closed: rec.Closed(time.Now()), BoardPage: wireBoardPage(page)})
	return nil
}

func (s *Service) getRecords(ctx context.Context, c *ws.Conn, env *Envelope, pid string) error {
	var m protocol.GetRecords
	if err := decode(env, &m); err != nil {
		return err
	}
	if m.PlayerID == "" {
		m.PlayerID = pid
	}
	rs, err := s.Challenges.Records(ctx, m.PlayerID)
	if err != nil {
		return err
	}
	c.SendJSON(protocol.Records{Type: protocol.TypeRecords, Re: env.ID, PlayerID: m.PlayerID, Records: wireRecords(nonNil(rs))})
	return nil
}

// replyChallenge answers with a challenge's async_round, the player's
// attempt in it included.
func (s *Service) replyChallenge(ctx context.Context, c *ws.Conn, env *Envelope, pid string, rec *challenge.Record) error {
	info, err := s.Challenges.Info(ctx, rec)
	if err != nil {
		return err
	}
	msg := protocol.AsyncRound{Type: protocol.TypeAsyncRound, Re: env.ID, Round: wireChallengeInfo(info), URL: ChallengeURL(rec)}
	msg.Attempt.State = protocol.AttemptNone
	roundID, result, err := s.Challenges.AttemptState(ctx, rec, pid)
	switch {
	case errors.Is(err, match.ErrNotFound):
	case err != nil:
		return err
	case result != nil:
		e := wireBoardEntry(*result)
		msg.Attempt = protocol.AttemptState{State: protocol.AttemptFinished, RoundID: roundID, Result: &e}
	default:
		msg.Attempt = protocol.AttemptState{State: protocol.AttemptPlaying, RoundID: roundID}
	}
	c.SendJSON(msg)
	return nil
}

// ChallengeURL is a challenge's page on the web client: /c/{id} for a
// challenge, /daily for a daily round.
func ChallengeURL(rec *challenge.Record) string {
	if rec.Kind == challenge.KindDaily {
		return "/daily"
	}
	return "/c/" + rec.ID
}

// clamp returns v, or def when it is not positive, never more than most.
func clamp(v, def, most int) int {
	if v <= 0 {
		return def
	}
	return min(v, most)
}

func nonNil[T any](s []T) []T {
	if s == nil {
		return []T{}
	}
	return s
}

// daily answers GET /api/v1/daily: today's daily rounds.
func (s *Server) daily(w http.ResponseWriter, r *http.Request) {
	ctx, cancel := context.WithTimeout(r.Context(), commandTimeout)
	defer cancel()
	day, rounds, err := dailyInfo(ctx, s.Challenges)
	if err != nil {
		s.routeError(w, err)
		return
	}
	writeJSON(w, http.StatusOK, dailyReply{Day: day, Rounds: rounds})
}

// dailyInfo returns today's daily rounds as anyone may see them, with
// their counts: what get_daily and GET /api/v1/daily answer.
func dailyInfo(ctx context.Context, c *challenge.Service) (string, []challenge.Info, error) {
	day, recs, err := c.Daily(ctx)
	if err != nil {
		return "", nil, err
	}
	rounds := make([]challenge.Info, 0, len(recs))
	for i := range recs {
		in, err := c.Info(ctx, &recs[i])
		if err != nil {
			return "", nil, err
		}
		rounds = append(rounds, in)
	}
	return day, rounds, nil
}

// dailyReply is the answer of GET /api/v1/daily.
type dailyReply struct {
	Day    string           `json:"day"`
	Rounds []challenge.Info `json:"rounds"`
}

// records answers GET /api/v1/players/{id}/records.
func (s *Server) records(w http.ResponseWriter, r *http.Request) {
	ctx, cancel := context.WithTimeout(r.Context(), commandTimeout)
	defer cancel()
	id := r.PathValue("id")
	rs, err := s.Challenges.Records(ctx, id)
	if err != nil {
		s.routeError(w, err)
		return
	}
	writeJSON(w, http.StatusOK, recordsReply{PlayerID: id, Records: nonNil(rs)})
}

// recordsReply is the answer of GET /api/v1/players/{id}/records.
type recordsReply struct {
	PlayerID string                    `json:"player_id"`
	Records  []challenge.VariantRecord `json:"records"`
}

// challengeLeaderboardReply is the answer of GET /api/v1/rounds/{id}/leaderboard
// for a challenge: a page of its board from rank ?from= (default
// 1), ?limit= entries (default and at most 100), and with ?player= that
// player's rank and neighbours.
type challengeLeaderboardReply struct {
	RoundID  string             `json:"round_id"`
	Kind     string             `json:"kind"`
	Over     bool               `json:"over"`
	Players  int                `json:"players"`
	Finished int                `json:"finished"`
	Entries  []match.BoardEntry `json:"entries"`
	Around   []match.BoardEntry `json:"around,omitempty"`
	Rank     int                `json:"rank,omitempty"`
}

// challengeReplayReply is the answer of GET /api/v1/rounds/{id}/replay for a
// closed challenge: its deal revealed and a page of its players'
// games by rank, from ?from= (default 1), ?limit= (default and at most 100).
type challengeReplayReply struct {
	RoundID    string               `json:"round_id"`
	Kind       string               `json:"kind"`
	Seed       string               `json:"seed"`
	Salt       string               `json:"salt,omitempty"`
	Commitment string               `json:"commitment,omitempty"`
	KnownDeal  bool                 `json:"known_deal,omitempty"`
	Rules      engine.Rules         `json:"rules"`
	Layout     engine.Deal          `json:"layout"`
	OpensAt    time.Time            `json:"opens_at"`
	ClosesAt   time.Time            `json:"closes_at"`
	Players    []match.PlayerReplay `json:"players"`
	NextFrom   int                  `json:"next_from,omitempty"`
}

// pageQuery reads ?from= and ?limit= (defaults 1 and 100, at most 100).
func pageQuery(r *http.Request) (from, limit int, err error) {
	from, limit = 1, protocol.MaxBoardTop
	q := r.URL.Query()
	if v := q.Get("from"); v != "" {
		if from, err = strconv.Atoi(v); err != nil || from < 1 {
			return 0, 0, errBadRequest("from is a rank, 1 or more, not " + quote(v))
		}
	}
	if v := q.Get("limit"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 {
			return 0, 0, errBadRequest("limit is a whole number of entries, not " + quote(v))
		}
		limit = min(n, protocol.MaxBoardTop)
	}
	return from, limit, nil
}

// challengeLeaderboard serves the leaderboard route for a challenge.
func (s *Server) challengeLeaderboard(ctx context.Context, w http.ResponseWriter, r *http.Request, rec *challenge.Record) {
	from, limit, err := pageQuery(r)
	if err != nil {
		s.routeError(w, err)
		return
	}
	entries, err := s.Challenges.BoardRange(ctx, rec, from, limit)
	if err == nil {
		err = anonymize(ctx, s.Lobby, entries)
	}
	if err != nil {
		s.routeError(w, err)
		return
	}
	page, err := s.Challenges.Board(ctx, rec, 0, r.URL.Query().Get("player"), protocol.DefaultBoardAround)
	if err == nil {
		err = anonymizePage(ctx, s.Lobby, &page)
	}
	if err != nil {
		s.routeError(w, err)
		return
	}
	writeJSON(w, http.StatusOK, challengeLeaderboardReply{
		RoundID: rec.ID, Kind: rec.Kind, Over: rec.Closed(time.Now()), Players: page.Players, Finished: page.Finished,
		Entries: nonNil(entries), Around: page.Around, Rank: page.Rank,
	})
}

// challengeReplay serves the replay route for a challenge.
func (s *Server) challengeReplay(ctx context.Context, w http.ResponseWriter, r *http.Request, rec *challenge.Record) {
	from, limit, err := pageQuery(r)
	if err != nil {
		s.routeError(w, err)
		return
	}
	rep, err := s.Challenges.Replay(ctx, rec, from, limit)
	if errors.Is(err, match.ErrRoundNotRunning) {
		writeJSON(w, http.StatusNotFound, errorBody(protocol.CodeNotFound, "the replays are published when the round's window closes"))
		return
	}
	if err == nil {
		err = anonymize(ctx, s.Lobby, rep.Players)
	}
	if err != nil {
		s.routeError(w, err)
		return
	}
	writeJSON(w, http.StatusOK, challengeReplayReply{
		RoundID: rec.ID, Kind: rec.Kind, Seed: strconv.FormatUint(rec.Fair.Seed, 10), Salt: rec.Fair.Salt,
		Commitment: rec.Fair.Commitment, KnownDeal: rec.Fair.Known, Rules: rec.Rules, Layout: rep.Layout,
		OpensAt: rec.OpensAt, ClosesAt: rec.ClosesAt, Players: nonNil(rep.Players), NextFrom: rep.NextFrom,
	})
}
