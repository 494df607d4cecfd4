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
	"klondike/match"
)

// Asynchronous rounds over the WebSocket (challenges, the daily deal,
// boards, records) and over HTTP (GET /api/v1/daily, the leaderboard and
// replay routes for asynchronous rounds, GET /api/v1/players/{id}/records).

func (s *Service) createChallenge(ctx context.Context, c *ws.Conn, env *Envelope, pid string) error {
	var m protocol.CreateChallenge
	if err := decode(env, &m); err != nil {
		return err
	}
	if m.WindowS < 0 {
		return lobby.ErrBadWindow
	}
	rec, err := s.Lobby.CreateChallenge(ctx, pid, settingsOf(m.Settings), time.Duration(m.WindowS)*time.Second)
	if err != nil {
		return err
	}
	return s.replyAsync(ctx, c, env, pid, &rec)
}

// roundRef reads the asynchronous round that get_async_round,
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

func (s *Service) getAsyncRound(ctx context.Context, c *ws.Conn, env *Envelope, pid string) error {
	id, err := roundRef(env)
	if err != nil {
		return err
	}
	rec, err := s.Lobby.AsyncRound(ctx, id)
	if err != nil {
		return err
	}
	return s.replyAsync(ctx, c, env, pid, &rec)
}

func (s *Service) closeChallenge(ctx context.Context, c *ws.Conn, env *Envelope, pid string) error {
	id, err := roundRef(env)
	if err != nil {
		return err
	}
	rec, err := s.Lobby.CloseChallenge(ctx, pid, id)
	if err != nil {
		return err
	}
	return s.replyAsync(ctx, c, env, pid, &rec)
}

func (s *Service) startAttempt(ctx context.Context, c *ws.Conn, env *Envelope, pid string) error {
	id, err := roundRef(env)
	if err != nil {
		return err
	}
	ev, err := s.Lobby.StartAttempt(ctx, pid, id)
	if err != nil {
		return err
	}
	c.SendJSON(startedOf(ev, env.ID))
	return nil
}

func (s *Service) getDaily(ctx context.Context, c *ws.Conn, env *Envelope, _ string) error {
	day, rounds, err := dailyInfo(ctx, s.Lobby)
	if err != nil {
		return err
	}
	c.SendJSON(protocol.Daily{Type: protocol.TypeDaily, Re: env.ID, Day: day, Rounds: convert(rounds, wireAsyncInfo)})
	return nil
}

func (s *Service) getBoard(ctx context.Context, c *ws.Conn, env *Envelope, pid string) error {
	var m protocol.GetBoard
	if err := decode(env, &m); err != nil {
		return err
	}
	rec, err := s.Lobby.AsyncRound(ctx, m.RoundID)
	if err != nil {
		return err
	}
	top := clamp(m.Top, protocol.DefaultBoardTop, protocol.MaxBoardTop)
	around := clamp(m.Around, protocol.DefaultBoardAround, protocol.MaxBoardAround)
	page, err := s.Lobby.Board(ctx, &rec, top, pid, around)
	if err != nil {
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
	rs, err := s.Lobby.Records(ctx, m.PlayerID)
	if err != nil {
		return err
	}
	c.SendJSON(protocol.Records{Type: protocol.TypeRecords, Re: env.ID, PlayerID: m.PlayerID, Records: wireRecords(nonNil(rs))})
	return nil
}

// replyAsync answers with an asynchronous round's async_round, the
// player's attempt in it included.
func (s *Service) replyAsync(ctx context.Context, c *ws.Conn, env *Envelope, pid string, rec *match.AsyncRecord) error {
	info, err := s.Lobby.AsyncInfo(ctx, rec)
	if err != nil {
		return err
	}
	msg := protocol.AsyncRound{Type: protocol.TypeAsyncRound, Re: env.ID, Round: wireAsyncInfo(info), URL: AsyncURL(rec)}
	msg.Attempt.State = protocol.AttemptNone
	roundID, result, err := s.Lobby.AttemptState(ctx, rec, pid)
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

// AsyncURL is an asynchronous round's page on the web client: /c/{id} for a
// challenge, /daily for a daily round.
func AsyncURL(rec *match.AsyncRecord) string {
	if rec.Kind == match.KindDaily {
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
	day, rounds, err := dailyInfo(ctx, s.Lobby)
	if err != nil {
		s.routeError(w, err)
		return
	}
	writeJSON(w, http.StatusOK, dailyReply{Day: day, Rounds: rounds})
}

// dailyInfo returns today's daily rounds as anyone may see them, with
// their counts: what get_daily and GET /api/v1/daily answer.
func dailyInfo(ctx context.Context, l *lobby.Lobby) (string, []match.AsyncInfo, error) {
	day, recs, err := l.Daily(ctx)
	if err != nil {
		return "", nil, err
	}
	rounds := make([]match.AsyncInfo, 0, len(recs))
	for i := range recs {
		in, err := l.AsyncInfo(ctx, &recs[i])
		if err != nil {
			return "", nil, err
		}
		rounds = append(rounds, in)
	}
	return day, rounds, nil
}

// dailyReply is the answer of GET /api/v1/daily.
type dailyReply struct {
	Day    string            `json:"day"`
	Rounds []match.AsyncInfo `json:"rounds"`
}

// records answers GET /api/v1/players/{id}/records.
func (s *Server) records(w http.ResponseWriter, r *http.Request) {
	ctx, cancel := context.WithTimeout(r.Context(), commandTimeout)
	defer cancel()
	id := r.PathValue("id")
	rs, err := s.Lobby.Records(ctx, id)
	if err != nil {
		s.routeError(w, err)
		return
	}
	writeJSON(w, http.StatusOK, recordsReply{PlayerID: id, Records: nonNil(rs)})
}

// recordsReply is the answer of GET /api/v1/players/{id}/records.
type recordsReply struct {
	PlayerID string                `json:"player_id"`
	Records  []match.VariantRecord `json:"records"`
}

// asyncLeaderboardReply is the answer of GET /api/v1/rounds/{id}/leaderboard
// for an asynchronous round: a page of its board from rank ?from= (default
// 1), ?limit= entries (default and at most 100), and with ?player= that
// player's rank and neighbours.
type asyncLeaderboardReply struct {
	RoundID  string             `json:"round_id"`
	Kind     string             `json:"kind"`
	Over     bool               `json:"over"`
	Players  int                `json:"players"`
	Finished int                `json:"finished"`
	Entries  []match.BoardEntry `json:"entries"`
	Around   []match.BoardEntry `json:"around,omitempty"`
	Rank     int                `json:"rank,omitempty"`
}

// asyncReplayReply is the answer of GET /api/v1/rounds/{id}/replay for a
// closed asynchronous round: its deal revealed and a page of its players'
// games by rank, from ?from= (default 1), ?limit= (default and at most 100).
type asyncReplayReply struct {
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

// asyncLeaderboard serves the leaderboard route for an asynchronous round.
func (s *Server) asyncLeaderboard(ctx context.Context, w http.ResponseWriter, r *http.Request, rec *match.AsyncRecord) {
	from, limit, err := pageQuery(r)
	if err != nil {
		s.routeError(w, err)
		return
	}
	entries, err := s.Lobby.BoardRange(ctx, rec, from, limit)
	if err != nil {
		s.routeError(w, err)
		return
	}
	page, err := s.Lobby.Board(ctx, rec, 0, r.URL.Query().Get("player"), protocol.DefaultBoardAround)
	if err != nil {
		s.routeError(w, err)
		return
	}
	writeJSON(w, http.StatusOK, asyncLeaderboardReply{
		RoundID: rec.ID, Kind: rec.Kind, Over: rec.Closed(time.Now()), Players: page.Players, Finished: page.Finished,
		Entries: nonNil(entries), Around: page.Around, Rank: page.Rank,
	})
}

// asyncReplay serves the replay route for an asynchronous round.
func (s *Server) asyncReplay(ctx context.Context, w http.ResponseWriter, r *http.Request, rec *match.AsyncRecord) {
	from, limit, err := pageQuery(r)
	if err != nil {
		s.routeError(w, err)
		return
	}
	rep, err := s.Lobby.Replay(ctx, rec, from, limit)
	if errors.Is(err, match.ErrRoundNotRunning) {
		writeJSON(w, http.StatusNotFound, errorBody(protocol.CodeNotFound, "the replays are published when the round's window closes"))
		return
	}
	if err != nil {
		s.routeError(w, err)
		return
	}
	writeJSON(w, http.StatusOK, asyncReplayReply{
		RoundID: rec.ID, Kind: rec.Kind, Seed: strconv.FormatUint(rec.Fair.Seed, 10), Salt: rec.Fair.Salt,
		Commitment: rec.Fair.Commitment, KnownDeal: rec.Fair.Known, Rules: rec.Rules, Layout: rep.Layout,
		OpensAt: rec.OpensAt, ClosesAt: rec.ClosesAt, Players: nonNil(rep.Players), NextFrom: rep.NextFrom,
	})
}
