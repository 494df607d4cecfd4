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
	"klondike/api/ws"
	"klondike/engine"
	"klondike/lobby"
	"klondike/lobby/challenge"
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
	// Not unavailable: a client tries an unavailable move again, and this
	// one can never be kept.
	{match.ErrDataLost, protocol.CodeRoundNotRunning},
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
	{match.ErrMoveLimit, protocol.CodeIllegalMove},
	{match.ErrBadSettings, protocol.CodeBadRequest},
	{match.ErrNoHints, protocol.CodeBadRequest},
	{match.ErrNoHintsForGame, protocol.CodeBadRequest},
	{errNoHintsHere, protocol.CodeBadRequest},
	{lobby.ErrBadName, protocol.CodeBadRequest},
	{lobby.ErrUnknownToken, protocol.CodeUnauthorized},
	{lobby.ErrNoSuchMatch, protocol.CodeNotFound},
	{lobby.ErrNoSuchRound, protocol.CodeNotFound},
	{lobby.ErrNoSuchPlayer, protocol.CodeNotFound},
	{lobby.ErrTooManyPasskeys, protocol.CodeBadRequest},
	{lobby.ErrPasskeyTaken, protocol.CodeBadRequest},
	{lobby.ErrBadCursor, protocol.CodeBadRequest},
	{lobby.ErrInAnotherMatch, protocol.CodeBadRequest},
	{lobby.ErrShuttingDown, protocol.CodeUnavailable},
	{lobby.ErrTooManyOpenFromAddr, protocol.CodeRateLimited},
	{lobby.ErrTooManyOpen, protocol.CodeUnavailable},
	{lobby.ErrTooManyNewSessions, protocol.CodeRateLimited},
	{challenge.ErrAlreadyPlayed, protocol.CodeAlreadyPlayed},
	{challenge.ErrWindowClosed, protocol.CodeRoundNotRunning},
	{challenge.ErrNoSuchChallenge, protocol.CodeNotFound},
	{challenge.ErrNotCreator, protocol.CodeUnauthorized},
	{challenge.ErrTooManyChallenges, protocol.CodeRateLimited},
	{challenge.ErrTooManyAttempts, protocol.CodeRateLimited},
	{challenge.ErrTooManyAttemptsFromAddr, protocol.CodeRateLimited},
	{challenge.ErrDailyFromAddr, protocol.CodeRateLimited},
	{challenge.ErrAttemptsFull, protocol.CodeUnavailable},
	{challenge.ErrAttemptVoid, protocol.CodeRoundNotRunning},
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
// ws.Handler of every WebSocket connection, and its afterMessage the
// connections' AfterMessage hook.
type Service struct {
	Lobby      *lobby.Lobby
	Challenges *challenge.Service
	Hub        *Hub
	Metrics    *Metrics
	Log        *slog.Logger
	// Hint answers "hint" in solo rounds; nil offers none.
	Hint match.HintFunc

	hintOnce sync.Once
	hints    chan struct{} // one hint search at a time on this node
}

// errNoHintsHere: the server was started without a hint solver.
var errNoHintsHere = errors.New("this server offers no hints")

var _ ws.Handler = (*Service)(nil)

// A handler answers one type of message for the player pid ("" only for
// hello, the one message taken before hello). It decodes the message's
// own fields; the error it returns, if any, is sent as an error message
// (see errorCode).
type handler func(s *Service, ctx context.Context, c *ws.Conn, env *Envelope, pid string) error

// handlers maps each message type a client sends to its handler: the one
// place where that choice is made.
var handlers = map[string]handler{
	protocol.TypeHello:           (*Service).hello,
	protocol.TypeCreateMatch:     (*Service).createMatch,
	protocol.TypeQuickMatch:      (*Service).quickMatch,
	protocol.TypeListMatches:     (*Service).listMatches,
	protocol.TypeJoinMatch:       (*Service).joinMatch,
	protocol.TypeLeaveMatch:      (*Service).leaveMatch,
	protocol.TypeReady:           (*Service).ready,
	protocol.TypeStartMatch:      (*Service).startMatch,
	protocol.TypeSpectate:        (*Service).spectate,
	protocol.TypeRematch:         (*Service).rematch,
	protocol.TypeMove:            (*Service).move,
	protocol.TypeResign:          (*Service).resign,
	protocol.TypeHint:            (*Service).hint,
	protocol.TypePlayHere:        (*Service).playHere,
	protocol.TypeCreateChallenge: (*Service).createChallenge,
	protocol.TypeGetAsyncRound:   (*Service).getChallenge,
	protocol.TypeCloseChallenge:  (*Service).closeChallenge,
	protocol.TypeStartAttempt:    (*Service).startAttempt,
	protocol.TypeGetDaily:        (*Service).getDaily,
	protocol.TypeGetBoard:        (*Service).getBoard,
	protocol.TypeGetRecords:      (*Service).getRecords,
}

// HandleMessage implements ws.Handler: it decodes the message's envelope
// and hands it to its type's handler, within commandTimeout. Only hello is
// taken before hello.
func (s *Service) HandleMessage(c *ws.Conn, frame []byte) {
	env, re, problem := decodeEnvelope(frame)
	if env == nil {
		sendErr(c, re, protocol.CodeBadRequest, problem)
		return
	}
	// context.WithTimeout(c.Context(), commandTimeout), made only if needed.
	cc := env.commandContext(c.Context(), time.Now().Add(commandTimeout))
	defer cc.Cancel()
	pid := c.UserID()
	if pid == "" && env.Type != protocol.TypeHello {
		sendErr(c, env.ID, protocol.CodeUnauthorized, "say hello first")
		return
	}
	h, ok := handlers[env.Type]
	if !ok {
		s.sendError(c, env.ID, errBadRequest("unknown message type "+quote(env.Type)))
		return
	}
	if err := h(s, cc, c, env, pid); err != nil {
		s.sendError(c, env.ID, err)
	}
}

// refused is the connections' ws.Config.Refused: a message over the rate
// gets rate_limited, naming the dropped message so that the client knows
// what to resend, and a binary frame bad_request.
func (s *Service) refused(c *ws.Conn, frame []byte, why ws.Refusal) {
	switch why {
	case ws.RateLimited:
		env, re, _ := decodeEnvelope(frame)
		if env != nil {
			re = env.ID
		}
		sendErr(c, re, protocol.CodeRateLimited, "too many messages; slow down")
	case ws.Binary:
		sendErr(c, "", protocol.CodeBadRequest, "binary frames are not supported; send JSON text")
	}
}

// afterMessage is the connections' ws.Config.AfterMessage: it asks the
// pace of the player's running round for a leaderboard that the message
// just handled made due, which then leaves in the reply's write.
func (s *Service) afterMessage(c *ws.Conn) {
	pid := c.UserID()
	if pid == "" {
		return
	}
	if p := s.Hub.pace(pid, c); p != nil {
		p.SendDue()
	}
}

// Closed implements ws.Handler: a dropped player keeps their seat and game.
func (s *Service) Closed(c *ws.Conn) {
	id := c.UserID()
	if id == "" {
		return
	}
	wasPlaying, next := s.Hub.Detach(id, c)
	if !wasPlaying {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), commandTimeout)
	defer cancel()
	// Another connection of the player's plays now: it gets the match
	// and round as on resume. None: the player is away.
	s.Lobby.Connected(ctx, id, next != nil)
}

func (s *Service) hello(ctx context.Context, c *ws.Conn, env *Envelope, pid string) error {
	if pid != "" {
		return errBadRequest("hello was already said on this connection")
	}
	var m protocol.Hello
	if err := decode(env, &m); err != nil {
		return err
	}
	ses, resumed, err := s.Lobby.HelloFrom(ctx, c.RemoteIP(), m.Name, m.Token)
	if err != nil {
		return err
	}
	c.SetUserID(ses.PlayerID)
	prev := s.Hub.Attach(ses.PlayerID, c)
	current := s.Lobby.Current(ctx, ses.PlayerID)
	c.SendJSON(protocol.Welcome{
		Type: protocol.TypeWelcome, Re: env.ID, PlayerID: ses.PlayerID, Name: ses.Name, Tag: ses.Tag, Token: ses.Token,
		ServerTime: time.Now().UTC(), Resumed: resumed, MatchID: current,
	})
	if prev != nil && current != "" {
		prev.SendJSON(protocol.PlayingElsewhere{Type: protocol.TypePlayingElsewhere, MatchID: current})
	}
	if resumed {
		s.Lobby.Connected(ctx, ses.PlayerID, true)
	}
	return nil
}

// playHere makes c the player's connection that plays (see Hub): the
// match and round are resent to it as on resume, and the connection that
// played before is told.
func (s *Service) playHere(ctx context.Context, c *ws.Conn, env *Envelope, pid string) error {
	var m protocol.PlayHere
	if err := decode(env, &m); err != nil {
		return err
	}
	current := s.Lobby.Current(ctx, pid)
	if current == "" {
		return fmt.Errorf("%w: you are in no match", lobby.ErrNoSuchMatch)
	}
	prev, ok := s.Hub.PlayHere(pid, c)
	if !ok {
		return errBadRequest("this connection is closing")
	}
	if prev != nil {
		prev.SendJSON(protocol.PlayingElsewhere{Type: protocol.TypePlayingElsewhere, MatchID: current})
	}
	mt, err := s.Lobby.Match(ctx, current)
	if err != nil {
		return err
	}
	if err := replyMatch(c, env)(mt.Info(), nil); err != nil {
		return err
	}
	s.Lobby.Connected(ctx, pid, true)
	return nil
}

func (s *Service) createMatch(ctx context.Context, c *ws.Conn, env *Envelope, pid string) error {
	var m protocol.CreateMatch
	if err := decode(env, &m); err != nil {
		return err
	}
	return replyMatch(c, env)(s.Lobby.CreateMatch(ctx, pid, settingsOf(m.Settings)))
}

func (s *Service) quickMatch(ctx context.Context, c *ws.Conn, env *Envelope, pid string) error {
	var m protocol.CreateMatch
	if err := decode(env, &m); err != nil {
		return err
	}
	return replyMatch(c, env)(s.Lobby.QuickMatch(ctx, pid, settingsOf(m.Settings)))
}

func (s *Service) joinMatch(ctx context.Context, c *ws.Conn, env *Envelope, pid string) error {
	var m protocol.MatchRef
	if err := decode(env, &m); err != nil {
		return err
	}
	if m.MatchID == "" && m.Code == "" {
		return errBadRequest("join_match needs match_id or code")
	}
	return replyMatch(c, env)(s.Lobby.JoinMatch(ctx, pid, m.MatchID, m.Code))
}

// matchRef reads the match a message names: by match_id, or by code, or
// else the player's current match.
func (s *Service) matchRef(ctx context.Context, env *Envelope, pid string) (protocol.MatchRef, error) {
	var m protocol.MatchRef
	if err := decode(env, &m); err != nil {
		return m, err
	}
	if m.MatchID == "" && m.Code != "" {
		mt, err := s.Lobby.MatchByCode(ctx, m.Code)
		if err != nil {
			return m, err
		}
		m.MatchID = mt.ID
	}
	if m.MatchID == "" {
		m.MatchID = s.Lobby.Current(ctx, pid)
	}
	return m, nil
}

func (s *Service) rematch(ctx context.Context, c *ws.Conn, env *Envelope, pid string) error {
	m, err := s.matchRef(ctx, env, pid)
	if err != nil {
		return err
	}
	return replyMatch(c, env)(s.Lobby.Rematch(ctx, pid, m.MatchID))
}

func (s *Service) leaveMatch(ctx context.Context, c *ws.Conn, env *Envelope, pid string) error {
	m, err := s.matchRef(ctx, env, pid)
	if err != nil {
		return err
	}
	if err := s.Lobby.LeaveMatch(ctx, pid, m.MatchID); err != nil {
		return err
	}
	mt, err := s.Lobby.Match(ctx, m.MatchID)
	if err != nil {
		return err
	}
	c.SendJSON(protocol.Match{Type: protocol.TypeMatch, Re: env.ID, Match: wireInfo(mt.Info())})
	return nil
}

// actOnMatch does what ready, start_match and spectate ask of the match
// they name, and answers with the match.
func (s *Service) actOnMatch(ctx context.Context, c *ws.Conn, env *Envelope, pid string, act func(*match.Match, protocol.MatchRef) error) error {
	m, err := s.matchRef(ctx, env, pid)
	if err != nil {
		return err
	}
	mt, err := s.Lobby.Match(ctx, m.MatchID)
	if err != nil {
		return err
	}
	if err := act(mt, m); err != nil {
		return err
	}
	c.SendJSON(protocol.Match{Type: protocol.TypeMatch, Re: env.ID, Match: wireInfo(mt.Info())})
	return nil
}

func (s *Service) ready(ctx context.Context, c *ws.Conn, env *Envelope, pid string) error {
	return s.actOnMatch(ctx, c, env, pid, func(mt *match.Match, m protocol.MatchRef) error {
		return mt.SetReady(ctx, pid, m.Ready == nil || *m.Ready)
	})
}

func (s *Service) startMatch(ctx context.Context, c *ws.Conn, env *Envelope, pid string) error {
	return s.actOnMatch(ctx, c, env, pid, func(mt *match.Match, _ protocol.MatchRef) error { return mt.Start(ctx, pid) })
}

func (s *Service) spectate(ctx context.Context, c *ws.Conn, env *Envelope, pid string) error {
	return s.actOnMatch(ctx, c, env, pid, func(mt *match.Match, _ protocol.MatchRef) error { return mt.Spectate(ctx, pid) })
}

// replyMatch answers with the match a lobby call returned, or returns its
// error.
func replyMatch(c *ws.Conn, env *Envelope) func(*match.MatchInfo, error) error {
	return func(info *match.MatchInfo, err error) error {
		if err != nil {
			return err
		}
		c.SendJSON(protocol.Match{Type: protocol.TypeMatch, Re: env.ID, Match: wireInfo(info)})
		return nil
	}
}

func (s *Service) resign(ctx context.Context, c *ws.Conn, env *Envelope, pid string) error {
	var m protocol.Resign
	if err := decode(env, &m); err != nil {
		return err
	}
	r, err := s.Lobby.Round(ctx, m.RoundID)
	if err != nil {
		return err
	}
	if err := r.Resign(ctx, pid, time.Now()); err != nil {
		return err
	}
	c.SendJSON(protocol.Resigned{Type: protocol.TypeResigned, Re: env.ID, RoundID: m.RoundID})
	return nil
}

// hint answers a solo player's "hint" with the solver's next move. One
// search runs at a time on a node; a request meanwhile gets unavailable,
// to retry.
func (s *Service) hint(ctx context.Context, c *ws.Conn, env *Envelope, pid string) error {
	var m protocol.Hint
	if err := decode(env, &m); err != nil {
		return err
	}
	if s.Hint == nil {
		return errNoHintsHere
	}
	s.hintOnce.Do(func() { s.hints = make(chan struct{}, 1) })
	r, err := s.Lobby.Round(ctx, m.RoundID)
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
	reply := protocol.HintReply{Type: protocol.TypeHint, Re: env.ID, RoundID: m.RoundID, Verdict: verdict}
	if move != "" {
		reply.Move = &move
	}
	c.SendJSON(reply)
	return nil
}

// move plays a move. It answers every outcome itself (move_ok, or
// move_rejected with the move's round and seq), and counts it.
func (s *Service) move(ctx context.Context, c *ws.Conn, env *Envelope, pid string) error {
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
			return nil
		}
		m = fast.MoveFields{RoundID: dm.RoundID, Seq: dm.Seq, Move: dm.Move}
	}
	r, err := s.Lobby.Round(ctx, m.RoundID)
	if err != nil {
		reject(err)
		return nil
	}
	// move_ok is queued while the seat is locked, so it goes out before the
	// round's results when this move was among the last.
	res, err := r.Move(ctx, pid, m.Seq, m.Move, time.Now(), func(res match.MoveResult, view *engine.View) {
		c.Reply(moveOK(env.ID, m.RoundID, res, view))
	})
	if err != nil {
		reject(err)
		return nil
	}
	if res.Duplicate {
		result = "duplicate"
	}
	return nil
}

// sendErr sends {"type":"error","re":re,"code":code,"message":message},
// without "re" when re is empty.
func sendErr(c *ws.Conn, re, code, message string) bool {
	return c.SendJSON(protocol.Error{Type: protocol.TypeError, Re: re, Code: code, Message: message})
}

func (s *Service) sendError(c *ws.Conn, re string, err error) {
	code := errorCode(err)
	if code == protocol.CodeInternal {
		c.Logger().Error("request failed", "err", err)
	}
	sendErr(c, re, code, errorMessage(err, code))
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
