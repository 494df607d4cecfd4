package protocol

import (
	"encoding/json"
	"fmt"
	"strconv"

	"klondike/match"
)

var _ match.Encoder = Encode

// Encode writes a match's event as the message its recipients are sent:
// match, round_starting, round_started, leaderboard, round_over,
// match_over, and for asynchronous rounds ghost and attempt_over. It is
// every match's encoder (match.Config.Encode), and the lobby's.
func Encode(e match.Event) []byte {
	switch e := e.(type) {
	case match.MatchUpdate:
		return marshal(Match{Type: TypeMatch, Match: e.Info})
	case match.RoundStarting:
		msg := RoundStarting{
			Type: TypeRoundStarting, MatchID: e.MatchID, RoundID: e.RoundID, Round: e.Round,
			StartsAt: e.StartsAt, EndsAt: e.EndsAt, Rules: e.Rules,
			Commitment: e.Deal.Commitment, KnownDeal: e.Deal.Known, Winnable: e.Deal.Winnable,
		}
		if e.Deal.Known {
			msg.Seed = seedText(e.Deal.Seed)
		}
		return marshal(msg)
	case match.RoundStarted:
		return marshal(Started(e, ""))
	case match.Leaderboard:
		return marshal(Leaderboard{Type: TypeLeaderboard, MatchID: e.MatchID, RoundID: e.RoundID, Entries: e.Entries})
	case match.RoundOver:
		return marshal(RoundOver{
			Type: TypeRoundOver, MatchID: e.MatchID, RoundID: e.RoundID, Round: e.Round, Results: e.Results,
			Deal: DealReveal{
				Seed: seedText(e.Deal.Seed), Salt: e.Deal.Salt, Commitment: e.Deal.Commitment,
				KnownDeal: e.Deal.Known, Layout: marshal(e.Layout),
			},
			ReplayURL: ReplayPath(e.RoundID), Totals: e.Totals, Void: e.Void,
		})
	case match.MatchOver:
		return marshal(MatchOver{Type: TypeMatchOver, MatchID: e.MatchID, Totals: e.Totals, Void: e.Void})
	case match.GhostUpdate:
		ghosts := e.Ghosts
		if ghosts == nil {
			ghosts = []match.Ghost{}
		}
		return marshal(Ghost{Type: TypeGhost, RoundID: e.RoundID, ElapsedMs: e.ElapsedMs, Ghosts: ghosts})
	case match.AttemptOver:
		return marshal(AttemptOver{
			Type: TypeAttemptOver, RoundID: e.RoundID, AsyncRoundID: e.AsyncRoundID, Result: e.Result,
			Players: e.Players, Finished: e.Finished,
		})
	}
	panic(fmt.Sprintf("protocol: no message for the event %T", e))
}

// Started is the round_started of e, the reply to the client message re
// ("" for a push).
func Started(e match.RoundStarted, re string) RoundStarted {
	msg := RoundStarted{
		Type: TypeRoundStarted, Re: re, MatchID: e.MatchID, RoundID: e.RoundID, Round: e.Round,
		StartsAt: e.StartsAt, EndsAt: e.EndsAt, Rules: e.Rules,
		Commitment: e.Deal.Commitment, KnownDeal: e.Deal.Known,
		View: e.View, LastSeq: e.LastSeq, Resumed: e.Resumed, Winnable: e.Deal.Winnable, Kind: e.Kind,
	}
	if e.Deal.Known {
		msg.Seed = seedText(e.Deal.Seed)
	}
	return msg
}

// ReplayPath is the path, on the server that sent round_over, of the
// round's replay (GET /api/v1/rounds/{id}/replay).
func ReplayPath(roundID string) string { return "/api/v1/rounds/" + roundID + "/replay" }

// seedText writes a deal number as the protocol carries it: a decimal
// string, which JavaScript reads exactly.
func seedText(seed uint64) string { return strconv.FormatUint(seed, 10) }

// marshal encodes a message of the server's; none of their types can fail
// to encode.
func marshal(v any) []byte {
	b, err := json.Marshal(v)
	if err != nil {
		panic("protocol: encoding a message: " + err.Error())
	}
	return b
}
