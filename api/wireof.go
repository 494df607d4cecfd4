package api

import (
	"encoding/json"
	"fmt"
	"strconv"

	"klondike/api/internal/fast"
	"klondike/api/protocol"
	"klondike/engine"
	"klondike/lobby/challenge"
	"klondike/match"
)

// The conversions of the match's and the lobby's values into the messages
// of the wire protocol (api/protocol) are all here.

// encodeEvent writes a match's event as the message its recipients are
// sent: match, round_starting, round_started, leaderboard, round_over,
// match_over, and for challenges ghost and attempt_over. The Hub
// calls it once for all the recipients of an event.
func encodeEvent(e match.Event) []byte {
	switch e := e.(type) {
	case match.MatchUpdate:
		return marshal(protocol.Match{Type: protocol.TypeMatch, Match: wireInfo(e.Info)})
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
		return marshal(protocol.Leaderboard{Type: protocol.TypeLeaderboard, MatchID: e.MatchID, RoundID: e.RoundID, Entries: wireEntries(e.Entries)})
	case match.RoundOver:
		return marshal(protocol.RoundOver{
			Type: protocol.TypeRoundOver, MatchID: e.MatchID, RoundID: e.RoundID, Round: e.Round, Results: wireEntries(e.Results),
			Deal: protocol.DealReveal{
				Seed: seedText(e.Deal.Seed), Salt: e.Deal.Salt, Commitment: e.Deal.Commitment,
				KnownDeal: e.Deal.Known, Layout: marshal(e.Layout),
			},
			ReplayURL: protocol.ReplayPath(e.RoundID), Totals: wireTotals(e.Totals), Void: e.Void,
		})
	case match.MatchOver:
		return marshal(protocol.MatchOver{Type: protocol.TypeMatchOver, MatchID: e.MatchID, Totals: wireTotals(e.Totals), Void: e.Void})
	case match.GhostUpdate:
		ghosts := wireGhosts(e.Ghosts)
		if ghosts == nil {
			ghosts = []protocol.GhostStanding{}
		}
		return marshal(protocol.Ghost{Type: protocol.TypeGhost, RoundID: e.RoundID, ElapsedMs: e.ElapsedMs, Ghosts: ghosts})
	case match.AttemptOver:
		return marshal(protocol.AttemptOver{
			Type: protocol.TypeAttemptOver, RoundID: e.RoundID, AsyncRoundID: e.ChallengeID, Result: wireBoardEntry(e.Result),
			Players: e.Players, Finished: e.Finished, Void: e.Void,
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
		View: fast.AppendViewJSON(nil, &e.View), LastSeq: e.LastSeq, Resumed: e.Resumed, Winnable: e.Deal.Winnable, Kind: e.Kind,
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
	return fast.MoveOK(re, roundID, res.Seq, res.Events, res.Duplicate, view)
}

// settingsOf is what a client's settings ask of the match.
func settingsOf(p protocol.PartialSettings) match.PartialSettings {
	return match.PartialSettings{
		Draw: p.Draw, Passes: p.Passes, Scoring: p.Scoring, Undo: p.Undo, FoundationToTableau: p.FoundationToTableau,
		Mode: (*match.Mode)(p.Mode), Rounds: p.Rounds, MaxPlayers: p.MaxPlayers, TimeLimitS: p.TimeLimitS,
		Public: p.Public, Seed: p.Seed, CountdownS: p.CountdownS, Deals: p.Deals, Game: p.Game, Rated: p.Rated,
	}
}

// wireSettings is a match's settings on the wire.
func wireSettings(s match.Settings) protocol.Settings {
	return protocol.Settings{
		Draw: s.Draw, Passes: s.Passes, Scoring: s.Scoring, Undo: s.Undo, FoundationToTableau: s.FoundationToTableau,
		Mode: string(s.Mode), Rounds: s.Rounds, MaxPlayers: s.MaxPlayers, TimeLimitS: s.TimeLimitS, Public: s.Public,
		Seed: s.Seed, CountdownS: s.CountdownS, Deals: s.Deals, Game: s.Game, Rated: s.Rated,
	}
}

// wireInfo is a match's snapshot on the wire; nil for nil.
func wireInfo(in *match.MatchInfo) *protocol.MatchInfo {
	if in == nil {
		return nil
	}
	return &protocol.MatchInfo{
		ID: in.ID, Code: in.Code, Host: in.Host, Settings: wireSettings(in.Settings),
		Players: convert(in.Players, func(m match.MemberInfo) protocol.MemberInfo { return protocol.MemberInfo(m) }),
		State:   protocol.State(in.State), Round: in.Round, RoundID: in.RoundID, Spectators: in.Spectators, Quick: in.Quick,
		Totals: wireTotals(in.Totals), NextMatch: in.NextMatch, Ratings: wireRatings(in.Ratings),
	}
}

// wireRatings is a round's rating changes on the wire; nil for nil.
func wireRatings(rr *match.RoundRatings) *protocol.RoundRatings {
	if rr == nil {
		return nil
	}
	return &protocol.RoundRatings{RoundID: rr.RoundID, Unrated: rr.Unrated,
		Changes: convert(rr.Changes, func(c match.RatingChange) protocol.RatingChange { return protocol.RatingChange(c) })}
}

// wireInfos is wireInfo of each.
func wireInfos(ins []*match.MatchInfo) []*protocol.MatchInfo { return convert(ins, wireInfo) }

func wireTotals(ts []match.Total) []protocol.Total {
	return convert(ts, func(t match.Total) protocol.Total { return protocol.Total(t) })
}

func wireEntries(es []match.Entry) []protocol.Entry {
	return convert(es, func(e match.Entry) protocol.Entry { return protocol.Entry(e) })
}

func wireChallengeInfo(a challenge.Info) protocol.AsyncInfo {
	return protocol.AsyncInfo{
		RoundID: a.RoundID, Kind: a.Kind, Variant: a.Variant, Rules: a.Rules, Mode: string(a.Mode), LimitMs: a.LimitMs,
		OpensAt: a.OpensAt, ClosesAt: a.ClosesAt, Day: a.Day, CreatorID: a.CreatorID, CreatorName: a.CreatorName,
		Commitment: a.Commitment, KnownDeal: a.KnownDeal, Winnable: a.Winnable, Closed: a.Closed, ClosedEarly: a.ClosedEarly,
		Seed: a.Seed, Salt: a.Salt, Players: a.Players, Finished: a.Finished,
	}
}

func wireBoardEntry(e match.BoardEntry) protocol.BoardEntry {
	return protocol.BoardEntry{
		PlayerID: e.PlayerID, Name: e.Name, Rank: e.Rank, Score: e.Score, Foundation: e.Foundation,
		Moves: e.Moves, Status: e.Status, ElapsedMs: e.ElapsedMs, ReachedMs: e.ReachedMs,
	}
}

func wireBoardPage(p challenge.BoardPage) protocol.BoardPage {
	return protocol.BoardPage{
		Players: p.Players, Finished: p.Finished, Top: convert(p.Top, wireBoardEntry),
		Around: convert(p.Around, wireBoardEntry), Rank: p.Rank,
	}
}

func wireRecords(rs []challenge.VariantRecord) []protocol.VariantRecord {
	return convert(rs, func(r challenge.VariantRecord) protocol.VariantRecord { return protocol.VariantRecord(r) })
}

func wireGhosts(gs []match.Ghost) []protocol.GhostStanding {
	return convert(gs, func(g match.Ghost) protocol.GhostStanding { return protocol.GhostStanding(g) })
}

// convert maps each of in through f, keeping a nil list nil (null on the
// wire) and an empty one empty ([]).
func convert[T, U any](in []T, f func(T) U) []U {
	if in == nil {
		return nil
	}
	out := make([]U, len(in))
	for i, v := range in {
		out[i] = f(v)
	}
	return out
}
