package main

// Asynchronous rounds in the terminal: the daily deals and challenges,
// which every player plays once on their own clock (docs/protocol.md,
// "Asynchronous rounds"). An attempt is played as a round of one player,
// by game.go; this file finds the round, starts the attempt and shows what
// the server says of it: ghosts while it runs, then the result and the
// board.

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"net/url"
	"strconv"
	"strings"
	"time"

	"klondike/api/protocol"
	"klondike/engine"
)

// asyncState is what the client knows of the asynchronous round in view:
// the last one asked about, made or played.
type asyncState struct {
	info    protocol.AsyncInfo
	url     string // its page on the web client, a path
	attempt protocol.AttemptState
	// offered says that the round was shown to be played and waits for
	// play: an attempt's clock starts with it, so nothing else starts it.
	offered bool
}

// Board sizes the client asks for: the top of a board and the neighbours
// on each side of the player's own entry.
const (
	boardTop    = 10
	boardAround = 3
)

// The args of get_async_round requests (request.arg): what the round was
// asked for. Asked to be played, a challenge or a daily deal is shown and
// offered (asyncState.offered); the rounds of a daily list are asked for
// the player's attempt at each, to show which were played.
const (
	argChallenge = "challenge"
	argDaily     = "daily"
	argDailyList = "daily list"
)

// attemptUnderWay reports whether we play an attempt that has not ended.
func (c *playClient) attemptUnderWay() bool {
	r := c.round
	return r != nil && r.kind != "" && r.seated && !r.over
}

// busy says, and reports, that a new attempt must wait for the game under
// way.
func (c *playClient) busy() bool {
	r := c.round
	if r != nil && r.seated && !r.over && (r.view == nil || !r.view.Status.Over()) {
		c.printf("Finish %s first (or resign it).\n", r.name())
		return true
	}
	return false
}

// playDaily asks for today's daily rounds: with draw 1 or 3 to play that
// one, with 0 to list them.
func (c *playClient) playDaily(draw int) {
	if draw != 0 && c.busy() {
		return
	}
	c.ask(&protocol.GetDaily{Type: protocol.TypeGetDaily}, strconv.Itoa(draw))
}

// playChallenge asks for an asynchronous round by its id or link, to play it.
func (c *playClient) playChallenge(ref string) {
	id, err := challengeID(ref)
	if err != nil {
		c.printf("%v\n", err)
		return
	}
	if c.busy() {
		return
	}
	c.ask(&protocol.RoundRef{Type: protocol.TypeGetAsyncRound, RoundID: id}, argChallenge)
}

// createChallenge makes a challenge of settings s (those a challenge
// takes), open for window (0: the server's default), to share its link and
// offer it.
func (c *playClient) createChallenge(window time.Duration, s protocol.PartialSettings) {
	if c.busy() {
		return
	}
	c.request(&protocol.CreateChallenge{Type: protocol.TypeCreateChallenge, Settings: challengeSettings(s),
		WindowS: int(window / time.Second)})
}

// getBoard asks for an asynchronous round's board.
func (c *playClient) getBoard(id string) {
	c.request(&protocol.GetBoard{Type: protocol.TypeGetBoard, RoundID: id, Top: boardTop, Around: boardAround})
}

// challengeID takes an asynchronous round's id from what the user gave:
// the id itself, or a link that ends in /c/ID (a query or a fragment aside).
func challengeID(ref string) (string, error) {
	s := strings.TrimSpace(ref)
	if i := strings.LastIndex(s, "/c/"); i >= 0 {
		s = s[i+len("/c/"):]
		if j := strings.IndexAny(s, "?#"); j >= 0 {
			s = s[:j]
		}
		s = strings.TrimSuffix(s, "/")
	}
	if s == "" || strings.ContainsAny(s, "/?# \t") {
		return "", fmt.Errorf("challenge %q: want its id, or its link ending in /c/ID", clean(ref))
	}
	return s, nil
}

// onDaily takes today's daily rounds: it lists them (after asking for the
// player's attempt at each), or asks for the one of the draw asked for
// (arg) to offer it.
func (c *playClient) onDaily(m *protocol.Daily, arg string) {
	draw, _ := strconv.Atoi(arg)
	if draw == 0 {
		l := &dailyListing{daily: m, asked: map[string]string{}, attempts: map[string]protocol.AttemptState{}}
		c.dailyList = l
		for _, r := range m.Rounds {
			id := c.ask(&protocol.RoundRef{Type: protocol.TypeGetAsyncRound, RoundID: r.RoundID}, argDailyList)
			l.asked[id] = r.RoundID
		}
		c.printDailyList()
		return
	}
	variant := "draw" + arg
	for _, r := range m.Rounds {
		if r.Variant == variant {
			c.ask(&protocol.RoundRef{Type: protocol.TypeGetAsyncRound, RoundID: r.RoundID}, argDaily)
			return
		}
	}
	c.printf("No daily deal of draw %d today (%s).\n", draw, clean(m.Day))
	c.failed = true
}

// dailyListing is a list of today's daily rounds waiting for the answers
// that say whether the player has played each.
type dailyListing struct {
	daily    *protocol.Daily
	asked    map[string]string                // request id -> round id, for the answers awaited
	attempts map[string]protocol.AttemptState // by round id, as answered
}

// onDailyAttempt takes the answer to the request re of a daily list: the
// player's attempt at its round, nil when the server could not say.
func (c *playClient) onDailyAttempt(re string, attempt *protocol.AttemptState) {
	l := c.dailyList
	if l == nil {
		return
	}
	id, ok := l.asked[re]
	if !ok {
		return
	}
	delete(l.asked, re)
	if attempt != nil {
		l.attempts[id] = *attempt
	}
	c.printDailyList()
}

// printDailyList prints the daily list once every answer it waits for came.
func (c *playClient) printDailyList() {
	l := c.dailyList
	if l == nil || len(l.asked) > 0 {
		return
	}
	c.dailyList = nil
	c.printf("%s", renderDaily(l.daily, l.attempts, time.Now().Add(c.skew)))
}

// onAsyncRound takes a description of an asynchronous round: the reply to
// get_async_round, create_challenge or close_challenge (reqType), arg
// being the request's. A round asked for to be played is offered, to be
// started by play, unless it was played (its result and board then) or
// its attempt is under way (resumed at once: its clock runs).
func (c *playClient) onAsyncRound(m *protocol.AsyncRound, reqType, arg string) {
	a := &asyncState{info: m.Round, url: m.URL, attempt: m.Attempt}
	c.async = a
	now := time.Now().Add(c.skew)
	in := &m.Round
	if reqType == protocol.TypeCreateChallenge {
		c.printf("Challenge created.\n")
	}
	c.printf("%s", renderAsyncInfo(in, now))
	if in.Kind == protocol.KindChallenge && !in.Closed {
		link := m.URL
		if link == "" {
			link = "/c/" + url.PathEscape(in.RoundID)
		}
		c.printf("Link: %s\nshare: %s play --server %s --challenge %s\n",
			clean(c.httpURL(link)), c.program(), c.cfg.URL, clean(in.RoundID))
	}
	if reqType == protocol.TypeCloseChallenge {
		c.printf("Challenge closed: nobody can start it now.\n")
	}
	if in.Closed {
		c.printDealCheck(in)
	}
	toPlay := reqType == protocol.TypeCreateChallenge || arg == argChallenge || arg == argDaily
	switch {
	case m.Attempt.State == protocol.AttemptFinished && m.Attempt.Result != nil:
		c.printf("You have played it: %s", renderResult(m.Attempt.Result, in.Finished, in.Players))
		c.getBoard(in.RoundID)
	case in.Closed:
		c.getBoard(in.RoundID)
	case toPlay && m.Attempt.State == protocol.AttemptPlaying:
		c.printf("Your game of it is under way, on its clock: resuming it.\n")
		c.request(&protocol.RoundRef{Type: protocol.TypeStartAttempt, RoundID: in.RoundID})
	case toPlay:
		a.offered = true
		c.printf("Type play to start your game: your clock (%s) starts then, and you have one attempt.\n"+
			"Nothing else starts it: quit leaves it for later, until its window closes.\n", formatMs(in.LimitMs, false))
	}
}

// play starts the attempt at the round offered (asyncState.offered).
func (c *playClient) play() {
	a := c.async
	switch {
	case c.attemptUnderWay():
		c.printf("You are playing %s already.\n", c.round.name())
	case c.requestPending(protocol.TypeStartAttempt):
		c.printf("Your game is starting.\n")
	case a == nil || !a.offered:
		c.printf("Nothing to play: daily 3, daily 1 or challenge ID shows a round first, then play starts it.\n")
	default:
		a.offered = false
		c.request(&protocol.RoundRef{Type: protocol.TypeStartAttempt, RoundID: a.info.RoundID})
	}
}

// requestPending reports whether a request of type typ awaits its reply.
func (c *playClient) requestPending(typ string) bool {
	for _, r := range c.pending {
		if r.typ == typ {
			return true
		}
	}
	return false
}

// offered reports whether an asynchronous round waits for play.
func (c *playClient) offered() bool {
	return c.async != nil && c.async.offered
}

// printAttemptStart says what an attempt that starts is played on: its
// deal's commitment (or number, for an open deal) and its time limit.
func (c *playClient) printAttemptStart(r *roundState) {
	if r.knownDeal {
		c.printf("  Open deal #%s: anyone can look it up.\n", clean(r.seed))
	} else if r.commitment != "" {
		c.printf("  Deal commitment: %s (the seed and salt are published when the window closes)\n", clean(r.commitment))
	}
	if !r.endsAt.IsZero() {
		left := r.endsAt.Sub(r.startsAt)
		c.printf("  One attempt, on your own clock: %s.\n", formatMs(left.Milliseconds(), false))
	}
}

// printDealCheck checks a closed round's revealed deal: the SHA-256 of
// "<salt>:<seed>" against its commitment and, when we played it in this
// session, the board we were dealt against the deal.
func (c *playClient) printDealCheck(in *protocol.AsyncInfo) {
	if in.Seed == "" {
		return
	}
	seed, err := strconv.ParseUint(in.Seed, 10, 64)
	if err != nil {
		c.printf("WARNING: the deal number %q is not a number: the deal cannot be checked\n", clean(in.Seed))
		return
	}
	committed := in.Commitment
	r := c.round
	played := r != nil && r.kind != "" && r.matchID == in.RoundID
	if played && r.commitment != "" {
		committed = r.commitment // the one we were given before playing
	}
	switch {
	case in.KnownDeal:
		c.printf("Deal: #%d (an open deal: no commitment to check)\n", seed)
	default:
		sum := sha256.Sum256([]byte(in.Salt + ":" + in.Seed))
		if got := hex.EncodeToString(sum[:]); committed != "" && strings.EqualFold(got, committed) {
			c.printf("Deal: #%d  salt %s: verified, the commitment matches\n", seed, clean(in.Salt))
		} else {
			c.printf("WARNING: DEAL NOT VERIFIED: sha256(salt:seed) is %s, the commitment %s\n", got, clean(committed))
		}
	}
	if played && r.opening != nil {
		deal := engine.NumberedDealFor(r.rules.Game, seed)
		if err := openingMatches(r.opening, &deal, r.rules); err != nil {
			c.printf("WARNING: the board you were dealt is not deal #%d's: %v\n", seed, err)
		} else {
			c.printf("layout checked: deal #%d, as dealt to you\n", seed)
		}
	}
	c.printf("Replay: %s\n", clean(c.httpURL("/api/v1/rounds/"+url.PathEscape(in.RoundID)+"/replay")))
}

// onGhost keeps the ghosts of our attempt and prints them when more than
// their scores changed (scores fall with time under standard scoring).
func (c *playClient) onGhost(m *protocol.Ghost) {
	r := c.round
	if r == nil || r.id != m.RoundID || r.over {
		return
	}
	r.ghost = m
	key := ghostKey(m.Ghosts)
	if key == r.ghostKey {
		return
	}
	r.ghostKey = key
	if len(m.Ghosts) > 0 {
		c.printf("%s", renderGhosts(m, c.scoring()))
	}
}

// onAttemptOver ends our attempt: its result, then its board.
func (c *playClient) onAttemptOver(m *protocol.AttemptOver) {
	r := c.round
	title := "Your game"
	if r != nil && r.id == m.RoundID {
		r.over = true
		r.pending = nil
		title = r.title()
	}
	c.dropQueue("your game is over")
	c.printf("\n%s over: %s", title, renderResult(&m.Result, m.Finished, m.Players))
	if a := c.async; a != nil && a.info.RoundID == m.AsyncRoundID && !a.info.Closed {
		c.printf("The deal and every replay are published when the window closes (%s).\n",
			formatWhen(a.info.ClosesAt, time.Now().Add(c.skew)))
	}
	c.getBoard(m.AsyncRoundID)
}

// onBoard prints an asynchronous round's board.
func (c *playClient) onBoard(m *protocol.Board) {
	var in *protocol.AsyncInfo
	scoring := ""
	if a := c.async; a != nil && a.info.RoundID == m.RoundID {
		in = &a.info
		scoring = a.info.Rules.Scoring.String()
	}
	c.printf("%s", renderBoardPage(m, in, c.playerID, scoring))
}

// onRecords prints a player's records.
func (c *playClient) onRecords(m *protocol.Records) {
	who := "Records of " + clean(m.PlayerID)
	if m.PlayerID == c.playerID || m.PlayerID == "" {
		who = "Your records"
	}
	c.printf("%s:\n%s", who, renderRecords(m.Records))
}

// asyncRoundError takes the refusal of an asynchronous round's request. A
// second attempt, or one after the window closed, shows the board instead;
// it reports whether it took the error.
func (c *playClient) asyncRoundError(reqType string, m *protocol.Error) bool {
	if reqType != protocol.TypeStartAttempt {
		return false
	}
	a := c.async
	switch {
	case a == nil:
		return false
	case m.Code == protocol.CodeAlreadyPlayed:
		c.printf("You have played this round already: one attempt a player.\n")
	case m.Code == protocol.CodeRoundNotRunning:
		c.printf("This round's window is closed: %s\n", clean(m.Message))
	default:
		return false
	}
	c.getBoard(a.info.RoundID)
	return true
}

// closeTarget returns the challenge that close names: ref, or the one in
// view; "" after saying why there is none.
func (c *playClient) closeTarget(ref string) string {
	if ref != "" {
		id, err := challengeID(ref)
		if err != nil {
			c.printf("%v\n", err)
			return ""
		}
		return id
	}
	a := c.async
	if a == nil || a.info.Kind != protocol.KindChallenge {
		c.printf("No challenge in view: close ID closes one of yours.\n")
		return ""
	}
	if a.info.CreatorID != "" && a.info.CreatorID != c.playerID {
		c.printf("Only its creator, %s, can close this challenge.\n", clean(a.info.CreatorName))
		return ""
	}
	return a.info.RoundID
}

// resumeFlag is the flag that comes back to the attempt under way.
func (c *playClient) resumeFlag() string {
	r := c.round
	if r.kind == protocol.KindDaily {
		return "--daily " + strconv.Itoa(r.rules.Draw)
	}
	return "--challenge " + clean(r.matchID)
}

// parseWindow reads how long a challenge stays open: a Go duration (90m,
// 24h), whole days (2d) or whole minutes (90), from a minute to a week, in
// whole seconds.
func parseWindow(s string) (time.Duration, error) {
	d, err := time.ParseDuration(s)
	if days, ok := strings.CutSuffix(s, "d"); ok {
		var n int
		n, err = strconv.Atoi(days)
		d = time.Duration(n) * 24 * time.Hour
	} else if n, aerr := strconv.Atoi(s); aerr == nil {
		d, err = time.Duration(n)*time.Minute, nil
	}
	if err != nil || d < protocol.MinChallengeWindow || d > protocol.MaxChallengeWindow || d%time.Second != 0 {
		return 0, fmt.Errorf("window %q: want a duration from %s to %s, such as 2h", s,
			roughDuration(protocol.MinChallengeWindow), roughDuration(protocol.MaxChallengeWindow))
	}
	return d, nil
}
