package challenge

import (
	"context"
	"errors"
	"time"
)

// The caps on attempts in play. An attempt is in play from its start
// until it ends (finished, resigned, stuck, timed out or its window
// closed). A player's and an address's attempts in play are counted across
// every node that shares the Allowances: each is a hold of the attempt's
// round id, taken as it starts, until its end, and released when it ends
// on any node. A hold a node could not release (the node that ends the
// attempt never saw its player's address) lapses at the attempt's end, so
// a count never outlasts the time its attempts could be played. A node's
// own attempts are counted in its memory, where they cost it. Only a new
// attempt is counted: a resume is the same attempt, played already.

// Defaults of Config's caps.
const (
	DefaultMaxAttemptsPerPlayer = 3
	// DefaultMaxAttemptsPerIP lets a household or an office play at once,
	// not a script hold the server's attempts.
	DefaultMaxAttemptsPerIP = 20
	DefaultMaxAttempts      = 2000
	// DefaultDailyAttemptsPerIP: the players of one address who may play
	// one daily round, a whole day's count.
	DefaultDailyAttemptsPerIP = 20
)

// Errors of the caps; the api maps each to a wire code.
var (
	// ErrTooManyAttempts: the player has Config.MaxAttemptsPerPlayer
	// attempts in play.
	ErrTooManyAttempts = errors.New("you have too many attempts in play: finish one first")
	// ErrTooManyAttemptsFromAddr: the players of the address have
	// Config.MaxAttemptsPerIP attempts in play.
	ErrTooManyAttemptsFromAddr = errors.New("too many attempts in play from your address: finish one first")
	// ErrAttemptsFull: this node holds Config.MaxAttempts attempts.
	ErrAttemptsFull = errors.New("the server has too many attempts in play; try again later")
	// ErrDailyFromAddr: Config.DailyAttemptsPerIP players of the address
	// have played the daily round.
	ErrDailyFromAddr = errors.New("too many players from your address have played today's deal")
)

// The keys of the caps' counts in the Allowances.
func playerAttemptsKey(playerID string) string { return "attempts:player:" + playerID }
func addrAttemptsKey(addr string) string       { return "attempts:addr:" + addr }
func dailyAddrKey(roundID, addr string) string { return "daily:" + roundID + ":" + addr }

// holds are the counts a new attempt took, to give back if it does not
// start after all.
type holds struct {
	roundID, playerID, addr string
}

// holdNew counts a new attempt of the player, from the address key addr
// ("" for none: the caps per address do not apply), against every cap,
// and fails with the error of the first that is full; a count it took
// before that is given back. The daily count is never given back: it is a
// day's.
func (s *Service) holdNew(ctx context.Context, rec *Record, playerID, addr string, now time.Time) (*holds, error) {
	s.mu.Lock()
	n := len(s.attempts)
	s.mu.Unlock()
	if max := s.cfg.MaxAttempts; max > 0 && n >= max {
		return nil, ErrAttemptsFull
	}
	h := &holds{roundID: rec.AttemptRecord(Attempt{PlayerID: playerID}).ID, playerID: playerID}
	ends := rec.AttemptRecord(Attempt{PlayerID: playerID, StartedAt: now}).EndsAt
	if max := s.cfg.MaxAttemptsPerPlayer; max > 0 {
		ok, err := s.cfg.Allowances.Hold(ctx, playerAttemptsKey(playerID), h.roundID, max, ends, now)
		if err != nil || !ok {
			return nil, cmpErr(err, ErrTooManyAttempts)
		}
	}
	if addr == "" {
		return h, nil
	}
	if max := s.cfg.MaxAttemptsPerIP; max > 0 {
		ok, err := s.cfg.Allowances.Hold(ctx, addrAttemptsKey(addr), h.roundID, max, ends, now)
		if err != nil || !ok {
			s.release(ctx, h)
			return nil, cmpErr(err, ErrTooManyAttemptsFromAddr)
		}
		h.addr = addr
	}
	if max := s.cfg.DailyAttemptsPerIP; max > 0 && rec.Kind == KindDaily {
		ok, err := s.cfg.Allowances.Hold(ctx, dailyAddrKey(rec.ID, addr), playerID, max, rec.ClosesAt, now)
		if err != nil || !ok {
			s.release(ctx, h)
			return nil, cmpErr(err, ErrDailyFromAddr)
		}
	}
	return h, nil
}

// cmpErr is err, or refused when there is none.
func cmpErr(err, refused error) error {
	if err != nil {
		return err
	}
	return refused
}

// release gives back an attempt's counts in play: those of its player,
// and of the address when addr is known. A failure is only logged: the
// holds lapse at the attempt's end anyway.
func (s *Service) release(ctx context.Context, h *holds) {
	if s.cfg.MaxAttemptsPerPlayer > 0 {
		if err := s.cfg.Allowances.Release(ctx, playerAttemptsKey(h.playerID), h.roundID); err != nil {
			s.cfg.Logger.Warn("releasing an attempt's count failed; it lapses at the attempt's end", "round", h.roundID, "err", err)
		}
	}
	if h.addr != "" && s.cfg.MaxAttemptsPerIP > 0 {
		if err := s.cfg.Allowances.Release(ctx, addrAttemptsKey(h.addr), h.roundID); err != nil {
			s.cfg.Logger.Warn("releasing an attempt's count failed; it lapses at the attempt's end", "round", h.roundID, "err", err)
		}
	}
}
