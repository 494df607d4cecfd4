package api

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"time"

	"klondike/api/internal/fast"
	"klondike/api/protocol"
	"klondike/engine"
	"klondike/lobby"
	"klondike/match"
)

// codeTable maps the errors of the lower layers to wire codes: the one
// place where that choice is made. Anything not listed is internal.
var codeTable = []struct {
	err  error
	code string
}{
	{errBadRequestSentinel, protocol.CodeBadRequest},
	{engine.ErrIllegal, protocol.CodeIllegalMove},
	{engine.ErrSyntax, protocol.CodeIllegalMove},
	{match.ErrRoundNotRunning, protocol.CodeRoundNotRunning},
	{match.ErrNotInRound, protocol.CodeUnauthorized},
	{match.ErrUnavailable, protocol.CodeUnavailable},
	{match.ErrBusy, protocol.CodeUnavailable},
	{match.ErrMatchFull, protocol.CodeMatchFull},
	{match.ErrNotOpen, protocol.CodeBadRequest},
	{match.ErrNotHost, protocol.CodeUnauthorized},
	{match.ErrNotMember, protocol.CodeUnauthorized},
	{match.ErrNoPlayers, protocol.CodeBadRequest},
	{match.ErrMatchClosed, protocol.CodeNotFound},
	{match.ErrAlreadyStart, protocol.CodeBadRequest},
	{match.ErrLeft, protocol.CodeBadRequest},
	{match.ErrBadSettings, protocol.CodeBadRequest},
	{match.ErrNoHints, protocol.CodeBadRequest},
	{match.ErrNoHintsForGame, protocol.CodeBadRequest},
	{errNoHintsHere, protocol.CodeBadRequest},
	{lobby.ErrBadName, protocol.CodeBadRequest},
	{lobby.ErrUnknownToken, protocol.CodeUnauthorized},
	{lobby.ErrNoSuchMatch, protocol.CodeNotFound},
	{lobby.ErrNoSuchRound, protocol.CodeNotFound},
	{lobby.ErrBadCursor, protocol.CodeBadRequest},
	{lobby.ErrInAnotherMatch, protocol.CodeBadRequest},
	{lobby.ErrShuttingDown, protocol.CodeUnavailable},
	{lobby.ErrTooManyOpenFromAddr, protocol.CodeRateLimited},
	{lobby.ErrTooManyOpen, protocol.CodeUnavailable},
	{lobby.ErrTooManyNewSessions, protocol.CodeRateLimited},
	{match.ErrAlreadyPlayed, protocol.CodeAlreadyPlayed},
	{match.ErrWindowClosed, protocol.CodeRoundNotRunning},
	{lobby.ErrNoSuchAsyncRound, protocol.CodeNotFound},
	{lobby.ErrNotCreator, protocol.CodeUnauthorized},
	{lobby.ErrTooManyChallenges, protocol.CodeRateLimited},
	{match.ErrNotFound, protocol.CodeNotFound},
	{context.DeadlineExceeded, protocol.CodeUnavailable},
	{context.Canceled, protocol.CodeUnavailable},
}

// errorCode returns the wire code of err.
func errorCode(err error) string {
	var ooo *match.OutOfOrderError
	if errors.As(err, &ooo) {
		return protocol.CodeOutOfOrder
	}
	for _, e := range codeTable {
		if errors.Is(err, e.err) {
			return e.code
		}
	}
	return protocol.CodeInternal
}

// errorMessage returns what a client is told: the error's words, except
// for internal errors, whose details stay in the log.
func errorMessage(err error, code string) string {
	if code == protocol.CodeInternal {
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

// encodeEvent is the encoder of every match the server runs: the match
// package's events in the wire protocol.
var encodeEvent match.Encoder = protocol.Encode

// HandleMessage implements Handler.
func (s *Service) HandleMessage(parent context.Context, c *Conn, env *Envelope) {
	// context.WithTimeout(parent, commandTimeout), made only if needed.
	cc := env.commandContext(parent, time.Now().Add(commandTimeout))
	defer cc.Cancel()
	var ctx context.Context = cc
	if env.Type == protocol.TypeHello {
		s.hello(ctx, c, env)
		return
	}
	pid := c.PlayerID()
	if pid == "" {
		c.SendError(env.ID, protocol.CodeUnauthorized, "say hello first")
		return
	}
	var err error
	switch env.Type {
	case protocol.TypeCreateMatch:
		var m protocol.CreateMatch
		if err = decode(env, &m); err == nil {
			err = s.replyMatch(c, env, func() (*match.MatchInfo, error) { return s.Lobby.CreateMatch(ctx, pid, m.Settings) })
		}
	case protocol.TypeQuickMatch:
		var m protocol.CreateMatch
		if err = decode(env, &m); err == nil {
			err = s.replyMatch(c, env, func() (*match.MatchInfo, error) { return s.Lobby.QuickMatch(ctx, pid, m.Settings) })
		}
	case protocol.TypeListMatches:
		err = s.listMatches(ctx, c, env)
	case protocol.TypeJoinMatch:
		var m protocol.MatchRef
		if err = decode(env, &m); err == nil {
			if m.MatchID == "" && m.Code == "" {
				err = errBadRequest("join_match needs match_id or code")
			} else {
				err = s.replyMatch(c, env, func() (*match.MatchInfo, error) { return s.Lobby.JoinMatch(ctx, pid, m.MatchID, m.Code) })
			}
		}
	case protocol.TypeLeaveMatch, protocol.TypeReady, protocol.TypeStartMatch, protocol.TypeSpectate, protocol.TypeRematch:
		err = s.matchCommand(ctx, c, env, pid)
	case protocol.TypeMove:
		s.move(ctx, c, env, pid)
	case protocol.TypeResign:
		var m protocol.Resign
		if err = decode(env, &m); err == nil {
			var r *match.Round
			if r, err = s.Lobby.Round(ctx, m.RoundID); err == nil {
				if err = r.Resign(ctx, pid, time.Now()); err == nil {
					c.SendJSON(protocol.Resigned{Type: protocol.TypeResigned, Re: env.ID, RoundID: m.RoundID})
				}
			}
		}
	case protocol.TypeHint:
		var m protocol.Hint
		if err = decode(env, &m); err == nil {
			err = s.hint(ctx, c, env, pid, m.RoundID)
		}
	default:
		var handled bool
		if handled, err = s.asyncMessage(ctx, c, env, pid); !handled {
			err = errBadRequest("unknown message type " + quote(env.Type))
		}
	}
	if err != nil {
		s.sendError(c, env.ID, err)
	}
}

// matchCommand handles the messages that name a match and act on it.
func (s *Service) matchCommand(ctx context.Context, c *Conn, env *Envelope, pid string) error {
	var m protocol.MatchRef
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
	if env.Type == protocol.TypeRematch {
		return s.replyMatch(c, env, func() (*match.MatchInfo, error) { return s.Lobby.Rematch(ctx, pid, m.MatchID) })
	}
	if env.Type == protocol.TypeLeaveMatch {
		if err := s.Lobby.LeaveMatch(ctx, pid, m.MatchID); err != nil {
			return err
		}
		mt, err := s.Lobby.Match(ctx, m.MatchID)
		if err != nil {
			return err
		}
		c.SendJSON(protocol.Match{Type: protocol.TypeMatch, Re: env.ID, Match: mt.Info()})
		return nil
	}
	mt, err := s.Lobby.Match(ctx, m.MatchID)
	if err != nil {
		return err
	}
	switch env.Type {
	case protocol.TypeReady:
		err = mt.SetReady(ctx, pid, m.Ready == nil || *m.Ready)
	case protocol.TypeStartMatch:
		err = mt.Start(ctx, pid)
	case protocol.TypeSpectate:
		err = mt.Spectate(ctx, pid)
	}
	if err != nil {
		return err
	}
	c.SendJSON(protocol.Match{Type: protocol.TypeMatch, Re: env.ID, Match: mt.Info()})
	return nil
}

func (s *Service) replyMatch(c *Conn, env *Envelope, f func() (*match.MatchInfo, error)) error {
	info, err := f()
	if err != nil {
		return err
	}
	c.SendJSON(protocol.Match{Type: protocol.TypeMatch, Re: env.ID, Match: info})
	return nil
}

func (s *Service) hello(ctx context.Context, c *Conn, env *Envelope) {
	if c.PlayerID() != "" {
		c.SendError(env.ID, protocol.CodeBadRequest, "hello was already said on this connection")
		return
	}
	var m protocol.Hello
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
	c.SendJSON(protocol.Welcome{
		Type: protocol.TypeWelcome, Re: env.ID, PlayerID: ses.PlayerID, Name: ses.Name, Token: ses.Token,
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
	reply := protocol.HintReply{Type: protocol.TypeHint, Re: env.ID, RoundID: roundID, Verdict: verdict}
	if move != "" {
		reply.Move = &move
	}
	c.SendJSON(reply)
	return nil
}

func (s *Service) move(ctx context.Context, c *Conn, env *Envelope, pid string) {
	start := time.Now()
	var m fast.MoveFields
	result := "accepted"
	defer func() {
		s.Metrics.Moves.WithLabelValues(result).Inc()
		s.Metrics.MoveSeconds.Observe(time.Since(start).Seconds())
	}()
	reject := func(err error) {
		code := errorCode(err)
		result = code
		msg := protocol.MoveRejected{
			Type: protocol.TypeMoveRejected, Re: env.ID, RoundID: m.RoundID, Seq: m.Seq, Code: code, Reason: errorMessage(err, code),
		}
		var ooo *match.OutOfOrderError
		if errors.As(err, &ooo) {
			msg.Expected = ooo.Expected
		}
		if code == protocol.CodeInternal {
			c.Logger().Error("move failed", "round", m.RoundID, "err", err)
		}
		c.SendJSON(msg)
	}
	if env.move != nil {
		m = *env.move
	} else {
		var dm protocol.Move // apart from m, which then need not live on the heap
		if err := decode(env, &dm); err != nil {
			result = protocol.CodeBadRequest
			s.sendError(c, env.ID, err)
			return
		}
		m = fast.MoveFields{RoundID: dm.RoundID, Seq: dm.Seq, Move: dm.Move}
	}
	r, err := s.Lobby.Round(ctx, m.RoundID)
	if err != nil {
		reject(err)
		return
	}
	// move_ok is queued while the seat is locked, so it goes out before the
	// round's results when this move was among the last.
	res, err := r.Move(ctx, pid, m.Seq, m.Move, time.Now(), func(res match.MoveResult, view []byte) {
		c.Reply(protocol.EncodeMoveOK(env.ID, m.RoundID, res, view))
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
	if code == protocol.CodeInternal {
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
