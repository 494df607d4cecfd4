package api

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"time"

	"klondike/engine"
	"klondike/lobby"
	"klondike/match"
)

// Wire error codes, the protocol's stable set.
const (
	CodeBadRequest      = "bad_request"
	CodeUnauthorized    = "unauthorized"
	CodeNotFound        = "not_found"
	CodeIllegalMove     = "illegal_move"
	CodeOutOfOrder      = "out_of_order"
	CodeRateLimited     = "rate_limited"
	CodeRoundNotRunning = "round_not_running"
	CodeMatchFull       = "match_full"
	CodeUnavailable     = "unavailable"
	CodeInternal        = "internal"
)

// codeTable maps the errors of the lower layers to wire codes: the one
// place where that choice is made. Anything not listed is internal.
var codeTable = []struct {
	err  error
	code string
}{
	{errBadRequestSentinel, CodeBadRequest},
	{engine.ErrIllegal, CodeIllegalMove},
	{engine.ErrSyntax, CodeIllegalMove},
	{match.ErrRoundNotRunning, CodeRoundNotRunning},
	{match.ErrNotInRound, CodeUnauthorized},
	{match.ErrUnavailable, CodeUnavailable},
	{match.ErrBusy, CodeUnavailable},
	{match.ErrMatchFull, CodeMatchFull},
	{match.ErrNotOpen, CodeBadRequest},
	{match.ErrNotHost, CodeUnauthorized},
	{match.ErrNotMember, CodeUnauthorized},
	{match.ErrNoPlayers, CodeBadRequest},
	{match.ErrMatchClosed, CodeNotFound},
	{match.ErrAlreadyStart, CodeBadRequest},
	{match.ErrLeft, CodeBadRequest},
	{match.ErrBadSettings, CodeBadRequest},
	{match.ErrNoHints, CodeBadRequest},
	{errNoHintsHere, CodeBadRequest},
	{lobby.ErrBadName, CodeBadRequest},
	{lobby.ErrUnknownToken, CodeUnauthorized},
	{lobby.ErrNoSuchMatch, CodeNotFound},
	{lobby.ErrNoSuchRound, CodeNotFound},
	{lobby.ErrBadCursor, CodeBadRequest},
	{lobby.ErrInAnotherMatch, CodeBadRequest},
	{lobby.ErrShuttingDown, CodeUnavailable},
	{lobby.ErrTooManyOpenFromAddr, CodeRateLimited},
	{lobby.ErrTooManyOpen, CodeUnavailable},
	{lobby.ErrTooManyNewSessions, CodeRateLimited},
	{context.DeadlineExceeded, CodeUnavailable},
	{context.Canceled, CodeUnavailable},
}

// errorCode returns the wire code of err.
func errorCode(err error) string {
	var ooo *match.OutOfOrderError
	if errors.As(err, &ooo) {
		return CodeOutOfOrder
	}
	for _, e := range codeTable {
		if errors.Is(err, e.err) {
			return e.code
		}
	}
	return CodeInternal
}

// errorMessage returns what a client is told: the error's words, except
// for internal errors, whose details stay in the log.
func errorMessage(err error, code string) string {
	if code == CodeInternal {
		return "internal error"
	}
	return err.Error()
}

// commandTimeout bounds how long one message's handling may wait on a match
// or the store.
const commandTimeout = 5 * time.Second

// Service turns protocol messages into lobby and match calls: it is the
// Handler of every WebSocket connection.
type Service struct {
	Lobby   *lobby.Lobby
	Hub     *Hub
	Metrics *Metrics
	Log     *slog.Logger
	// Hint answers "hint" in solo rounds; nil offers none.
	Hint match.HintFunc

	hintOnce sync.Once
	hints    chan struct{} // one hint search at a time on this node
}

// errNoHintsHere: the server was started without a hint solver.
var errNoHintsHere = errors.New("this server offers no hints")

var _ Handler = (*Service)(nil)

// Closed implements Handler: a dropped player keeps their seat and game.
func (s *Service) Closed(c *Conn) {
	id := c.PlayerID()
	if id == "" {
		return
	}
	if s.Hub.Detach(id, c) {
		ctx, cancel := context.WithTimeout(context.Background(), commandTimeout)
		defer cancel()
		s.Lobby.Connected(ctx, id, false)
	}
}

// Incoming message bodies.
type (
	helloMsg struct {
		Name  string `json:"name"`
		Token string `json:"token"`
	}
	settingsMsg struct {
		Settings match.PartialSettings `json:"settings"`
	}
	matchRefMsg struct {
		MatchID string `json:"match_id"`
		Code    string `json:"code"`
		Ready   *bool  `json:"ready"`
	}
	moveMsg struct {
		RoundID string `json:"round_id"`
		Seq     int    `json:"seq"`
		Move    string `json:"move"`
	}
)

// Outgoing replies.
type (
	welcomeMsg struct {
		Type       string    `json:"type"`
		Re         string    `json:"re,omitempty"`
		PlayerID   string    `json:"player_id"`
		Name       string    `json:"name"`
		Token      string    `json:"token"`
		ServerTime time.Time `json:"server_time"`
		Resumed    bool      `json:"resumed"`
		MatchID    string    `json:"match_id,omitempty"`
	}
	matchReply struct {
		Type  string           `json:"type"`
		Re    string           `json:"re,omitempty"`
		Match *match.MatchInfo `json:"match"`
	}
	matchesReply struct {
		Type       string             `json:"type"`
		Re         string             `json:"re,omitempty"`
		Matches    []*match.MatchInfo `json:"matches"`
		NextCursor string             `json:"next_cursor,omitempty"` // absent on the last page
	}
	// moveOKMsg is what appendMoveOK writes (by hand, for speed).
	moveOKMsg struct {
		Type      string          `json:"type"`
		Re        string          `json:"re,omitempty"`
		RoundID   string          `json:"round_id"`
		Seq       int             `json:"seq"`
		View      json.RawMessage `json:"view"`
		Events    []string        `json:"events"`
		Duplicate bool            `json:"duplicate,omitempty"`
	}
	moveRejectedMsg struct {
		Type     string `json:"type"`
		Re       string `json:"re,omitempty"`
		RoundID  string `json:"round_id"`
		Seq      int    `json:"seq"`
		Code     string `json:"code"`
		Reason   string `json:"reason"`
		Expected int    `json:"expected,omitempty"`
	}
	resignedMsg struct {
		Type    string `json:"type"`
		Re      string `json:"re,omitempty"`
		RoundID string `json:"round_id"`
	}
	hintMsg struct {
		Type    string  `json:"type"`
		Re      string  `json:"re,omitempty"`
		RoundID string  `json:"round_id"`
		Move    *string `json:"move"` // null when the solver has none
		Verdict string  `json:"verdict"`
	}
)

// HandleMessage implements Handler.
func (s *Service) HandleMessage(parent context.Context, c *Conn, env *Envelope) {
	// context.WithTimeout(parent, commandTimeout), made only if needed.
	cc := env.commandContext(parent, time.Now().Add(commandTimeout))
	defer cc.cancel()
	var ctx context.Context = cc
	if env.Type == "hello" {
		s.hello(ctx, c, env)
		return
	}
	pid := c.PlayerID()
	if pid == "" {
		c.SendError(env.ID, CodeUnauthorized, "say hello first")
		return
	}
	var err error
	switch env.Type {
	case "create_match":
		var m settingsMsg
		if err = decode(env, &m); err == nil {
			err = s.replyMatch(c, env, func() (*match.MatchInfo, error) { return s.Lobby.CreateMatch(ctx, pid, m.Settings) })
		}
	case "quick_match":
		var m settingsMsg
		if err = decode(env, &m); err == nil {
			err = s.replyMatch(c, env, func() (*match.MatchInfo, error) { return s.Lobby.QuickMatch(ctx, pid, m.Settings) })
		}
	case "list_matches":
		err = s.listMatches(ctx, c, env)
	case "join_match":
		var m matchRefMsg
		if err = decode(env, &m); err == nil {
			if m.MatchID == "" && m.Code == "" {
				err = errBadRequest("join_match needs match_id or code")
			} else {
				err = s.replyMatch(c, env, func() (*match.MatchInfo, error) { return s.Lobby.JoinMatch(ctx, pid, m.MatchID, m.Code) })
			}
		}
	case "leave_match", "ready", "start_match", "spectate", "rematch":
		err = s.matchCommand(ctx, c, env, pid)
	case "move":
		s.move(ctx, c, env, pid)
	case "resign":
		var m moveMsg
		if err = decode(env, &m); err == nil {
			var r *match.Round
			if r, err = s.Lobby.Round(ctx, m.RoundID); err == nil {
				if err = r.Resign(ctx, pid, time.Now()); err == nil {
					c.SendJSON(resignedMsg{Type: "resigned", Re: env.ID, RoundID: m.RoundID})
				}
			}
		}
	case "hint":
		var m moveMsg
		if err = decode(env, &m); err == nil {
			err = s.hint(ctx, c, env, pid, m.RoundID)
		}
	default:
		err = errBadRequest("unknown message type " + quote(env.Type))
	}
	if err != nil {
		s.sendError(c, env.ID, err)
	}
}

// matchCommand handles the messages that name a match and act on it.
func (s *Service) matchCommand(ctx context.Context, c *Conn, env *Envelope, pid string) error {
	var m matchRefMsg
	if err := decode(env, &m); err != nil {
		return err
	}
	if m.MatchID == "" && m.Code != "" {
		mt, err := s.Lobby.MatchByCode(ctx, m.Code)
		if err != nil {
			return err
		}
		m.MatchID = mt.ID
	}
	if m.MatchID == "" {
		m.MatchID = s.Lobby.Current(ctx, pid)
	}
	if env.Type == "rematch" {
		return s.replyMatch(c, env, func() (*match.MatchInfo, error) { return s.Lobby.Rematch(ctx, pid, m.MatchID) })
	}
	if env.Type == "leave_match" {
		if err := s.Lobby.LeaveMatch(ctx, pid, m.MatchID); err != nil {
			return err
		}
		mt, err := s.Lobby.Match(ctx, m.MatchID)
		if err != nil {
			return err
		}
		c.SendJSON(matchReply{Type: "match", Re: env.ID, Match: mt.Info()})
		return nil
	}
	mt, err := s.Lobby.Match(ctx, m.MatchID)
	if err != nil {
		return err
	}
	switch env.Type {
	case "ready":
		err = mt.SetReady(ctx, pid, m.Ready == nil || *m.Ready)
	case "start_match":
		err = mt.Start(ctx, pid)
	case "spectate":
		err = mt.Spectate(ctx, pid)
	}
	if err != nil {
		return err
	}
	c.SendJSON(matchReply{Type: "match", Re: env.ID, Match: mt.Info()})
	return nil
}

func (s *Service) replyMatch(c *Conn, env *Envelope, f func() (*match.MatchInfo, error)) error {
	info, err := f()
	if err != nil {
		return err
	}
	c.SendJSON(matchReply{Type: "match", Re: env.ID, Match: info})
	return nil
}

func (s *Service) hello(ctx context.Context, c *Conn, env *Envelope) {
	if c.PlayerID() != "" {
		c.SendError(env.ID, CodeBadRequest, "hello was already said on this connection")
		return
	}
	var m helloMsg
	if err := decode(env, &m); err != nil {
		s.sendError(c, env.ID, err)
		return
	}
	ses, resumed, err := s.Lobby.HelloFrom(ctx, c.RemoteIP(), m.Name, m.Token)
	if err != nil {
		s.sendError(c, env.ID, err)
		return
	}
	c.SetPlayerID(ses.PlayerID)
	s.Hub.Attach(ses.PlayerID, c)
	c.SendJSON(welcomeMsg{
		Type: "welcome", Re: env.ID, PlayerID: ses.PlayerID, Name: ses.Name, Token: ses.Token,
		ServerTime: time.Now().UTC(), Resumed: resumed, MatchID: s.Lobby.Current(ctx, ses.PlayerID),
	})
	if resumed {
		s.Lobby.Connected(ctx, ses.PlayerID, true)
	}
}

// hint answers a solo player's "hint" with the solver's next move. One
// search runs at a time on a node; a request meanwhile gets unavailable,
// to retry.
func (s *Service) hint(ctx context.Context, c *Conn, env *Envelope, pid, roundID string) error {
	if s.Hint == nil {
		return errNoHintsHere
	}
	s.hintOnce.Do(func() { s.hints = make(chan struct{}, 1) })
	r, err := s.Lobby.Round(ctx, roundID)
	if err != nil {
		return err
	}
	select {
	case s.hints <- struct{}{}:
		defer func() { <-s.hints }()
	default:
		return fmt.Errorf("%w: another hint is being searched", match.ErrBusy)
	}
	move, verdict, err := r.Hint(ctx, pid, time.Now(), s.Hint)
	if err != nil {
		return err
	}
	reply := hintMsg{Type: "hint", Re: env.ID, RoundID: roundID, Verdict: verdict}
	if move != "" {
		reply.Move = &move
	}
	c.SendJSON(reply)
	return nil
}

func (s *Service) move(ctx context.Context, c *Conn, env *Envelope, pid string) {
	start := time.Now()
	var m moveMsg
	result := "accepted"
	defer func() {
		s.Metrics.Moves.WithLabelValues(result).Inc()
		s.Metrics.MoveSeconds.Observe(time.Since(start).Seconds())
	}()
	reject := func(err error) {
		code := errorCode(err)
		result = code
		msg := moveRejectedMsg{Type: "move_rejected", Re: env.ID, RoundID: m.RoundID, Seq: m.Seq, Code: code, Reason: errorMessage(err, code)}
		var ooo *match.OutOfOrderError
		if errors.As(err, &ooo) {
			msg.Expected = ooo.Expected
		}
		if code == CodeInternal {
			c.Logger().Error("move failed", "round", m.RoundID, "err", err)
		}
		c.SendJSON(msg)
	}
	if env.move != nil {
		m = *env.move
	} else {
		var dm moveMsg // apart from m, which then need not live on the heap
		if err := decode(env, &dm); err != nil {
			result = CodeBadRequest
			s.sendError(c, env.ID, err)
			return
		}
		m = dm
	}
	r, err := s.Lobby.Round(ctx, m.RoundID)
	if err != nil {
		reject(err)
		return
	}
	// move_ok is queued while the seat is locked, so it goes out before the
	// round's results when this move was among the last.
	res, err := r.Move(ctx, pid, m.Seq, m.Move, time.Now(), func(res match.MoveResult, view []byte) {
		c.Reply(moveOK(env.ID, m.RoundID, res, view))
	})
	if err != nil {
		reject(err)
		return
	}
	if res.Duplicate {
		result = "duplicate"
	}
}

func (s *Service) sendError(c *Conn, re string, err error) {
	code := errorCode(err)
	if code == CodeInternal {
		c.Logger().Error("request failed", "err", err)
	}
	c.SendError(re, code, errorMessage(err, code))
}

// badRequest is an error the client caused with a malformed message.
type badRequest string

func (e badRequest) Error() string { return string(e) }

func errBadRequest(msg string) error { return badRequest(msg) }

// errBadRequestSentinel matches every badRequest.
var errBadRequestSentinel = errors.New("bad request")

func (e badRequest) Is(target error) bool { return target == errBadRequestSentinel }

// decode reads a message's fields; unknown fields are ignored (clients may
// be newer than the server), wrong types are a bad request.
func decode(env *Envelope, v any) error {
	if err := json.Unmarshal(env.Raw, v); err != nil {
		return errBadRequest("malformed " + env.Type + ": " + err.Error())
	}
	return nil
}

func quote(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}
