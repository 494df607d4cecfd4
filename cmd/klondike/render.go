package main

// The text rendering of 'klondike play': pure functions from what the
// server sent to plain text, so that they can be tested with fixed inputs.
// Every line ends with '\n' and has no trailing spaces; the text is ASCII
// except for players' names (and the sparklines of rating histories, in
// ratings.go). Colour (red suits) is added only when asked.

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"klondike/api/protocol"
	"klondike/engine"
)

// ANSI sequences for --color.
const (
	ansiRed   = "\x1b[31m"
	ansiDim   = "\x1b[2m"
	ansiReset = "\x1b[0m"
)

// cardBack is how a face-down card is shown.
const cardBack = "##"

// colWidth is the width of one tableau column: a two-character token and
// two spaces.
const colWidth = 4

// paint wraps a two-character token in colour when color is set: red cards
// red, card backs dim.
func paint(tok string, red, back, color bool) string {
	switch {
	case !color:
		return tok
	case red:
		return ansiRed + tok + ansiReset
	case back:
		return ansiDim + tok + ansiReset
	}
	return tok
}

func cardText(c engine.Card, color bool) string {
	return paint(c.String(), c.Red(), false, color)
}

// renderBoard draws a player's view:
//
//	Foundations: C: 0  D: 0  H: 0  S: 0
//	Stock: 24  Waste: --
//
//	T1  T2  T3  T4  T5  T6  T7
//	QH  ##  ##  ##  ##  ##  ##
//	    TS  ##  ##  ##  ##  ##
//	…
//
//	Game score: 0  Timed score: 0
//	Moves: 0  Time: 0:00  Pass 1 (unlimited)  Status: playing
//
// Face-down cards are "##", an empty pile "--"; the visible waste cards are
// listed bottom first with the top one, the playable card, in brackets.
// Double Klondike's nine piles are T1 to T9, and its foundations line counts
// both foundations of each suit; Whitehead's shows each foundation's top
// card and the rank they start at (see foundationsLine). scoring is the
// round's scoring system by name ("" when unknown): only standard scoring
// has a timed score apart from the game score.
func renderBoard(v *engine.View, scoring string, color bool) string {
	var b strings.Builder
	b.WriteString(foundationsLine(v, color))

	fmt.Fprintf(&b, "Stock: %d  Waste: ", v.Stock)
	if len(v.Waste) == 0 {
		b.WriteString("--")
	} else {
		for i, c := range v.Waste {
			if i > 0 {
				b.WriteByte(' ')
			}
			if i == len(v.Waste)-1 {
				b.WriteString("[" + cardText(c, color) + "]")
			} else {
				b.WriteString(cardText(c, color))
			}
		}
	}
	fmt.Fprintf(&b, "  (%s)\n\n", plural(v.WasteSize, "card"))

	piles := make([]engine.PileView, v.Piles())
	for i := range piles {
		piles[i] = v.Pile(i + 1)
	}
	rows := 1
	for _, p := range piles {
		rows = max(rows, p.Down+len(p.Up))
	}
	var line strings.Builder
	for i := range piles {
		line.WriteString(padRight("T"+strconv.Itoa(i+1), colWidth))
	}
	b.WriteString(strings.TrimRight(line.String(), " ") + "\n")
	for r := range rows {
		line.Reset()
		pad := 0 // spaces owed before the next token
		for _, p := range piles {
			tok := ""
			switch {
			case r == 0 && p.Down+len(p.Up) == 0:
				tok = "--"
			case r < p.Down:
				tok = paint(cardBack, false, true, color)
			case r < p.Down+len(p.Up):
				tok = cardText(p.Up[r-p.Down], color)
			}
			if tok == "" {
				pad += colWidth
				continue
			}
			line.WriteString(strings.Repeat(" ", pad))
			line.WriteString(tok)
			pad = colWidth - 2
		}
		b.WriteString(line.String() + "\n")
	}

	// Passes through the stock, counted as players count them: the first
	// pass is pass 1, and a game of one pass is "pass 1 of 1".
	pass := "Pass " + strconv.Itoa(v.PassesUsed+1)
	if v.PassesLeft != nil {
		pass += " of " + strconv.Itoa(v.PassesUsed+1+*v.PassesLeft)
	} else {
		pass += " (unlimited)"
	}
	fmt.Fprintf(&b, "\nGame score: %d", v.Score)
	if scoring == engine.ScoringStandard.String() {
		timed := engine.TimedScore(engine.ScoringStandard, v.Score, time.Duration(v.ElapsedMs)*time.Millisecond, v.Status == engine.Won)
		fmt.Fprintf(&b, "  Timed score: %d", timed)
	}
	fmt.Fprintf(&b, "\nMoves: %d  Time: %s  %s  Status: %s\n",
		v.Moves, formatMs(v.ElapsedMs, false), pass, v.Status)
	return b.String()
}

// foundationsLine is the board's first line, what the foundations hold:
//
//	Foundations: C: 0  D: 3  H: 1  S: 0
//	Foundations: C: 2, 0  D: 3, 1  H: 0, 0  S: 0, 0  (two of each suit)
//	Foundations: C: --  D: 6D  H: --  S: 4S  (from 4 up, king then ace)
//
// Klondike and Thumb and Pouch count each suit's cards; Double Klondike
// counts both foundations of each suit, the first then the second; in
// Whitehead, whose foundations start at the rank of a dealt card and go
// from king to ace, a count would not say which card is next, so the line
// shows each foundation's top card ("--" when empty) and the base rank.
func foundationsLine(v *engine.View, color bool) string {
	f := v.Foundations
	switch {
	case v.Foundations2 != nil:
		g := v.Foundations2
		return fmt.Sprintf("Foundations: C: %d, %d  D: %d, %d  H: %d, %d  S: %d, %d  (two of each suit)\n",
			f.C, g.C, f.D, g.D, f.H, g.H, f.S, g.S)
	case v.FoundationBase >= 1 && v.FoundationBase <= engine.NumRanks:
		var b strings.Builder
		b.WriteString("Foundations:")
		for i, n := range []int{f.C, f.D, f.H, f.S} {
			su := engine.Suit(i)
			top := "--"
			if n > 0 {
				top = cardText(engine.NewCard((v.FoundationBase-1+n-1)%engine.NumRanks+1, su), color)
			}
			if i > 0 {
				b.WriteByte(' ')
			}
			fmt.Fprintf(&b, " %v: %s", su, top)
		}
		base := engine.NewCard(v.FoundationBase, engine.Clubs).String()[:1]
		fmt.Fprintf(&b, "  (from %s up, king then ace)\n", base)
		return b.String()
	}
	return fmt.Sprintf("Foundations: C: %d  D: %d  H: %d  S: %d\n", f.C, f.D, f.H, f.S)
}

// timedScoreNote explains, in one line, the score that leaderboards show
// under standard scoring (docs/rules.md, "Timed score").
const timedScoreNote = "Timed score = game score - 2 points each 10 s (min 0) + a win's time bonus\n"

// tiesNote says how results and boards order players tied on what they
// rank by (docs/protocol.md, "Ranking": reached_ms).
const tiesNote = "Ties: the earlier to reach the result ranks first.\n"

// scoreHeading names the score that leaderboards show: under standard
// scoring the timed score, under vegas and none the game score itself (no
// time penalty); just "Score" when the scoring is unknown.
func scoreHeading(scoring string) string {
	switch scoring {
	case engine.ScoringStandard.String():
		return "Timed score"
	case engine.ScoringVegas.String(), engine.ScoringNone.String():
		return "Game score"
	}
	return "Score"
}

// renderMoves lists moves on one line, or says there are none.
func renderMoves(moves []engine.Move) string {
	if len(moves) == 0 {
		return "Legal moves: none\n"
	}
	var b strings.Builder
	b.WriteString("Legal moves:")
	for _, m := range moves {
		b.WriteByte(' ')
		b.WriteString(m.String())
	}
	b.WriteString("\n")
	return b.String()
}

// formatMs writes a duration in milliseconds as m:ss (h:mm:ss past an hour),
// with tenths when tenths is set. Negative durations count as zero.
func formatMs(ms int64, tenths bool) string {
	ms = max(ms, 0)
	s := ms / 1000
	var out string
	if s >= 3600 {
		out = fmt.Sprintf("%d:%02d:%02d", s/3600, s/60%60, s%60)
	} else {
		out = fmt.Sprintf("%d:%02d", s/60, s%60)
	}
	if tenths {
		out += fmt.Sprintf(".%d", ms%1000/100)
	}
	return out
}

func plural(n int, word string) string {
	if n == 1 {
		return "1 " + word
	}
	return strconv.Itoa(n) + " " + word + "s"
}

// clean makes text from the server safe to print: control characters
// (escape sequences among them) become '?'.
func clean(s string) string {
	return strings.Map(func(r rune) rune {
		if unicode.IsControl(r) {
			return '?'
		}
		return r
	}, s)
}

// width is the printed width of s, counting runes.
func width(s string) int { return utf8.RuneCountInString(s) }

func padRight(s string, w int) string {
	if n := width(s); n < w {
		return s + strings.Repeat(" ", w-n)
	}
	return s
}

func padLeft(s string, w int) string {
	if n := width(s); n < w {
		return strings.Repeat(" ", w-n) + s
	}
	return s
}

// A table is rows of cells printed in aligned columns; right-aligned columns
// are marked in right. Trailing spaces are trimmed.
type table struct {
	rows  [][]string
	right []bool
}

func (t *table) add(cells ...string) { t.rows = append(t.rows, cells) }

func (t *table) String() string {
	var widths []int
	for _, r := range t.rows {
		for i, c := range r {
			if i >= len(widths) {
				widths = append(widths, 0)
			}
			widths[i] = max(widths[i], width(c))
		}
	}
	var b strings.Builder
	for _, r := range t.rows {
		var line strings.Builder
		for i, c := range r {
			if i > 0 {
				line.WriteString("  ")
			}
			if i < len(t.right) && t.right[i] {
				line.WriteString(padLeft(c, widths[i]))
			} else {
				line.WriteString(padRight(c, widths[i]))
			}
		}
		b.WriteString(strings.TrimRight(line.String(), " ") + "\n")
	}
	return b.String()
}

// youMark is the first column of a standings table: ">" on the reader's line.
func youMark(playerID, me string) string {
	if me != "" && playerID == me {
		return ">"
	}
	return " "
}

// renderLeaderboard draws a round's leaderboard or results: rank, name,
// round score, cards on the foundations, moves, status and finish time, the
// reader's line (player id me) marked with '>'. The score's heading and,
// under standard scoring, a line that explains the timed score follow the
// round's scoring by name ("" when unknown). ratings, by player id, are
// the players' ratings as shown ("1512?", "1512 (+12)"; see ratingLabels):
// a Rating column after the name when not nil, "-" for a player without one.
func renderLeaderboard(entries []protocol.Entry, me, scoring string, ratings map[string]string) string {
	if len(entries) == 0 {
		return "  (no players)\n"
	}
	t := table{right: []bool{false, true, false, true, true, true, false, true}}
	head := []string{" ", "#", "Player", scoreHeading(scoring), "Cards", "Moves", "Status", "Finished"}
	if ratings != nil {
		t.right = slices.Insert(t.right, 3, false) // left: "1500?" and "1512" line up
		head = slices.Insert(head, 3, "Rating")
	}
	t.add(head...)
	for _, e := range entries {
		fin := "-"
		if e.FinishedMs != nil {
			fin = formatMs(*e.FinishedMs, true)
		}
		row := []string{youMark(e.PlayerID, me), strconv.Itoa(e.Rank), clean(e.Name), strconv.Itoa(e.Score),
			strconv.Itoa(e.Foundation), strconv.Itoa(e.Moves), clean(e.Status.String()), fin}
		if ratings != nil {
			r := ratings[e.PlayerID]
			if r == "" {
				r = "-"
			}
			row = slices.Insert(row, 3, r)
		}
		t.add(row...)
	}
	if scoring == engine.ScoringStandard.String() {
		return t.String() + timedScoreNote
	}
	return t.String()
}

// renderTotals draws a match's totals: rank, name, total of round scores,
// first places, games won and the placing in each round.
func renderTotals(totals []protocol.Total, me string) string {
	if len(totals) == 0 {
		return "  (no players)\n"
	}
	t := table{right: []bool{false, true, false, true, true, true, false}}
	t.add(" ", "#", "Player", "Total", "Firsts", "Won", "Placings")
	for _, x := range totals {
		pl := make([]string, len(x.Placings))
		for i, p := range x.Placings {
			pl[i] = strconv.Itoa(p)
		}
		placings := strings.Join(pl, " ")
		if placings == "" {
			placings = "-"
		}
		t.add(youMark(x.PlayerID, me), strconv.Itoa(x.Rank), clean(x.Name), strconv.Itoa(x.Total),
			strconv.Itoa(x.Wins), strconv.Itoa(x.GamesWon), placings)
	}
	return t.String()
}

// renderRoundOver draws a round's end: the results, the deal that was
// played, where its replay is, and the match totals so far. replayURL is
// the replay's full address (the message carries a path); scoring and
// ratings are as renderLeaderboard's.
func renderRoundOver(ro *protocol.RoundOver, me, replayURL, scoring string, ratings map[string]string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "Round %d results:\n", ro.Round)
	b.WriteString(renderLeaderboard(ro.Results, me, scoring, ratings))
	if len(ro.Results) > 1 {
		b.WriteString(tiesNote)
	}
	d := ro.Deal
	switch {
	case d.KnownDeal:
		fmt.Fprintf(&b, "Deal: #%s (a known deal)\n", clean(d.Seed))
	default:
		fmt.Fprintf(&b, "Deal: #%s  salt %s\n", clean(d.Seed), clean(d.Salt))
	}
	if replayURL != "" {
		fmt.Fprintf(&b, "Replay: %s\n", clean(replayURL))
	}
	if len(ro.Totals) > 0 {
		b.WriteString("Match totals:\n")
		b.WriteString(renderTotals(ro.Totals, me))
	}
	return b.String()
}

// renderMatchOver draws the final standings of a match.
func renderMatchOver(totals []protocol.Total, me string) string {
	return "Match over. Final standings:\n" + renderTotals(totals, me)
}

// describeSettings sums up a match's settings on one line.
func describeSettings(s protocol.Settings) string {
	passes := "unlimited passes"
	switch s.Passes {
	case 0:
	case 1:
		passes = "1 pass"
	default:
		passes = strconv.Itoa(s.Passes) + " passes"
	}
	rounds := plural(s.Rounds, "round")
	out := fmt.Sprintf("draw %d, %s, %s scoring, undo %s, %s, %s of %s",
		s.Draw, passes, clean(s.Scoring), clean(s.Undo), clean(string(s.Mode)), rounds, formatMs(int64(s.TimeLimitS)*1000, false))
	if s.Game != "" && s.Game != engine.Klondike.String() {
		out = clean(s.Game) + ", " + out
	}
	if s.Seed != "" {
		out += ", deal #" + clean(s.Seed)
	}
	return out
}

// renderMatch sums up a match: its code, phase, settings and players, the
// reader's own name marked "you"; in a rated match, each player's rating
// follows their name.
func renderMatch(m *protocol.MatchInfo, me string) string {
	var b strings.Builder
	kind := "Match"
	if m.Quick {
		kind = "Quick match"
	}
	if m.Settings.Rated {
		kind = "Rated " + strings.ToLower(kind)
	}
	fmt.Fprintf(&b, "%s %s: %s", kind, clean(m.Code), clean(string(m.State)))
	if m.Round > 0 {
		fmt.Fprintf(&b, ", round %d of %d", m.Round, m.Settings.Rounds)
	}
	if m.Spectators > 0 {
		fmt.Fprintf(&b, ", %s", plural(m.Spectators, "spectator"))
	}
	b.WriteString("\n  " + describeSettings(m.Settings) + "\n")
	fmt.Fprintf(&b, "  Players (%d/%d):", len(m.Players), m.Settings.MaxPlayers)
	for i, p := range m.Players {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(" " + clean(p.Name))
		if p.Rating > 0 {
			b.WriteString(" " + formatRating(p.Rating, p.Provisional))
		}
		var tags []string
		if p.PlayerID == m.Host {
			tags = append(tags, "host")
		}
		if p.Ready {
			tags = append(tags, "ready")
		}
		if !p.Connected {
			tags = append(tags, "away")
		}
		if me != "" && p.PlayerID == me {
			tags = append(tags, "you")
		}
		if len(tags) > 0 {
			b.WriteString(" (" + strings.Join(tags, ", ") + ")")
		}
	}
	b.WriteString("\n")
	return b.String()
}

// renderMatchList draws a page of the open public matches; more says that
// further pages follow.
func renderMatchList(ms []*protocol.MatchInfo, more bool) string {
	switch {
	case len(ms) == 0 && more:
		return "No open public matches on this page. More follow: type list more.\n"
	case len(ms) == 0:
		return "No open public matches (create public opens one that others see here).\n"
	}
	// A Game column only when a match on the page is not Klondike, a Rated
	// one only when one is rated.
	games, rated := false, false
	for _, m := range ms {
		games = games || m.Settings.Game != "" && m.Settings.Game != engine.Klondike.String()
		rated = rated || m.Settings.Rated
	}
	t := table{right: []bool{false, false, true, true, false, true, false}}
	head := []string{"  Code", "Host", "Players", "Draw", "Mode", "Rounds", "Time"}
	if games {
		t.right = append(t.right, false)
		head = append(head, "Game")
	}
	if rated {
		t.right = append(t.right, false)
		head = append(head, "Rated")
	}
	t.add(head...)
	for _, m := range ms {
		host := "-"
		for _, p := range m.Players {
			if p.PlayerID == m.Host {
				host = clean(p.Name)
			}
		}
		row := []string{"  " + clean(m.Code), host, fmt.Sprintf("%d/%d", len(m.Players), m.Settings.MaxPlayers),
			strconv.Itoa(m.Settings.Draw), clean(string(m.Settings.Mode)), strconv.Itoa(m.Settings.Rounds),
			formatMs(int64(m.Settings.TimeLimitS)*1000, false)}
		if games {
			g := m.Settings.Game
			if g == "" {
				g = engine.Klondike.String()
			}
			row = append(row, clean(g))
		}
		if rated {
			yes := "no"
			if m.Settings.Rated {
				yes = "yes"
			}
			row = append(row, yes)
		}
		t.add(row...)
	}
	if more {
		return "Open matches:\n" + t.String() + "More matches follow: type list more.\n"
	}
	return "Open matches:\n" + t.String()
}
