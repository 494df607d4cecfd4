package main

// The text rendering of asynchronous rounds: their description, the ghost
// line, a result, a board and a player's records. Pure functions, as in
// render.go, whose rules (ASCII but for names, no trailing spaces) they keep.

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	"klondike/api/protocol"
	"klondike/engine"
)

// formatWhen writes a time as UTC to the minute, and how far it is from
// now: "2026-12-06 14:00 UTC, in 23h59m" or "..., 5m ago".
func formatWhen(t, now time.Time) string {
	at := t.UTC().Format("2006-01-02 15:04 UTC")
	d := t.Sub(now)
	if d > 0 {
		return at + ", in " + roughDuration(d)
	}
	return at + ", " + roughDuration(-d) + " ago"
}

// formatAgo is formatWhen for a time that has passed, though our clock
// (a little behind the server's) may not know it yet.
func formatAgo(t, now time.Time) string {
	return formatWhen(t, maxTime(t, now))
}

func maxTime(a, b time.Time) time.Time {
	if a.After(b) {
		return a
	}
	return b
}

// roughDuration writes d to the minute ("3d4h", "23h59m", "5m"), or "<1m".
func roughDuration(d time.Duration) string {
	m := int64(d / time.Minute)
	switch {
	case m < 1:
		return "<1m"
	case m < 60:
		return fmt.Sprintf("%dm", m)
	case m < 48*60:
		return fmt.Sprintf("%dh%02dm", m/60, m%60)
	}
	if h := m / 60 % 24; h > 0 {
		return fmt.Sprintf("%dd%dh", m/(24*60), h)
	}
	return fmt.Sprintf("%dd", m/(24*60))
}

// asyncTitle names an asynchronous round: "Daily deal 2026-12-05 (draw3)"
// or "Challenge 9f3a by alice".
func asyncTitle(in *protocol.AsyncInfo) string {
	if in.Kind == protocol.KindDaily {
		return fmt.Sprintf("Daily deal %s (%s)", clean(in.Day), clean(in.Variant))
	}
	t := "Challenge " + clean(in.RoundID)
	if in.CreatorName != "" {
		t += " by " + clean(in.CreatorName)
	}
	return t
}

// renderAsyncInfo describes an asynchronous round at now: who made it, its
// rules and time limit, its window and its players.
//
//	Challenge 9f3a by alice
//	  Rules: draw 3, passes unlimited, ..., race mode
//	  Time limit: 15:00 on your own clock, one attempt
//	  Window: closes 2026-12-06 14:00 UTC, in 23h59m
//	  Players: 3 started, 2 finished
func renderAsyncInfo(in *protocol.AsyncInfo, now time.Time) string {
	var b strings.Builder
	b.WriteString(asyncTitle(in) + "\n")
	fmt.Fprintf(&b, "  Rules: %s, %s mode\n", in.Rules.String(), clean(string(in.Mode)))
	fmt.Fprintf(&b, "  Time limit: %s on your own clock, one attempt\n", formatMs(in.LimitMs, false))
	switch {
	case in.ClosedEarly:
		fmt.Fprintf(&b, "  Window: closed early by its creator (%s)\n", formatAgo(in.ClosesAt, now))
	case in.Closed:
		fmt.Fprintf(&b, "  Window: closed %s\n", formatAgo(in.ClosesAt, now))
	case in.OpensAt.Sub(now) > time.Minute: // not a clock a moment behind the server's
		fmt.Fprintf(&b, "  Window: opens %s; closes %s\n", formatWhen(in.OpensAt, now), formatWhen(in.ClosesAt, now))
	default:
		fmt.Fprintf(&b, "  Window: closes %s\n", formatWhen(in.ClosesAt, now))
	}
	fmt.Fprintf(&b, "  Players: %d started, %d finished\n", in.Players, in.Finished)
	if in.KnownDeal {
		fmt.Fprintf(&b, "  Open deal #%s: anyone can look it up.\n", clean(in.Seed))
	}
	return b.String()
}

// renderDaily lists today's daily rounds at now, with the player's attempt
// at each (attempts, by round id; a round missing from it is shown "?"),
// then what to type: daily N plays one not played yet, or shows the result
// and board of one played.
//
//	Daily deals of 2026-12-05 (UTC):
//	  Variant   Time  Players  Finished  You                    Closes
//	  draw3    15:00        3         2  won in 3:12.4, rank 1  2026-12-06 00:00 UTC, in 9h59m
//	  draw1    15:00        1         1  not played             2026-12-06 00:00 UTC, in 9h59m
//	Type daily 1 to play: one attempt each, on your own clock.
//	daily 3 shows your result and its board.
func renderDaily(d *protocol.Daily, attempts map[string]protocol.AttemptState, now time.Time) string {
	if len(d.Rounds) == 0 {
		return fmt.Sprintf("No daily deals today (%s).\n", clean(d.Day))
	}
	t := table{right: []bool{false, true, true, true, false, false}}
	t.add("  Variant", "Time", "Players", "Finished", "You", "Closes")
	var toPlay, played []string
	for _, r := range d.Rounds {
		you := "?"
		a, known := attempts[r.RoundID]
		switch {
		case !known:
		case a.State == protocol.AttemptFinished && a.Result != nil:
			you = shortResult(a.Result)
		case a.State == protocol.AttemptFinished:
			you = "played"
		case a.State == protocol.AttemptPlaying:
			you = "playing"
		default:
			you = "not played"
		}
		t.add("  "+clean(r.Variant), formatMs(r.LimitMs, false),
			strconv.Itoa(r.Players), strconv.Itoa(r.Finished), you, formatWhen(r.ClosesAt, now))
		draw, ok := strings.CutPrefix(r.Variant, "draw")
		if !ok || (draw != "1" && draw != "3") {
			continue // daily N names draw1 and draw3 only
		}
		if known && a.State == protocol.AttemptFinished {
			played = append(played, "daily "+draw)
		} else {
			toPlay = append(toPlay, "daily "+draw)
		}
	}
	out := fmt.Sprintf("Daily deals of %s (UTC):\n%s", clean(d.Day), t.String())
	if len(toPlay) > 0 {
		out += "Type " + strings.Join(toPlay, " or ") + " to play: one attempt each, on your own clock.\n"
	}
	if len(played) > 0 {
		out += strings.Join(played, " or ") + " shows your result and its board.\n"
	}
	return out
}

// shortResult writes a finished attempt in a few words: "won in 3:12.4,
// rank 2", "resigned, rank 5".
func shortResult(e *protocol.BoardEntry) string {
	out := clean(e.Status.String())
	if e.Status == engine.Won {
		out += " in " + formatMs(e.ElapsedMs, true)
	}
	if e.Rank > 0 {
		out += ", rank " + strconv.Itoa(e.Rank)
	}
	return out
}

// renderResult writes a finished attempt on one line: "won in 3:12.4,
// score 1234, 52 cards home, 87 moves: rank 3 of 12 finished (15 players)".
func renderResult(e *protocol.BoardEntry, finished, players int) string {
	how := clean(e.Status.String())
	if e.Status == engine.Won {
		how += " in " + formatMs(e.ElapsedMs, true)
	} else {
		how += " at " + formatMs(e.ElapsedMs, true)
	}
	out := fmt.Sprintf("%s, score %d, %s home, %s", how, e.Score, plural(e.Foundation, "card"), plural(e.Moves, "move"))
	if e.Rank > 0 {
		out += fmt.Sprintf(": rank %d of %d finished", e.Rank, finished)
		if players > finished {
			out += fmt.Sprintf(" (%s started)", plural(players, "player"))
		}
	}
	return out + "\n"
}

// ghostKey is what a ghost line shows, scores aside: who, cards home, won.
func ghostKey(gs []protocol.GhostStanding) string {
	var b strings.Builder
	for _, g := range gs {
		fmt.Fprintf(&b, "%s %s %s %d %v|", g.Role, g.PlayerID, g.Name, g.Foundation, g.Won)
	}
	return b.String()
}

// renderGhosts writes where the ghosts stood at our elapsed time, on one
// line: "Ghosts at 1:23: leader alice: timed score 1234, 20 cards home;
// friend bob: timed score 345, 3 cards home". The score is named as the
// board names it under the round's scoring (scoreHeading). A player who is
// both leader and friend shows once.
func renderGhosts(m *protocol.Ghost, scoring string) string {
	type ghost struct {
		protocol.GhostStanding
		roles []string
	}
	var gs []*ghost
	byID := map[string]*ghost{}
	for _, g := range m.Ghosts {
		if x := byID[g.PlayerID]; x != nil && g.PlayerID != "" {
			x.roles = append(x.roles, g.Role)
			continue
		}
		x := &ghost{GhostStanding: g, roles: []string{g.Role}}
		byID[g.PlayerID] = x
		gs = append(gs, x)
	}
	score := strings.ToLower(scoreHeading(scoring))
	parts := make([]string, len(gs))
	for i, g := range gs {
		parts[i] = fmt.Sprintf("%s %s: %s %d, %s home", clean(strings.Join(g.roles, " and ")), clean(g.Name),
			score, g.Score, plural(g.Foundation, "card"))
		if g.Won {
			parts[i] += " (won)"
		}
	}
	return fmt.Sprintf("Ghosts at %s: %s\n", formatMs(m.ElapsedMs, false), strings.Join(parts, "; "))
}

// renderBoardPage draws an asynchronous round's board: the top entries,
// then the reader's (player id me) among their neighbours when they are
// further down, the reader's line marked '>'. in describes the round when
// known (nil otherwise); scoring is as renderLeaderboard's.
//
//	Board of Daily deal 2026-12-05 (draw3), live: 15 players, 12 finished
//	   #  Player  Timed score  Cards  Moves  Status  Time
//	   1  alice          5123     52     87  won     3:12.4
//	  ...
//	> 17  bob             120      9     40  stuck   2:01.0
func renderBoardPage(m *protocol.Board, in *protocol.AsyncInfo, me, scoring string) string {
	var b strings.Builder
	title := "Board"
	if in != nil {
		title += " of " + asyncTitle(in)
	} else {
		title += " of round " + clean(m.RoundID)
	}
	state := "live"
	if m.Closed {
		state = "final"
	}
	fmt.Fprintf(&b, "%s, %s: %s started, %d finished\n", title, state, plural(m.Players, "player"), m.Finished)
	if in != nil && in.KnownDeal {
		fmt.Fprintf(&b, "Open deal #%s: anyone can look it up.\n", clean(in.Seed))
	}
	if len(m.Top) == 0 && len(m.Around) == 0 {
		b.WriteString("  (nobody has finished yet)\n")
		return b.String()
	}
	t := table{right: []bool{false, true, false, true, true, true, false, true}}
	t.add(" ", "#", "Player", scoreHeading(scoring), "Cards", "Moves", "Status", "Time")
	row := func(e protocol.BoardEntry) {
		t.add(youMark(e.PlayerID, me), strconv.Itoa(e.Rank), clean(e.Name), strconv.Itoa(e.Score),
			strconv.Itoa(e.Foundation), strconv.Itoa(e.Moves), clean(e.Status.String()), formatMs(e.ElapsedMs, true))
	}
	last := 0
	for _, e := range m.Top {
		row(e)
		last = max(last, e.Rank)
	}
	for _, e := range m.Around {
		if e.Rank <= last {
			continue
		}
		if e.Rank > last+1 {
			t.add(" ", "", "...")
		}
		row(e)
		last = e.Rank
	}
	b.WriteString(t.String())
	if m.Finished > 1 {
		b.WriteString(tiesNote)
	}
	if m.Rank > 0 {
		fmt.Fprintf(&b, "Your rank: %d of %d.\n", m.Rank, m.Finished)
	}
	return b.String()
}

// renderRecords draws a player's records, a variant a line.
func renderRecords(rs []protocol.VariantRecord) string {
	if len(rs) == 0 {
		return "  (no games yet)\n"
	}
	t := table{right: []bool{false, true, true, true, true, true, true, false}}
	t.add("  Variant", "Played", "Won", "Best score", "Fastest win", "Daily streak", "Best streak", "Last daily")
	for _, r := range rs {
		best, fastest, last := "-", "-", "-"
		if r.BestScore != nil {
			best = strconv.Itoa(*r.BestScore)
		}
		if r.FastestMs != nil {
			fastest = formatMs(*r.FastestMs, true)
		}
		if r.LastDaily != "" {
			last = clean(r.LastDaily)
		}
		t.add("  "+clean(r.Variant), strconv.Itoa(r.Played), strconv.Itoa(r.Won), best, fastest,
			strconv.Itoa(r.DailyStreak), strconv.Itoa(r.BestDailyStreak), last)
	}
	return t.String()
}
