package challenge

import (
	"errors"
	"time"

	"klondike/match"
)

// When the shared store loses its data (a Redis restarted empty or
// replaced), the attempts this node holds cannot end well: their logs and
// their challenges are gone. The lobby notices it by the data epoch and
// tells the service (DataLost, lobby.Config.OnDataLost), which voids
// them: each player is told why (attempt_over with void), no result goes
// on a board or into a record, and the node stops the attempts' timers,
// so it never tries to end what can no longer end. Until its end, a
// voided attempt's moves and resignation are refused with the reason.

// AttemptVoidReason is what players are told of an attempt voided because
// the store lost its data.
const AttemptVoidReason = "the server's store lost its data: this attempt does not count"

// ErrAttemptVoid: the attempt was voided, the store having lost its data.
var ErrAttemptVoid = errors.New(AttemptVoidReason)

// A voidedAttempt is what a node keeps of an attempt it voided, until the
// attempt's end: when it started, to tell it from a later attempt with
// the same round id (a daily round made again after the loss).
type voidedAttempt struct {
	startedAt, endsAt time.Time
}

// DataLost voids every attempt this node holds: the shared store lost its
// data. Calling it again voids only what was held since.
func (s *Service) DataLost() {
	now := time.Now()
	s.mu.Lock()
	for id, v := range s.voided {
		if !now.Before(v.endsAt) {
			delete(s.voided, id)
		}
	}
	if s.voided == nil {
		s.voided = map[string]voidedAttempt{}
	}
	lost := make([]*attempt, 0, len(s.attempts))
	for id, at := range s.attempts {
		at.timer.Stop()
		s.voided[id] = voidedAttempt{startedAt: at.round.StartsAt, endsAt: at.round.EndsAt}
		lost = append(lost, at)
	}
	clear(s.attempts)
	clear(s.active)
	s.mu.Unlock()
	if len(lost) == 0 {
		return
	}
	s.cfg.Logger.Error("the store lost its data: voiding this node's attempts", "attempts", len(lost))
	for _, at := range lost {
		s.cfg.Sink.Send([]string{at.playerID}, match.AttemptOver{
			RoundID: at.round.ID, ChallengeID: at.rec.ID, Void: AttemptVoidReason,
			Result: match.BoardEntry{PlayerID: at.playerID, Name: at.round.Players[0].Name},
		})
	}
}

// isVoided reports whether the attempt of a round id was voided here.
func (s *Service) isVoided(roundID string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	_, ok := s.voided[roundID]
	return ok
}

// checkVoid fails with ErrAttemptVoid for an attempt voided here; one
// that started since (another attempt under the same round id) is not.
func (s *Service) checkVoid(rec *Record, a Attempt) error {
	id := match.AttemptRoundID(rec.ID, a.PlayerID)
	s.mu.Lock()
	defer s.mu.Unlock()
	v, ok := s.voided[id]
	switch {
	case !ok:
		return nil
	case v.startedAt.Equal(a.StartedAt):
		return ErrAttemptVoid
	}
	delete(s.voided, id)
	return nil
}

// forgetVoid forgets that an attempt of the round id was voided: a new
// one started.
func (s *Service) forgetVoid(roundID string) {
	s.mu.Lock()
	delete(s.voided, roundID)
	s.mu.Unlock()
}
