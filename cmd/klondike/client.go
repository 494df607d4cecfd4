package main

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"sync"
	"time"

	"github.com/gorilla/websocket"

	"klondike/api/client"
	"klondike/api/protocol"
)

// playConfig is what runPlay gives a playClient; zero durations and counts
// take the defaults below.
type playConfig struct {
	URL   string // ws://HOST:PORT/ws
	Name  string
	Token string // resume this session
	// NameGiven says that Name is --name's: hello with a token sends it,
	// renaming the player. Otherwise a resumed player keeps its name, and
	// Name is only a new player's.
	NameGiven bool
	// ProfileName is --profile's, "" for the default profile; Profile is
	// the profile that keeps the player (profile.go), nil when --token
	// gave the session, which is then not saved. Saved says that Token is
	// the profile's: a hello it fails with unauthorized (a player the
	// server forgot) starts a new player rather than ending.
	ProfileName string
	Profile     *profile
	Saved       bool
	// Stderr gets the notes that are not the game's: the saved player's
	// fate, a profile that cannot be saved. Nil: the output.
	Stderr io.Writer
	// Action is "create", "join", "quick", "spectate", "" (the lobby), or
	// for asynchronous rounds "daily" (the daily round of Draw),
	// "challenge" (Code) or "create-challenge".
	Action string
	// Code is the invite code or match id to join, the match to
	// spectate, or the asynchronous round to play.
	Code   string
	Draw   int
	Public bool // the match that Action "create" makes is listed in the lobby
	// Rated makes the matches that create makes rated (--rated); Casual
	// makes the quick matches that quick looks for casual (--casual),
	// where they are rated otherwise.
	Rated, Casual bool
	// Window is how long the challenge that Action "create-challenge"
	// makes stays open; 0 leaves it to the server (a day).
	Window time.Duration
	Color  bool // paint the board (red suits, dim card backs)
	// Program is the command that ran this client, such as "klondike" or
	// "go run ./cmd/klondike": the lines it prints for others to paste
	// start with it. Empty means "klondike".
	Program string
	// Settings are sent with create_match and quick_match; Draw fills in
	// their draw when they leave it out.
	Settings protocol.PartialSettings

	DialTimeout time.Duration // one connection attempt
	ReadTimeout time.Duration // silence (no frame, no ping) that counts as a dead connection
	WriteWait   time.Duration // one write
	Retries     int           // reconnection attempts after a drop
	RetryBase   time.Duration // the first backoff; it doubles
	RetryMax    time.Duration // the longest backoff
	MoveGap     time.Duration // least time between two queued moves sent
	RateRetry   time.Duration // wait before resending a move the server rate-limited
	ReplyWait   time.Duration // how long input waits for the reply to a request
}

// Defaults of playConfig, and the client's own bounds.
const (
	defaultDialTimeout = 10 * time.Second
	// defaultReadTimeout is longer than the server's ping period (api's
	// PongWait*9/10, 54 s by default), so that only a dead connection is
	// silent for that long.
	defaultReadTimeout = 90 * time.Second
	defaultWriteWait   = 10 * time.Second
	defaultRetries     = 5
	defaultRetryBase   = 250 * time.Millisecond
	defaultRetryMax    = 5 * time.Second
	// defaultMoveGap keeps a queue of typed moves well under the server's
	// message rate (api.DefaultMsgRate), leaving room for other requests.
	defaultMoveGap   = 60 * time.Millisecond
	defaultRateRetry = time.Second
	defaultReplyWait = 10 * time.Second
	// maxQueuedMoves bounds the moves typed ahead of the round or of the
	// server's answers; a line that would pass it queues nothing.
	maxQueuedMoves = 500
	// maxLineBytes is the longest line of input; a longer one ends input.
	maxLineBytes = 64 << 10
)

// playClient is one terminal session with the server. Its main loop (run)
// owns every field: the read loop of each connection and the input reader
// only feed it channels.
type playClient struct {
	cfg    playConfig
	in     io.Reader
	out    io.Writer
	dialer websocket.Dialer
	done   chan struct{} // closed when run returns: stops the feeders
	frames chan frame

	conn    *client.Conn
	gen     int
	tries   int            // reconnections since the last welcome
	readers sync.WaitGroup // the running read loops

	nextID  int
	pending map[string]request // requests awaiting their reply, by id

	playerID, name, token string
	kept                  credential    // the last credential saved in the profile
	skew                  time.Duration // server clock minus ours, from welcome
	welcomed              bool          // the first welcome came
	actionSent            bool          // the flags' request was sent

	match      *protocol.MatchInfo
	matchText  string // the last match summary printed
	listCursor string // where the next page of the match list starts; "" after the last
	spectating string // the match id being watched
	round      *roundState
	async      *asyncState   // the asynchronous round in view
	dailyList  *dailyListing // the daily list awaiting the player's attempts
	queue      []string      // moves waiting for the round or for the pending move

	timer    *time.Timer // paces queued moves and retries
	timerC   <-chan time.Time
	lastMove time.Time

	// The GETs of profile and ladder (ratings.go): fetches by request id
	// until their answers come on fetched; httpStop cancels them at the end.
	fetches  map[string]fetching
	fetched  chan fetched
	fetchers sync.WaitGroup
	httpCtx  context.Context
	httpStop context.CancelFunc
	ladder   *ladderState // the ladder in view, for ladder next
	// ratingsShown is the round whose rating changes were printed.
	ratingsShown string

	confirm    string // "resign" or "close" while waiting for y/N
	elsewhere  bool   // another connection of the player plays its match (playing_elsewhere)
	confirmArg string // what to close
	eof        bool
	eofNoted   bool
	quit       bool
	failed     bool // a request the flags made was refused
	fatal      error
}

// newPlayClient returns a client of cfg, with its defaults filled in, that
// reads commands from in and prints to out. Nothing happens before run.
func newPlayClient(cfg playConfig, in io.Reader, out io.Writer) *playClient {
	def := func(d *time.Duration, v time.Duration) {
		if *d <= 0 {
			*d = v
		}
	}
	def(&cfg.DialTimeout, defaultDialTimeout)
	def(&cfg.ReadTimeout, defaultReadTimeout)
	def(&cfg.WriteWait, defaultWriteWait)
	def(&cfg.RetryBase, defaultRetryBase)
	def(&cfg.RetryMax, defaultRetryMax)
	def(&cfg.MoveGap, defaultMoveGap)
	def(&cfg.RateRetry, defaultRateRetry)
	def(&cfg.ReplyWait, defaultReplyWait)
	if cfg.Retries <= 0 {
		cfg.Retries = defaultRetries
	}
	if cfg.Draw == 0 {
		cfg.Draw = 3
	}
	if cfg.Stderr == nil {
		cfg.Stderr = out
	}
	d := *websocket.DefaultDialer
	d.HandshakeTimeout = cfg.DialTimeout
	httpCtx, httpStop := context.WithCancel(context.Background())
	return &playClient{
		cfg: cfg, in: in, out: out, dialer: d,
		done: make(chan struct{}), frames: make(chan frame),
		pending: map[string]request{}, token: cfg.Token, name: cfg.Name,
		fetches: map[string]fetching{}, fetched: make(chan fetched), httpCtx: httpCtx, httpStop: httpStop,
	}
}

// printf prints to the terminal.
func (c *playClient) printf(format string, a ...any) { fmt.Fprintf(c.out, format, a...) }

// run plays until quit, the end of input (see playUsage), a fatal error or
// ctx's end (errInterrupted).
func (c *playClient) run(ctx context.Context) error {
	lines := make(chan string)
	go c.readInput(lines)
	defer c.shutdown()
	gate := time.NewTimer(time.Hour)
	gate.Stop()
	defer gate.Stop()
	if err := c.connect(ctx); err != nil {
		return err
	}
	for !c.finished() {
		c.expireRequests()
		// Input waits for the replies to what it asked, so that a script's
		// next line sees their effect ("join CODE" then a move), but no
		// longer than ReplyWait.
		in, wake := lines, (<-chan time.Time)(nil)
		if wait := c.replyWait(); wait > 0 {
			in = nil
			gate.Reset(wait)
			wake = gate.C
		}
		select {
		case <-ctx.Done():
			return errInterrupted
		case <-wake:
		case f := <-c.frames:
			if f.gen != c.gen {
				continue
			}
			if f.err != nil {
				if err := c.connectionLost(ctx, f.err); err != nil {
					return err
				}
				continue
			}
			c.handle(f.data)
		case f := <-c.fetched:
			c.onFetched(f)
		case line, ok := <-in:
			if !ok {
				lines = nil
				c.endOfInput()
				continue
			}
			c.command(line)
		case <-c.timerC:
			c.timerC = nil
			c.pump()
		}
	}
	if c.fatal != nil {
		return c.fatal
	}
	return nil
}

// shutdown closes the connection and waits for its read loops.
func (c *playClient) shutdown() {
	if c.conn != nil {
		c.conn.CloseNormal("bye", time.Second)
		c.conn.Close()
	}
	close(c.done)
	c.httpStop()
	if c.timer != nil {
		c.timer.Stop()
	}
	c.readers.Wait()
	c.fetchers.Wait()
}

// replyWait returns how long input must still wait for replies: until the
// first welcome, and while a request is unanswered, up to ReplyWait.
func (c *playClient) replyWait() time.Duration {
	var wait time.Duration
	for _, r := range c.pending {
		wait = max(wait, c.cfg.ReplyWait-time.Since(r.at))
	}
	return wait
}

// expireRequests gives up on requests unanswered for ReplyWait.
func (c *playClient) expireRequests() {
	for id, r := range c.pending {
		if time.Since(r.at) >= c.cfg.ReplyWait {
			c.printf("No answer from the server in %s when asked to %s; going on.\n", c.cfg.ReplyWait, r.words())
			delete(c.pending, id)
			delete(c.fetches, id) // a late answer is dropped
			if r.arg == argDailyList {
				c.onDailyAttempt(id, nil)
			}
		}
	}
}

// finished reports whether the main loop is done.
func (c *playClient) finished() bool {
	if c.quit || c.fatal != nil {
		return true
	}
	if !c.eof {
		return false
	}
	if len(c.pending) > 0 || len(c.queue) > 0 || (c.round != nil && c.round.pending != nil) {
		return false
	}
	if c.matchUnderWay() {
		if !c.eofNoted {
			c.eofNoted = true
			c.printf("(end of input: waiting for the match to end; Ctrl-C leaves)\n")
		}
		return false
	}
	if wait := c.ratingsWait(); wait > 0 {
		if c.timerC == nil {
			c.arm(wait) // to look again then
		}
		return false
	}
	if c.attemptUnderWay() {
		if !c.eofNoted {
			c.eofNoted = true
			c.printf("(end of input: waiting for your game to end; Ctrl-C leaves)\n")
		}
		return false
	}
	return true
}

// matchUnderWay reports whether the match we play or watch has started and
// is not over.
func (c *playClient) matchUnderWay() bool {
	if c.match == nil || (!c.isPlayer() && c.spectating != c.match.ID) {
		return false
	}
	switch c.match.State {
	case protocol.StateStarting, protocol.StateRunning, protocol.StateBetween:
		return true
	}
	return false
}

// readInput feeds lines of input to the main loop and closes lines at the
// end of input. It stops early when run returns.
func (c *playClient) readInput(lines chan<- string) {
	sc := bufio.NewScanner(c.in)
	sc.Buffer(make([]byte, 4096), maxLineBytes)
	for sc.Scan() {
		select {
		case lines <- sc.Text():
		case <-c.done:
			return
		}
	}
	select {
	case <-c.done:
	default:
		close(lines)
	}
}
