package api

import (
	"encoding/json"
	"fmt"
	"strconv"

	"klondike/api/protocol"
	"klondike/engine"
	"klondike/match"
)

// The conversions of the match's and the lobby's values into the messages
// of the wire protocol (api/protocol) are all here.

// encodeEvent writes a match's event as the message its recipients are
// sent: match, round_starting, round_started, leaderboard, round_over,
// match_over, and for asynchronous rounds ghost and attempt_over. The Hub
// calls it once for all the recipients of an event.
func encodeEvent(e match.Event) []byte {
	switch e := e.(type) {
	case match.MatchUpdate:
		return marshal(protocol.Match{Type: protocol.TypeMatch, Match: e.Info})
	case match.RoundStarting:
		msg := protocol.RoundStarting{
			Type: protocol.TypeRoundStarting, MatchID: e.MatchID, RoundID: e.RoundID, Round: e.Round,
			StartsAt: e.StartsAt, EndsAt: e.EndsAt, Rules: e.Rules,
			Commitment: e.Deal.Commitment, KnownDeal: e.Deal.Known, Winnable: e.Deal.Winnable,
		}
		if e.Deal.Known {
			msg.Seed = seedText(e.Deal.Seed)
		}
		return marshal(msg)
	case match.RoundStarted:
		return marshal(startedOf(e, ""))
	case match.Leaderboard:
		return marshal(protocol.Leaderboard{Type: protocol.TypeLeaderboard, MatchID: e.MatchID, RoundID: e.RoundID, Entries: e.Entries})
	case match.RoundOver:
		return marshal(protocol.RoundOver{
			Type: protocol.TypeRoundOver, MatchID: e.MatchID, RoundID: e.RoundID, Round: e.Round, Results: e.Results,
			Deal: protocol.DealReveal{
				Seed: seedText(e.Deal.Seed), Salt: e.Deal.Salt, Commitment: e.Deal.Commitment,
				KnownDeal: e.Deal.Known, Layout: marshal(e.Layout),
			},
			ReplayURL: protocol.ReplayPath(e.RoundID), Totals: e.Totals, Void: e.Void,
		})
	case match.MatchOver:
		return marshal(protocol.MatchOver{Type: protocol.TypeMatchOver, MatchID: e.MatchID, Totals: e.Totals, Void: e.Void})
	case match.GhostUpdate:
		ghosts := e.Ghosts
		if ghosts == nil {
			ghosts = []match.Ghost{}
		}
		return marshal(protocol.Ghost{Type: protocol.TypeGhost, RoundID: e.RoundID, ElapsedMs: e.ElapsedMs, Ghosts: ghosts})
	case match.AttemptOver:
		return marshal(protocol.AttemptOver{
			Type: protocol.TypeAttemptOver, RoundID: e.RoundID, AsyncRoundID: e.AsyncRoundID, Result: e.Result,
			Players: e.Players, Finished: e.Finished,
		})
	}
	panic(fmt.Sprintf("api: no message for the event %T", e))
}

// startedOf is the round_started of e, the reply to the client message re
// ("" for a push).
func startedOf(e match.RoundStarted, re string) protocol.RoundStarted {
	msg := protocol.RoundStarted{
		Type: protocol.TypeRoundStarted, Re: re, MatchID: e.MatchID, RoundID: e.RoundID, Round: e.Round,
		StartsAt: e.StartsAt, EndsAt: e.EndsAt, Rules: e.Rules,
		Commitment: e.Deal.Commitment, KnownDeal: e.Deal.Known,
		View: marshal(e.View), LastSeq: e.LastSeq, Resumed: e.Resumed, Winnable: e.Deal.Winnable, Kind: e.Kind,
	}
	if e.Deal.Known {
		msg.Seed = seedText(e.Deal.Seed)
	}
	return msg
}

// seedText writes a deal number as the protocol carries it: a decimal
// string, which JavaScript reads exactly.
func seedText(seed uint64) string { return strconv.FormatUint(seed, 10) }

// marshal encodes a message of the server's; none of their types can fail
// to encode.
func marshal(v any) []byte {
	b, err := json.Marshal(v)
	if err != nil {
		panic("api: encoding a message: " + err.Error())
	}
	return b
}

// moveOK is the move_ok that answers a move, with the player's view after
// it.
func moveOK(re, roundID string, res match.MoveResult, view *engine.View) []byte {
	return protocol.EncodeMoveOK(re, roundID, res.Seq, res.Events, res.Duplicate, marshal(view))
}
