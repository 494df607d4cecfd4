package api

import (
	"bufio"
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"strings"
	"testing"
	"time"

	"klondike/api/internal/fast"
	"klondike/api/protocol"
	"klondike/engine"
	"klondike/match"
)

var updateGolden = flag.Bool("update", false, "rewrite protocol/testdata/messages.golden from the current encoding")

// The fixtures of the golden messages: every field set somewhere, names
// that need escaping, empty lists and absent ones.
var (
	gT0      = time.Date(2026, 12, 2, 12, 47, 37, 687103101, time.UTC)
	gT1      = gT0.Add(10 * time.Minute)
	gRules   = engine.DefaultRules()
	gVegas   = engine.Rules{Draw: 1, Passes: 1, FoundationToTableau: false, Undo: engine.UndoOff, Scoring: engine.ScoringVegas}
	gSalt    = "4c1dff99dad24dbf864fd92c0b9a7e6e"
	gSeed    = uint64(4767396597662984155)
	gFinish  = int64(836)
	gEntries = []match.Entry{
		{PlayerID: "51ce19722766c6cd", Name: "alice", Rank: 1, Score: 10, Foundation: 0, Moves: 4, Status: engine.Playing, ReachedMs: 421},
		{PlayerID: "e3f0e32acbe94936", Name: "bob <&> \"é\"", Rank: 2, Score: 0, Foundation: 1, Moves: 1, Status: engine.Resigned, FinishedMs: &gFinish, Helped: true},
	}
	gTotals = []match.Total{
		{PlayerID: "51ce19722766c6cd", Name: "alice", Total: 10, Wins: 1, GamesWon: 1, Placings: []int{1, 2}, Rank: 1},
		{PlayerID: "e3f0e32acbe94936", Name: "bob", Total: 0, Wins: 0, Placings: []int{}, Rank: 2},
	}
	gInfo = &match.MatchInfo{
		ID: "35c60f3cec9ddca4", Code: "VJPYET", Host: "51ce19722766c6cd",
		Settings: func() match.Settings { s := match.DefaultSettings(); s.Seed = "1"; s.Public = true; return s }(),
		Players:  []match.MemberInfo{{PlayerID: "51ce19722766c6cd", Name: "alice", Ready: true, Connected: true}, {PlayerID: "e3f0e32acbe94936", Name: "bob"}},
		State:    match.StateBetween, Round: 1, RoundID: "3418e212c6f57ca6", Spectators: 2, Quick: true, Totals: gTotals, NextMatch: "0e6cb76d3b12c494",
	}
	gOpen = &match.MatchInfo{ID: "6d9a481b3488bd4e", Code: "PVHCMH", Settings: match.DefaultSettings(), Players: []match.MemberInfo{}, State: match.StateOpen}
	// gDouble is an open match of another game than Klondike, which its
	// settings name.
	gDouble = &match.MatchInfo{ID: "6d9a481b3488bd4e", Code: "PVHCMH", Players: []match.MemberInfo{}, State: match.StateOpen,
		Settings: match.WithDefaults(match.PartialSettings{Game: new("double_klondike")})}
	gDoubleRules = engine.DefaultRulesFor(engine.DoubleKlondike)
)

func gGame() *engine.Game {
	g, err := engine.NewGame(engine.NumberedDeal(1), gRules)
	if err != nil {
		panic(err)
	}
	return g
}

func gView() []byte { return marshal(gGame().View(421)) }

// goldenMessages returns every server message of the golden file, by name,
// as the server writes it: the match's events through encodeEvent, the api's
// replies through encoding/json, move_ok through fast.AppendMoveOK.
func goldenMessages(t *testing.T) [][2]string {
	view := gView()
	yes, no := true, false
	secret := match.FairDeal{Seed: gSeed, Salt: gSalt, Commitment: match.Commitment(gSalt, gSeed)}
	announce := match.DealAnnouncement{Commitment: secret.Commitment}
	move := "T6-F"
	var out [][2]string
	event := func(name string, e match.Event) { out = append(out, [2]string{name, string(encodeEvent(e))}) }
	reply := func(name string, v any) {
		b, err := json.Marshal(v)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, [2]string{name, string(b)})
	}
	event("match", match.MatchUpdate{Info: gInfo})
	event("match_open", match.MatchUpdate{Info: gOpen})
	event("round_starting", match.RoundStarting{MatchID: "m1", RoundID: "r1", Round: 1, StartsAt: gT0, EndsAt: gT1, Rules: gRules, Deal: announce})
	event("round_starting_known", match.RoundStarting{MatchID: "m1", RoundID: "r1", Round: 2, StartsAt: gT0, EndsAt: gT1, Rules: gVegas,
		Deal: match.DealAnnouncement{Known: true, Seed: 1}})
	event("round_starting_winnable", match.RoundStarting{MatchID: "m1", RoundID: "r1", Round: 3, StartsAt: gT0, EndsAt: gT1, Rules: gRules,
		Deal: match.DealAnnouncement{Commitment: secret.Commitment, Winnable: &yes}})
	event("round_starting_not_winnable", match.RoundStarting{MatchID: "m1", RoundID: "r1", Round: 3, StartsAt: gT0, EndsAt: gT1, Rules: gRules,
		Deal: match.DealAnnouncement{Commitment: secret.Commitment, Winnable: &no}})
	event("round_started", match.RoundStarted{MatchID: "m1", RoundID: "r1", Round: 1, StartsAt: gT0, EndsAt: gT1, Rules: gRules, Deal: announce, View: gGame().View(421)})
	event("round_started_known_resumed", match.RoundStarted{MatchID: "m1", RoundID: "r1", Round: 1, StartsAt: gT0, EndsAt: gT1, Rules: gVegas,
		Deal: match.DealAnnouncement{Known: true, Seed: 18446744073709551615, Winnable: &no}, View: gGame().View(421), LastSeq: 41, Resumed: true})
	event("leaderboard", match.Leaderboard{MatchID: "m1", RoundID: "r1", Entries: gEntries})
	event("leaderboard_empty", match.Leaderboard{MatchID: "m1", RoundID: "r1"})
	event("round_over", match.RoundOver{MatchID: "m1", RoundID: "3418e212c6f57ca6", Round: 1, Results: gEntries, Deal: secret,
		Layout: engine.NumberedDeal(gSeed), Totals: gTotals})
	event("round_over_known_void", match.RoundOver{MatchID: "m1", RoundID: "r2", Round: 2, Deal: match.KnownDeal(1),
		Layout: engine.NumberedDeal(1), Totals: gTotals, Void: "the shared store lost its data"})
	event("match_double_klondike", match.MatchUpdate{Info: gDouble})
	event("round_starting_double_klondike", match.RoundStarting{MatchID: "m1", RoundID: "r1", Round: 1, StartsAt: gT0, EndsAt: gT1,
		Rules: gDoubleRules, Deal: announce})
	event("round_over_double_klondike", match.RoundOver{MatchID: "m1", RoundID: "r3", Round: 1, Results: gEntries, Deal: secret,
		Layout: engine.NumberedDealFor(engine.DoubleKlondike, gSeed), Totals: gTotals})
	event("match_over", match.MatchOver{MatchID: "m1", Totals: gTotals})
	event("match_over_void", match.MatchOver{MatchID: "m1", Totals: []match.Total{}, Void: "abandoned"})

	reply("welcome", protocol.Welcome{Type: protocol.TypeWelcome, Re: "1", PlayerID: "51ce19722766c6cd", Name: "alice", Tag: "#51CE",
		Token: "ee91610b0524be0eb39d7ec987942f53b36bdb0f92c5030e", ServerTime: gT0, Resumed: true, MatchID: "35c60f3cec9ddca4"})
	reply("welcome_new", protocol.Welcome{Type: protocol.TypeWelcome, PlayerID: "51ce19722766c6cd", Name: "alice", Tag: "#51CE", Token: "ee91", ServerTime: gT0})
	reply("playing_elsewhere", protocol.PlayingElsewhere{Type: protocol.TypePlayingElsewhere, MatchID: "35c60f3cec9ddca4"})
	reply("match_reply", protocol.Match{Type: protocol.TypeMatch, Re: "2", Match: wireInfo(gInfo)})
	reply("matches", protocol.Matches{Type: protocol.TypeMatches, Re: "v", Matches: wireInfos([]*match.MatchInfo{gOpen, gInfo}), NextCursor: "1e"})
	reply("matches_last", protocol.Matches{Type: protocol.TypeMatches, Re: "w", Matches: wireInfos([]*match.MatchInfo{})})
	reply("error", protocol.Error{Type: protocol.TypeError, Re: "i", Code: protocol.CodeNotFound, Message: "no such match"})
	reply("error_no_re", protocol.Error{Type: protocol.TypeError, Code: protocol.CodeRateLimited, Message: "too many messages; slow down"})
	reply("move_rejected", protocol.MoveRejected{Type: protocol.TypeMoveRejected, Re: "5", RoundID: "r1", Seq: 3, Code: protocol.CodeOutOfOrder,
		Reason: "out of order: expected seq 2", Expected: 2})
	reply("move_rejected_illegal", protocol.MoveRejected{Type: protocol.TypeMoveRejected, Re: "6", RoundID: "r1", Seq: 2, Code: protocol.CodeIllegalMove,
		Reason: "KD to the empty D foundation"})
	reply("resigned", protocol.Resigned{Type: protocol.TypeResigned, Re: "7", RoundID: "r1"})
	reply("hint", protocol.HintReply{Type: protocol.TypeHint, Re: "8", RoundID: "r1", Move: &move, Verdict: "winnable"})
	reply("hint_none", protocol.HintReply{Type: protocol.TypeHint, RoundID: "r1", Verdict: "unwinnable"})
	out = append(out, [2]string{"move_ok", string(fast.AppendMoveOK(nil, "5", "r1", 2, view, engine.Revealed|engine.ToTableau, false))})
	out = append(out, [2]string{"move_ok_duplicate", string(fast.AppendMoveOK(nil, "", "r1", 2, view, 0, true))})
	out = append(out, [2]string{"move_ok_redo", string(fast.AppendMoveOK(nil, "9", "r1", 4, view, engine.Redid|engine.ToFoundation, false))})
	return out
}

// TestGoldenMessages holds every server message to the bytes of
// testdata/messages.golden: what the server sent before the protocol had
// a package of its own, which web and terminal clients and other nodes read
// (go test ./api/protocol -update rewrites it after a deliberate change).
func TestGoldenMessages(t *testing.T) {
	got := goldenMessages(t)
	const path = "protocol/testdata/messages.golden"
	if *updateGolden {
		var b bytes.Buffer
		for _, m := range got {
			fmt.Fprintf(&b, "%s\t%s\n", m[0], m[1])
		}
		if err := os.WriteFile(path, b.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	want := map[string]string{}
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		name, msg, _ := strings.Cut(sc.Text(), "\t")
		want[name] = msg
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	if len(want) != len(got) {
		t.Errorf("%s has %d messages, the test makes %d", path, len(want), len(got))
	}
	for _, m := range got {
		if w, ok := want[m[0]]; !ok {
			t.Errorf("%s: not in %s", m[0], path)
		} else if m[1] != w {
			t.Errorf("%s:\n got %s\nwant %s", m[0], m[1], w)
		}
	}
}

// TestGoldenMessagesRead reads every golden message back as the protocol
// type of its name, as a client does, and finds each field the server
// wrote: no field of the wire lacks its Go field.
func TestGoldenMessagesRead(t *testing.T) {
	for _, m := range goldenMessages(t) {
		var h protocol.Header
		if err := json.Unmarshal([]byte(m[1]), &h); err != nil {
			t.Fatalf("%s: %v", m[0], err)
		}
		v := messageOf(h.Type)
		if v == nil {
			t.Fatalf("%s: no protocol type for %q", m[0], h.Type)
		}
		dec := json.NewDecoder(strings.NewReader(m[1]))
		dec.DisallowUnknownFields()
		if err := dec.Decode(v); err != nil {
			t.Errorf("%s does not read as %T: %v", m[0], v, err)
			continue
		}
		again, err := json.Marshal(v)
		if err != nil {
			t.Fatal(err)
		}
		if string(again) != m[1] {
			t.Errorf("%s read as %T writes back differently:\n got %s\nwant %s", m[0], v, again, m[1])
		}
	}
}

// messageOf returns a new value of the protocol's type of a server
// message's name.
func messageOf(typ string) any {
	switch typ {
	case protocol.TypeWelcome:
		return new(protocol.Welcome)
	case protocol.TypePlayingElsewhere:
		return new(protocol.PlayingElsewhere)
	case protocol.TypeMatch:
		return new(protocol.Match)
	case protocol.TypeMatches:
		return new(protocol.Matches)
	case protocol.TypeError:
		return new(protocol.Error)
	case protocol.TypeMoveOK:
		return new(protocol.MoveOK)
	case protocol.TypeMoveRejected:
		return new(protocol.MoveRejected)
	case protocol.TypeResigned:
		return new(protocol.Resigned)
	case protocol.TypeHint:
		return new(protocol.HintReply)
	case protocol.TypeRoundStarting:
		return new(protocol.RoundStarting)
	case protocol.TypeRoundStarted:
		return new(protocol.RoundStarted)
	case protocol.TypeLeaderboard:
		return new(protocol.Leaderboard)
	case protocol.TypeRoundOver:
		return new(protocol.RoundOver)
	case protocol.TypeMatchOver:
		return new(protocol.MatchOver)
	}
	return nil
}
