package match

import (
	"encoding/json"
	"fmt"
)

// The kinds of the events, as nodes tell them to each other: each event's
// JSON goes with its kind, which says what to read it back as.
const (
	KindMatchUpdate   = "match"
	KindRoundStarting = "round_starting"
	KindRoundStarted  = "round_started"
	KindLeaderboard   = "leaderboard"
	KindRoundOver     = "round_over"
	KindMatchOver     = "match_over"
	KindGhostUpdate   = "ghost"
	KindAttemptOver   = "attempt_over"
)

// EventKind returns the kind of ev.
func EventKind(ev Event) string {
	switch ev.(type) {
	case MatchUpdate:
		return KindMatchUpdate
	case RoundStarting:
		return KindRoundStarting
	case RoundStarted:
		return KindRoundStarted
	case Leaderboard:
		return KindLeaderboard
	case RoundOver:
		return KindRoundOver
	case MatchOver:
		return KindMatchOver
	case GhostUpdate:
		return KindGhostUpdate
	case AttemptOver:
		return KindAttemptOver
	}
	panic(fmt.Sprintf("match: no kind for the event %T", ev))
}

// DecodeEvent reads the JSON of an event of the kind back as the event.
func DecodeEvent(kind string, data []byte) (Event, error) {
	var err error
	read := func(v any) { err = json.Unmarshal(data, v) }
	var ev Event
	switch kind {
	case KindMatchUpdate:
		var e MatchUpdate
		read(&e)
		ev = e
	case KindRoundStarting:
		var e RoundStarting
		read(&e)
		ev = e
	case KindRoundStarted:
		var e RoundStarted
		read(&e)
		ev = e
	case KindLeaderboard:
		var e Leaderboard
		read(&e)
		ev = e
	case KindRoundOver:
		var e RoundOver
		read(&e)
		ev = e
	case KindMatchOver:
		var e MatchOver
		read(&e)
		ev = e
	case KindGhostUpdate:
		var e GhostUpdate
		read(&e)
		ev = e
	case KindAttemptOver:
		var e AttemptOver
		read(&e)
		ev = e
	default:
		return nil, fmt.Errorf("match: unknown event kind %q", kind)
	}
	if err != nil {
		return nil, fmt.Errorf("match: reading a %s event: %w", kind, err)
	}
	return ev, nil
}
