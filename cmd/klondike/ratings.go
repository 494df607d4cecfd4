package main

// Ratings in the terminal (docs/ratings.md): the ratings of a rated
// match's players, the changes a rated round made, a player's ratings
// with their history (profile) and the ladder of a game and draw (ladder).
// The match's ratings come with its WebSocket messages; profiles and
// ladders are read over HTTP (fetch), in the background, their answers
// handled in the main loop like a WebSocket reply.

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"klondike/api/protocol"
	"klondike/engine"
)

// formatRating writes a rating as players see it: a whole number, with
// "?" after a provisional one ("1500?").
func formatRating(r int, provisional bool) string {
	s := strconv.Itoa(r)
	if provisional {
		s += "?"
	}
	return s
}

// formatChange writes a rating change with its sign: "+12", "-8", "+0".
func formatChange(d int) string {
	if d < 0 {
		return strconv.Itoa(d)
	}
	return "+" + strconv.Itoa(d)
}

// renderRatingChanges writes what a rated round did to ratings on one
// line, in the order of the round's places:
//
//	Ratings: alice 1512 (+12), bob 1488? (-12)
//	Ratings unchanged: fewer than two players made a move, so this round rates nobody.
func renderRatingChanges(rr *protocol.RoundRatings) string {
	if len(rr.Changes) == 0 {
		why := strings.TrimSuffix(clean(rr.Unrated), ".")
		if why == "" {
			why = "this round rates nobody"
		}
		return "Ratings unchanged: " + why + ".\n"
	}
	parts := make([]string, len(rr.Changes))
	for i, ch := range rr.Changes {
		parts[i] = fmt.Sprintf("%s %s (%s)", clean(ch.Name), formatRating(ch.After, ch.Provisional), formatChange(ch.Change))
	}
	return "Ratings: " + strings.Join(parts, ", ") + "\n"
}

// ratingLabels returns the ratings of the players of round roundID of
// match matchID as the leaderboard shows them, by player id: "1500?",
// or once the round's changes came "1512 (+12)"; nil when that match is
// not the one we are in or is not rated.
func (c *playClient) ratingLabels(matchID, roundID string) map[string]string {
	m := c.match
	if m == nil || m.ID != matchID || !m.Settings.Rated {
		return nil
	}
	labels := map[string]string{}
	for _, p := range m.Players {
		if p.Rating > 0 {
			labels[p.PlayerID] = formatRating(p.Rating, p.Provisional)
		}
	}
	if rr := m.Ratings; rr != nil && rr.RoundID == roundID {
		for _, ch := range rr.Changes {
			labels[ch.PlayerID] = formatRating(ch.After, ch.Provisional) + " (" + formatChange(ch.Change) + ")"
		}
	}
	return labels
}

// printRatings prints, once, the rating changes of the round just over
// when the match has them: they come in a match message shortly after
// round_over (or, should they overtake it, are printed after the results).
func (c *playClient) printRatings() {
	r, m := c.round, c.match
	if r == nil || !r.over || r.kind != "" || m == nil || m.ID != r.matchID ||
		m.Ratings == nil || m.Ratings.RoundID != r.id || c.ratingsShown == r.id {
		return
	}
	c.ratingsShown = r.id
	c.printf("%s", renderRatingChanges(m.Ratings))
}

// ratingsGrace is how long the end of input waits for the rating changes
// of a rated round just over: the server sends them well under a second
// after round_over, so a script's output ends with them.
const ratingsGrace = 3 * time.Second

// ratingsWait returns how much longer the end of input waits for the
// changes of the round just over: none when it is not a rated match's or
// they were printed.
func (c *playClient) ratingsWait() time.Duration {
	r, m := c.round, c.match
	if r == nil || !r.over || r.kind != "" || m == nil || m.ID != r.matchID || !m.Settings.Rated || c.ratingsShown == r.id {
		return 0
	}
	return ratingsGrace - time.Since(r.overAt)
}

// Reading the server's HTTP side.

// maxFetchBytes bounds an HTTP answer: a ladder page or a profile is a few
// kilobytes.
const maxFetchBytes = 1 << 20

// A fetched is the answer to a GET that a command sent (fetch): the body
// of a 200, or why there is none.
type fetched struct {
	id   string
	body []byte
	err  error
}

// A fetching is a GET under way: what it is for (named in messages) and
// what takes its answer.
type fetching struct {
	what string
	done func(body []byte)
}

// fetch GETs path (with its query) from the server's HTTP side in the
// background; done takes the body in the main loop. Until the answer, the
// GET counts as a pending request named what, so that input waits for it
// (no longer than ReplyWait) as for a WebSocket reply; a failure is
// printed instead of calling done.
func (c *playClient) fetch(what, path string, done func(body []byte)) {
	c.nextID++
	id := "get-" + strconv.Itoa(c.nextID) // never a WebSocket request's id
	c.pending[id] = request{typ: what, at: time.Now()}
	c.fetches[id] = fetching{what: what, done: done}
	u := c.httpURL(path)
	c.fetchers.Add(1)
	go func() {
		defer c.fetchers.Done()
		body, err := httpGet(c.httpCtx, u, c.cfg.ReplyWait)
		select {
		case c.fetched <- fetched{id: id, body: body, err: err}:
		case <-c.done:
		}
	}()
}

// onFetched hands a GET's answer to its fetch's done, unless it was given
// up on (expireRequests).
func (c *playClient) onFetched(f fetched) {
	fg, ok := c.fetches[f.id]
	delete(c.fetches, f.id)
	delete(c.pending, f.id)
	switch {
	case !ok:
	case f.err != nil:
		c.printf("Could not %s: %v\n", request{typ: fg.what}.words(), f.err)
	default:
		fg.done(f.body)
	}
}

// An httpStatusError is a GET answered with another status than 200: the
// server's error body says why.
type httpStatusError struct {
	status  int
	code    string // the server's error code, such as not_found
	message string
}

func (e *httpStatusError) Error() string {
	if e.message == "" {
		return fmt.Sprintf("HTTP %d %s", e.status, http.StatusText(e.status))
	}
	return fmt.Sprintf("%s (%s)", clean(e.message), clean(e.code))
}

// httpGet GETs u within timeout and returns the body of a 200; another
// status is an *httpStatusError.
func httpGet(ctx context.Context, u string, timeout time.Duration) ([]byte, error) {
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
	if err != nil {
		return nil, err
	}
	req.Header.Set("Accept", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, maxFetchBytes))
	if err != nil {
		return nil, err
	}
	if resp.StatusCode != http.StatusOK {
		var e struct{ Code, Message string }
		_ = json.Unmarshal(body, &e) // a body that is not the server's: the status says enough
		return nil, &httpStatusError{status: resp.StatusCode, code: e.Code, message: e.Message}
	}
	return body, nil
}

// decodeFetched decodes a fetched body into v, saying so when it does
// not decode.
func (c *playClient) decodeFetched(what string, body []byte, v any) bool {
	if err := json.Unmarshal(body, v); err != nil {
		c.printf("cannot read the server's %s: %v\n", what, err)
		return false
	}
	return true
}

// Profiles: GET /api/v1/players/{id}.

// playerProfile is what profile reads of GET /api/v1/players/{id}.
type playerProfile struct {
	Player struct {
		ID   string `json:"id"`
		Name string `json:"name"`
		Tag  string `json:"tag"`
	} `json:"player"`
	Ratings []playerRating `json:"ratings"`
}

// playerRating is a player's rating in one game and draw. Numbers are
// read as floats, lest a server that sends fractions be unreadable; they
// are shown rounded.
type playerRating struct {
	Game        string        `json:"game"`
	Draw        int           `json:"draw"`
	Rating      float64       `json:"rating"`
	Deviation   float64       `json:"deviation"`
	Provisional bool          `json:"provisional"`
	Rounds      int           `json:"rounds"`
	Place       int           `json:"place"` // 0 when not on the ladder
	History     []ratingPoint `json:"history"`
}

// ratingPoint is the rating after one rated round.
type ratingPoint struct {
	RoundID   string    `json:"round_id"`
	At        time.Time `json:"at"`
	Rating    float64   `json:"rating"`
	Deviation float64   `json:"deviation"`
}

// displayRating is a rating as players see it: a whole number.
func displayRating(r float64) int { return int(math.Round(r)) }

// sparkWidth is how many of the latest history points a sparkline shows.
const sparkWidth = 24

// sparkBars are a sparkline's levels, lowest first.
var sparkBars = []rune("▁▂▃▄▅▆▇█")

// sparkline draws the last sparkWidth ratings of a history, one bar each,
// scaled from the lowest of them to the highest ("▁▃▅█"); a flat history
// is a row of middle bars, no history "-".
func sparkline(h []ratingPoint) string {
	if len(h) == 0 {
		return "-"
	}
	h = h[max(0, len(h)-sparkWidth):]
	lo, hi := h[0].Rating, h[0].Rating
	for _, p := range h {
		lo, hi = min(lo, p.Rating), max(hi, p.Rating)
	}
	out := make([]rune, len(h))
	for i, p := range h {
		level := (len(sparkBars) - 1) / 2
		if hi-lo >= 0.5 { // less is no change once rounded
			level = int(math.Round((p.Rating - lo) / (hi - lo) * float64(len(sparkBars)-1)))
		}
		out[i] = sparkBars[level]
	}
	return string(out)
}

// renderProfile draws a player's ratings, a game and draw a line, with a
// sparkline of each one's history:
//
//	Ratings of alice #3F2A:
//	  Game       Draw  Rating  Rounds  Place  History
//	  klondike      3  1612        12     57  ▁▂▃▅▆▇█
//	  whitehead     1  1500?        1      -  ▄
func renderProfile(p *playerProfile) string {
	who := clean(p.Player.Name)
	if p.Player.Tag != "" {
		who += " " + clean(p.Player.Tag)
	}
	if len(p.Ratings) == 0 {
		return "Ratings of " + who + ": none yet (a rated round gives one; quick matches are rated).\n"
	}
	t := table{right: []bool{false, true, false, true, true, false}}
	t.add("  Game", "Draw", "Rating", "Rounds", "Place", "History")
	provisional := false
	for _, r := range p.Ratings {
		provisional = provisional || r.Provisional
		place := "-"
		if r.Place > 0 {
			place = strconv.Itoa(r.Place)
		}
		t.add("  "+clean(r.Game), strconv.Itoa(r.Draw), formatRating(displayRating(r.Rating), r.Provisional),
			strconv.Itoa(r.Rounds), place, sparkline(r.History))
	}
	out := "Ratings of " + who + ":\n" + t.String()
	if provisional {
		out += "A rating with ? is provisional: it is on no ladder until it settles.\n"
	}
	return out
}

// showProfile asks for the ratings of the player ref names: a player of
// our match by name, or a player id; ours when ref is empty.
func (c *playClient) showProfile(ref string) {
	id := ref
	if ref == "" {
		id = c.playerID
	} else if c.match != nil {
		for _, p := range c.match.Players {
			if strings.EqualFold(p.Name, ref) {
				id = p.PlayerID
				break
			}
		}
	}
	if id == "" {
		c.printf("No player yet: wait for the server's welcome.\n")
		return
	}
	c.fetch("profile", "/api/v1/players/"+url.PathEscape(id), func(body []byte) {
		var p playerProfile
		if c.decodeFetched("profile", body, &p) {
			c.printf("%s", renderProfile(&p))
		}
	})
}

// Ladders: GET /api/v1/ladder/{game}/{draw}.

// ladderPageSize is how many places a page of the ladder shows: a
// screenful, where the server's default is 100.
const ladderPageSize = 20

// ladderPage is GET /api/v1/ladder/{game}/{draw}'s answer.
type ladderPage struct {
	Game     string        `json:"game"`
	Draw     int           `json:"draw"`
	Players  int           `json:"players"`
	Entries  []ladderEntry `json:"entries"`
	NextFrom *int          `json:"next_from"` // nil on the last page
	Place    int           `json:"place"`     // with around=: ours, 0 when not on the ladder
	Around   []ladderEntry `json:"around"`
}

// ladderEntry is one place of a ladder.
type ladderEntry struct {
	Place     int     `json:"place"`
	PlayerID  string  `json:"player_id"`
	Name      string  `json:"name"`
	Rating    float64 `json:"rating"`
	Deviation float64 `json:"deviation"`
	Rounds    int     `json:"rounds"`
}

// ladderState is the ladder in view, for ladder next.
type ladderState struct {
	game engine.Variant
	draw int
	next int // where the next page starts; -1 after the last
}

// renderLadder draws a page of a ladder: its places, then, when they are
// further down, ours (me) among our neighbours, our line marked '>'.
// asked says that our place was asked for (the first page), so that
// none means we are not on the ladder.
//
//	Ladder of klondike draw 3: 1234 players with established ratings
//	     #  Player  Rating  Rounds
//	     1  alice     1834      41
//	   ...
//	>   57  dave      1612      12
//	Your place: 57 of 1234.
//	More: type ladder next for places 21 to 40.
func renderLadder(p *ladderPage, me string, asked bool) string {
	var b strings.Builder
	fmt.Fprintf(&b, "Ladder of %s draw %d: %s with established ratings\n", clean(p.Game), p.Draw, plural(p.Players, "player"))
	if len(p.Entries) == 0 && len(p.Around) == 0 {
		if p.Players == 0 {
			b.WriteString("  (nobody yet: a rating settles after a few rated rounds)\n")
		} else {
			b.WriteString("  (no places on this page)\n")
		}
	} else {
		t := table{right: []bool{false, true, false, true, true}}
		t.add(" ", "#", "Player", "Rating", "Rounds")
		row := func(e ladderEntry) {
			t.add(youMark(e.PlayerID, me), strconv.Itoa(e.Place), clean(e.Name),
				strconv.Itoa(displayRating(e.Rating)), strconv.Itoa(e.Rounds))
		}
		last := 0
		for _, e := range p.Entries {
			row(e)
			last = max(last, e.Place)
		}
		for _, e := range p.Around {
			if e.Place <= last {
				continue
			}
			if e.Place > last+1 {
				t.add(" ", "", "...")
			}
			row(e)
			last = e.Place
		}
		b.WriteString(t.String())
	}
	switch {
	case p.Place > 0:
		fmt.Fprintf(&b, "Your place: %d of %d.\n", p.Place, p.Players)
	case asked:
		b.WriteString("You are not on this ladder: it lists established ratings only (profile shows yours).\n")
	}
	if n := p.NextFrom; n != nil {
		if end := min(*n+ladderPageSize, p.Players); end > *n {
			fmt.Fprintf(&b, "More: type ladder next for places %d to %d.\n", *n+1, end)
		} else {
			b.WriteString("More: type ladder next.\n")
		}
	}
	return b.String()
}

// parseLadderKey reads a ladder's name: GAME/DRAW, GAME (its usual draw:
// 3 in Klondike and Double Klondike, else 1) or DRAW (of game).
func parseLadderKey(s string, game engine.Variant) (engine.Variant, int, error) {
	name, drawText, hasDraw := strings.Cut(s, "/")
	if d, err := strconv.Atoi(s); err == nil {
		name, drawText, hasDraw = game.String(), strconv.Itoa(d), true
	}
	v, err := engine.ParseVariant(strings.ToLower(name))
	if err != nil {
		return 0, 0, fmt.Errorf("ladder %q: want GAME/DRAW, such as klondike/3 (games: klondike, thumb_and_pouch, whitehead, double_klondike)", clean(s))
	}
	r := engine.DefaultRulesFor(v)
	if hasDraw {
		if r.Draw, err = strconv.Atoi(drawText); err != nil {
			return 0, 0, fmt.Errorf("ladder %q: the draw is 1 or 3", clean(s))
		}
	}
	if err := r.Validate(); err != nil {
		return 0, 0, fmt.Errorf("ladder %q: %v", clean(s), err)
	}
	return v, r.Draw, nil
}

// ladderKey is the ladder that ladder shows with no name: our match's
// game and draw, or else the ones --game and --draw ask matches for.
func (c *playClient) ladderKey() (engine.Variant, int) {
	if m := c.match; m != nil {
		if r, err := m.Settings.Rules(); err == nil {
			return r.Game, r.Draw
		}
	}
	game := engine.Klondike
	if g := c.cfg.Settings.Game; g != nil {
		if v, err := engine.ParseVariant(*g); err == nil {
			game = v
		}
	}
	draw := engine.DefaultRulesFor(game).Draw
	switch {
	case c.cfg.Settings.Draw != nil:
		draw = *c.cfg.Settings.Draw
	case c.cfg.Settings.Game == nil && c.cfg.Draw != 0:
		draw = c.cfg.Draw
	}
	return game, draw
}

// ladderCommand runs ladder with its argument: none for the ladder of
// our game and draw, GAME/DRAW for another, next for the next page.
func (c *playClient) ladderCommand(arg string) {
	if strings.EqualFold(arg, "next") {
		l := c.ladder
		if l == nil || l.next < 0 {
			c.printf("No more places: ladder shows the top again.\n")
			return
		}
		c.getLadder(l.game, l.draw, l.next)
		return
	}
	game, draw := c.ladderKey()
	if arg != "" {
		var err error
		if game, draw, err = parseLadderKey(arg, game); err != nil {
			c.printf("%v\n", err)
			return
		}
	}
	c.getLadder(game, draw, 0)
}

// getLadder asks for a page of the ladder of game and draw from place
// from+1; the first page with our place and neighbours.
func (c *playClient) getLadder(game engine.Variant, draw, from int) {
	q := url.Values{"from": {strconv.Itoa(from)}, "limit": {strconv.Itoa(ladderPageSize)}}
	asked := from == 0 && c.playerID != ""
	if asked {
		q.Set("around", c.playerID)
	}
	path := "/api/v1/ladder/" + url.PathEscape(game.String()) + "/" + strconv.Itoa(draw) + "?" + q.Encode()
	c.fetch("ladder", path, func(body []byte) {
		var p ladderPage
		if !c.decodeFetched("ladder", body, &p) {
			return
		}
		next := -1
		if p.NextFrom != nil && *p.NextFrom > from {
			next = *p.NextFrom
		}
		c.ladder = &ladderState{game: game, draw: draw, next: next}
		if p.Game == "" {
			p.Game, p.Draw = game.String(), draw
		}
		c.printf("%s", renderLadder(&p, c.playerID, asked))
	})
}
