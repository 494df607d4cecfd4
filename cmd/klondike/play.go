package main

import (
	"bufio"
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/url"
	"os"
	"os/exec"
	"os/signal"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/gorilla/websocket"

	"klondike/engine"
)

func playUsage(w io.Writer) {
	fmt.Fprint(w, `Usage: klondike play --server ws://HOST:PORT/ws [--name NAME] [--token TOKEN]
                     [--create [--public] | --code CODE | --quick | --spectate MATCH_ID]
                     [--draw 1|3] [--color[=auto|always|never]]

Play connects to a klondiked server and plays matches from the terminal: it
prints the board after every change (face-down cards as ##), reads moves in
the move notation from stdin, and shows the leaderboard and the results. It
is the reference client of the WebSocket protocol.

Flags:
  --server URL    the server's WebSocket address, ws://HOST:PORT/ws (or
                  wss://…); a URL without a path gets /ws
  --name NAME     your name, 1 to 24 printable characters (default $USER,
                  or "player")
  --token TOKEN   resume an earlier session (printed when you quit a match)
  --create        create a match and print its invite code and the command
                  to share; the match is private: players join it by its
                  code, and it is not listed in the lobby
  --public        with --create: a public match, which also shows in the
                  lobby's list (play's list, the web lobby) for anyone to join
  --code CODE     join the match with this invite code (or match id)
  --quick         join (or open) a public quick match
  --spectate ID   watch a match's leaderboards by its match id
  --draw 1|3      cards turned by each D in the match you create or the
                  quick match you look for (default 3)
  --color[=WHEN]  paint the board, red suits red and card backs dim: auto
                  (the default) when stdout is a terminal, NO_COLOR is unset
                  or empty and TERM is not dumb; always (--color alone), even
                  into a pipe or with NO_COLOR; never

With none of --create, --code, --quick and --spectate, play lists the open
public matches and waits for one of: join CODE, create, create public, quick,
spectate ID.

Commands (one a line):
  D, R, U, W-Tn, W-F, Tn-F, Tn-Tm, Tn:k-Tm, Fs-Tn
                  a move (several may share a line); moves typed before the
                  round starts, or while a move awaits the server, are queued
  moves           list the legal moves of your board
  board           print your board again
  lb              print the round's leaderboard again
  ready, unready  say whether you are ready (a full match whose players are
                  all ready starts by itself)
  start           start the match (host only)
  resign          give up this round's game (asks y/N)
  create          create a private match, joined by its code
  create public   create a public match, listed in the lobby
  join CODE | quick | spectate ID | leave | rematch
  list            list the open public matches; list more: the next page
  help            this list of commands
  quit            leave; in a match you keep your seat, and your game goes on
                  until its time limit: --token TOKEN resumes it

Scores: the board shows your game score, the move points of the match's
scoring, and with standard scoring your timed score too. Leaderboards and
results show the round score: with standard scoring the timed score, the
game score less 2 points for every full 10 seconds of the round (not below
0), plus, for a win of at least 30 s, 700000 divided by its seconds; with
vegas and none scoring, the game score itself (no time penalty).

The share, watch and resume lines that play prints start with the command
you ran (go run ./cmd/klondike when you ran it with go run).

Ending: quit, Ctrl-C, or the end of stdin. At the end of stdin, play waits
for whatever is under way: replies to what it sent, queued moves, and a match
that has started, until the match is over; outside a started match it ends at
once. When the connection drops during a match, play reconnects with its
token (5 tries, backing off up to 5 s) and resumes where the server left off.

Every round's deal is checked when the round ends: the SHA-256 of
"<salt>:<seed>" must be the commitment announced before the round, and the
layout must be that deal number's.

Exit status: 0 after quit or the end of input, 1 when the connection failed
or a request made by a flag was refused, 2 for bad usage, 130 on Ctrl-C.

Examples:
  klondike play --server ws://127.0.0.1:8080/ws --name alice --create
  klondike play --server ws://127.0.0.1:8080/ws --name alice --create --public
  klondike play --server ws://127.0.0.1:8080/ws --name bob --code K7QX2M
  klondike play --server ws://127.0.0.1:8080/ws --quick --draw 1
  klondike play --server ws://127.0.0.1:8080/ws --create --color=never
  printf 'start\nD\nT6-F\n' | klondike play --server ws://127.0.0.1:8080/ws --create
`)
}

// errInterrupted is run's error when its context ends (Ctrl-C).
var errInterrupted = errors.New("interrupted")

// exitInterrupted is the conventional status after SIGINT.
const exitInterrupted = 130

func runPlay(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	cfg, ok, status := playSetup(args, osPlayEnv(), stdout, stderr)
	if !ok {
		return status
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	c := newPlayClient(cfg, stdin, stdout)
	err := c.run(ctx)
	switch {
	case errors.Is(err, errInterrupted):
		fmt.Fprintln(stdout, "interrupted")
		return exitInterrupted
	case err != nil:
		fmt.Fprintf(stderr, "klondike play: %v\n", err)
		return exitFailure
	case c.failed:
		return exitFailure
	}
	return exitOK
}

// playEnv is what play reads of its surroundings besides its arguments and
// streams: osPlayEnv gives the process's own, a test its made-up one.
type playEnv struct {
	getenv   func(string) string
	arg0     string // the program as invoked (os.Args[0])
	lookPath func(string) (string, error)
	isDir    func(string) bool // whether a path names a directory
}

func osPlayEnv() playEnv {
	return playEnv{
		getenv:   os.Getenv,
		arg0:     os.Args[0],
		lookPath: exec.LookPath,
		isDir: func(path string) bool {
			st, err := os.Stat(path)
			return err == nil && st.IsDir()
		},
	}
}

// playSetup turns play's arguments into the client's configuration. It
// returns ok when play should go on, and otherwise the exit status (after
// printing the help or the usage error).
func playSetup(args []string, env playEnv, stdout, stderr io.Writer) (cfg playConfig, ok bool, status int) {
	fs := newFlagSet("play")
	var create, quick bool
	var code, spectate string
	var color colorMode
	fs.StringVar(&cfg.URL, "server", "", "server WebSocket `URL`")
	fs.StringVar(&cfg.Name, "name", "", "your `NAME`")
	fs.StringVar(&cfg.Token, "token", "", "session `TOKEN` to resume")
	fs.BoolVar(&create, "create", false, "create a match")
	fs.BoolVar(&cfg.Public, "public", false, "list the created match in the lobby")
	fs.StringVar(&code, "code", "", "invite `CODE` of the match to join")
	fs.BoolVar(&quick, "quick", false, "join a quick match")
	fs.StringVar(&spectate, "spectate", "", "`MATCH_ID` to watch")
	fs.IntVar(&cfg.Draw, "draw", 3, "cards turned by D: 1 or 3")
	fs.Var(&color, "color", "paint the board: auto, always or never")
	if ok, status := parseFlags(fs, args, playUsage, stdout, stderr); !ok {
		return cfg, false, status
	}
	if fs.NArg() > 0 {
		err := fmt.Errorf("unexpected arguments %q", fs.Args())
		if w := fs.Arg(0); isSet(fs, "color") && slices.Contains(colorModeNames[:], w) {
			err = fmt.Errorf("unexpected argument %q: write --color=%s", w, w)
		}
		return cfg, false, usageError(stderr, fs.Name(), err)
	}
	n := 0
	for _, set := range []bool{create, code != "", quick, spectate != ""} {
		if set {
			n++
		}
	}
	if n > 1 {
		return cfg, false, usageError(stderr, fs.Name(), errors.New("give at most one of --create, --code, --quick and --spectate"))
	}
	if cfg.Public && !create {
		return cfg, false, usageError(stderr, fs.Name(), errors.New("--public goes with --create (a quick match is always public; in the lobby, type create public)"))
	}
	switch {
	case create:
		cfg.Action = "create"
	case code != "":
		cfg.Action, cfg.Code = "join", code
	case quick:
		cfg.Action = "quick"
	case spectate != "":
		cfg.Action, cfg.Code = "spectate", spectate
	}
	if cfg.Draw != 1 && cfg.Draw != 3 {
		return cfg, false, usageError(stderr, fs.Name(), fmt.Errorf("--draw %d: want 1 or 3", cfg.Draw))
	}
	u, err := serverURL(cfg.URL)
	if err != nil {
		return cfg, false, usageError(stderr, fs.Name(), err)
	}
	cfg.URL = u
	if cfg.Name == "" {
		cfg.Name = env.getenv("USER")
	}
	if cfg.Name == "" {
		cfg.Name = "player"
	}
	cfg.Color = useColor(color, isTerminal(stdout), env.getenv)
	cfg.Program = invokedAs(env.arg0, env.lookPath, env.isDir)
	return cfg, true, exitOK
}

// serverURL checks --server and completes it: a ws or wss URL (http and
// https are taken to mean them) with /ws when it has no path.
func serverURL(s string) (string, error) {
	if s == "" {
		return "", errors.New("--server: want the server's address, such as ws://127.0.0.1:8080/ws")
	}
	u, err := url.Parse(s)
	if err != nil {
		return "", fmt.Errorf("--server %q: %v", s, err)
	}
	switch u.Scheme {
	case "ws", "wss":
	case "http":
		u.Scheme = "ws"
	case "https":
		u.Scheme = "wss"
	default:
		return "", fmt.Errorf("--server %q: want a ws:// or wss:// URL", s)
	}
	if u.Host == "" {
		return "", fmt.Errorf("--server %q: no host", s)
	}
	if u.Path == "" || u.Path == "/" {
		u.Path = "/ws"
	}
	return u.String(), nil
}

// The protocol's messages as the client reads them. They are declared here,
// apart from the server's types, so that the client is held to the wire
// format (docs/protocol.md) rather than to the server's code; the board is
// engine.View, the one type the protocol shares with the engine.
type (
	wireEnvelope struct {
		Type string `json:"type"`
		Re   string `json:"re"`
	}
	wireWelcome struct {
		PlayerID   string    `json:"player_id"`
		Name       string    `json:"name"`
		Token      string    `json:"token"`
		ServerTime time.Time `json:"server_time"`
		Resumed    bool      `json:"resumed"`
		MatchID    string    `json:"match_id"`
	}
	wireSettings struct {
		Draw                int    `json:"draw"`
		Passes              int    `json:"passes"`
		Scoring             string `json:"scoring"`
		Undo                string `json:"undo"`
		FoundationToTableau bool   `json:"foundation_to_tableau"`
		Mode                string `json:"mode"`
		Rounds              int    `json:"rounds"`
		MaxPlayers          int    `json:"max_players"`
		TimeLimitS          int    `json:"time_limit_s"`
		Public              bool   `json:"public"`
		Seed                string `json:"seed,omitempty"`
		CountdownS          int    `json:"countdown_s"`
	}
	wireMember struct {
		PlayerID  string `json:"player_id"`
		Name      string `json:"name"`
		Ready     bool   `json:"ready"`
		Connected bool   `json:"connected"`
	}
	wireMatch struct {
		ID         string       `json:"id"`
		Code       string       `json:"code"`
		Host       string       `json:"host"`
		Settings   wireSettings `json:"settings"`
		Players    []wireMember `json:"players"`
		State      string       `json:"state"`
		Round      int          `json:"round"`
		RoundID    string       `json:"round_id"`
		Spectators int          `json:"spectators"`
		Quick      bool         `json:"quick"`
		Totals     []wireTotal  `json:"totals"`
		NextMatch  string       `json:"next_match"`
	}
	wireEntry struct {
		PlayerID   string `json:"player_id"`
		Name       string `json:"name"`
		Rank       int    `json:"rank"`
		Score      int    `json:"score"`
		Foundation int    `json:"foundation"`
		Moves      int    `json:"moves"`
		Status     string `json:"status"`
		FinishedMs *int64 `json:"finished_ms"`
	}
	wireTotal struct {
		PlayerID string `json:"player_id"`
		Name     string `json:"name"`
		Total    int    `json:"total"`
		Wins     int    `json:"wins"`
		GamesWon int    `json:"games_won"`
		Placings []int  `json:"placings"`
		Rank     int    `json:"rank"`
	}
	wireRoundStarting struct {
		MatchID    string       `json:"match_id"`
		RoundID    string       `json:"round_id"`
		Round      int          `json:"round"`
		StartsAt   time.Time    `json:"starts_at"`
		EndsAt     time.Time    `json:"ends_at"`
		Commitment string       `json:"commitment"`
		KnownDeal  bool         `json:"known_deal"`
		Seed       string       `json:"seed"`
		Rules      engine.Rules `json:"rules"`
	}
	wireRoundStarted struct {
		MatchID  string       `json:"match_id"`
		RoundID  string       `json:"round_id"`
		Round    int          `json:"round"`
		StartsAt time.Time    `json:"starts_at"`
		EndsAt   time.Time    `json:"ends_at"`
		Rules    engine.Rules `json:"rules"`
		View     engine.View  `json:"view"`
		LastSeq  int          `json:"last_seq"`
		Resumed  bool         `json:"resumed"`
	}
	wireMoveOK struct {
		RoundID   string      `json:"round_id"`
		Seq       int         `json:"seq"`
		View      engine.View `json:"view"`
		Events    []string    `json:"events"`
		Duplicate bool        `json:"duplicate"`
	}
	wireMoveRejected struct {
		RoundID  string `json:"round_id"`
		Seq      int    `json:"seq"`
		Code     string `json:"code"`
		Reason   string `json:"reason"`
		Expected int    `json:"expected"`
	}
	wireLeaderboard struct {
		MatchID string      `json:"match_id"`
		RoundID string      `json:"round_id"`
		Entries []wireEntry `json:"entries"`
	}
	wireDeal struct {
		Seed       string          `json:"seed"`
		Salt       string          `json:"salt"`
		Commitment string          `json:"commitment"`
		KnownDeal  bool            `json:"known_deal"`
		Layout     json.RawMessage `json:"layout"`
	}
	wireRoundOver struct {
		MatchID   string      `json:"match_id"`
		RoundID   string      `json:"round_id"`
		Round     int         `json:"round"`
		Results   []wireEntry `json:"results"`
		Deal      wireDeal    `json:"deal"`
		ReplayURL string      `json:"replay_url"`
		Totals    []wireTotal `json:"totals"`
	}
	wireMatchOver struct {
		MatchID string      `json:"match_id"`
		Totals  []wireTotal `json:"totals"`
	}
	wireMatches struct {
		Matches    []wireMatch `json:"matches"`
		NextCursor string      `json:"next_cursor"` // more matches follow: ask with this cursor
	}
	wireError struct {
		Code    string `json:"code"`
		Message string `json:"message"`
	}
	wireResigned struct {
		RoundID string `json:"round_id"`
	}
)

// Match phases, as the protocol names them.
const (
	stateOpen     = "open"
	stateStarting = "starting"
	stateRunning  = "running"
	stateBetween  = "between"
	stateOver     = "over"
)

// playConfig is what runPlay gives a playClient; zero durations and counts
// take the defaults below.
type playConfig struct {
	URL    string // ws://HOST:PORT/ws
	Name   string
	Token  string // resume this session
	Action string // "create", "join", "quick", "spectate" or "" (the lobby)
	Code   string // the invite code or match id to join, or the match to spectate
	Draw   int
	Public bool // the match that Action "create" makes is listed in the lobby
	Color  bool // paint the board (red suits, dim card backs)
	// Program is the command that ran this client, such as "klondike" or
	// "go run ./cmd/klondike": the lines it prints for others to paste
	// start with it. Empty means "klondike".
	Program string
	// Settings are sent with create_match and quick_match besides draw.
	Settings map[string]any

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

// Defaults of playConfig.
const (
	defaultDialTimeout = 10 * time.Second
	defaultReadTimeout = 90 * time.Second // the server pings every 54 s
	defaultWriteWait   = 10 * time.Second
	defaultRetries     = 5
	defaultRetryBase   = 250 * time.Millisecond
	defaultRetryMax    = 5 * time.Second
	defaultMoveGap     = 60 * time.Millisecond // the server takes 20 messages a second
	defaultRateRetry   = time.Second
	defaultReplyWait   = 10 * time.Second
	maxQueuedMoves     = 500
	maxLineBytes       = 64 << 10
)

// A frame is what a connection's read loop hands the main loop: one message
// or the error that ended the connection. gen tells the connections apart,
// so that a dead connection's last words are ignored after a reconnect.
type frame struct {
	gen  int
	data []byte
	err  error
}

// roundState is the client's knowledge of one round.
type roundState struct {
	id, matchID      string
	number           int
	rules            engine.Rules
	commitment       string // announced by round_starting; "" if missed
	knownDeal        bool
	seed             string // a known deal's number
	startsAt, endsAt time.Time
	seated           bool         // round_started came: we play this round
	view             *engine.View // our board, nil until round_started
	opening          *engine.View // the board at move 0, to check against the revealed deal
	lastSeq          int          // the last move acknowledged
	pending          *pendingMove // the move awaiting its answer
	over             bool
	leaderboard      []wireEntry
	lbKey            string // what the last printed leaderboard showed, scores aside
}

// A request is a message sent and not yet answered (moves aside).
type request struct {
	typ string
	at  time.Time
}

// A pendingMove is a move sent and not yet answered.
type pendingMove struct {
	id   string
	seq  int
	move string
}

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

	conn    *websocket.Conn
	gen     int
	tries   int            // reconnections since the last welcome
	readers sync.WaitGroup // the running read loops

	nextID  int
	pending map[string]request // requests awaiting their reply, by id

	playerID, name, token string
	skew                  time.Duration // server clock minus ours, from welcome
	welcomed              bool          // the first welcome came
	actionSent            bool          // the flags' request was sent

	match      *wireMatch
	matchText  string // the last match summary printed
	listCursor string // where the next page of the match list starts; "" after the last
	spectating string // the match id being watched
	round      *roundState
	queue      []string // moves waiting for the round or for the pending move

	timer    *time.Timer // paces queued moves and retries
	timerC   <-chan time.Time
	lastMove time.Time

	confirm  string // "resign" while waiting for y/N
	eof      bool
	eofNoted bool
	quit     bool
	failed   bool // a request the flags made was refused
	fatal    error
}

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
	d := *websocket.DefaultDialer
	d.HandshakeTimeout = cfg.DialTimeout
	return &playClient{
		cfg: cfg, in: in, out: out, dialer: d,
		done: make(chan struct{}), frames: make(chan frame),
		pending: map[string]request{}, token: cfg.Token, name: cfg.Name,
	}
}

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
			c.printf("No reply to %s after %s; going on.\n", r.typ, c.cfg.ReplyWait)
			delete(c.pending, id)
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
	return true
}

// matchUnderWay reports whether the match we play or watch has started and
// is not over.
func (c *playClient) matchUnderWay() bool {
	if c.match == nil || (!c.isPlayer() && c.spectating != c.match.ID) {
		return false
	}
	switch c.match.State {
	case stateStarting, stateRunning, stateBetween:
		return true
	}
	return false
}

// shutdown closes the connection and waits for its read loops.
func (c *playClient) shutdown() {
	if c.conn != nil {
		c.conn.WriteControl(websocket.CloseMessage,
			websocket.FormatCloseMessage(websocket.CloseNormalClosure, "bye"), time.Now().Add(time.Second))
		c.conn.Close()
	}
	close(c.done)
	if c.timer != nil {
		c.timer.Stop()
	}
	c.readers.Wait()
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

// connect dials the server, starts the read loop and says hello.
func (c *playClient) connect(ctx context.Context) error {
	dctx, cancel := context.WithTimeout(ctx, c.cfg.DialTimeout)
	defer cancel()
	conn, resp, err := c.dialer.DialContext(dctx, c.cfg.URL, nil)
	if err != nil {
		if ctx.Err() != nil {
			return errInterrupted
		}
		if resp != nil {
			return fmt.Errorf("connecting to %s: %v (HTTP %s)", c.cfg.URL, err, resp.Status)
		}
		return fmt.Errorf("connecting to %s: %v", c.cfg.URL, err)
	}
	c.conn = conn
	c.gen++
	gen := c.gen
	conn.SetReadDeadline(time.Now().Add(c.cfg.ReadTimeout))
	conn.SetPingHandler(func(data string) error {
		conn.SetReadDeadline(time.Now().Add(c.cfg.ReadTimeout))
		err := conn.WriteControl(websocket.PongMessage, []byte(data), time.Now().Add(c.cfg.WriteWait))
		if errors.Is(err, websocket.ErrCloseSent) {
			return nil
		}
		return err
	})
	c.readers.Add(1)
	go c.readLoop(conn, gen)
	hello := map[string]any{"name": c.name}
	if c.token != "" {
		hello["token"] = c.token
	}
	c.request("hello", hello)
	return nil
}

// readLoop hands each message of conn to the main loop, then the error
// that ended it. It ends with the connection (or when run returns).
func (c *playClient) readLoop(conn *websocket.Conn, gen int) {
	defer c.readers.Done()
	for {
		_, data, err := conn.ReadMessage()
		if err == nil {
			conn.SetReadDeadline(time.Now().Add(c.cfg.ReadTimeout))
		}
		select {
		case c.frames <- frame{gen: gen, data: data, err: err}:
		case <-c.done:
			return
		}
		if err != nil {
			return
		}
	}
}

// request sends a message of type typ with a fresh id and the fields of
// body, and remembers it until its reply. It returns the id.
func (c *playClient) request(typ string, body map[string]any) string {
	c.nextID++
	id := strconv.Itoa(c.nextID)
	msg := map[string]any{"type": typ, "id": id}
	for k, v := range body {
		msg[k] = v
	}
	if typ != "move" { // a move's answer is tracked by the round
		c.pending[id] = request{typ: typ, at: time.Now()}
	}
	c.send(msg)
	return id
}

// send writes one message. A failed write closes the connection; its read
// loop then reports the drop.
func (c *playClient) send(msg any) {
	if c.conn == nil {
		return
	}
	c.conn.SetWriteDeadline(time.Now().Add(c.cfg.WriteWait))
	if err := c.conn.WriteJSON(msg); err != nil {
		c.conn.Close()
	}
}

// connectionLost handles the end of the connection: during a match it
// reconnects with the token; otherwise, or when every try failed, it
// returns the error that ends run.
func (c *playClient) connectionLost(ctx context.Context, cause error) error {
	c.conn.Close()
	if c.quit {
		return nil
	}
	var ce *websocket.CloseError
	if errors.As(cause, &ce) && ce.Code == 4000 {
		return errors.New("this session connected again elsewhere (connection replaced)")
	}
	if !c.shouldReconnect() {
		return fmt.Errorf("connection lost: %v", cause)
	}
	c.printf("connection lost (%v); reconnecting\n", cause)
	c.pending = map[string]request{} // their replies are lost with the connection
	err := cause
	for c.tries < c.cfg.Retries {
		c.tries++
		wait := c.cfg.RetryBase << (c.tries - 1)
		if wait > c.cfg.RetryMax || wait <= 0 {
			wait = c.cfg.RetryMax
		}
		t := time.NewTimer(wait)
		select {
		case <-ctx.Done():
			t.Stop()
			return errInterrupted
		case <-t.C:
		}
		if err = c.connect(ctx); err == nil {
			return nil // the tries start again at the welcome
		}
		if errors.Is(err, errInterrupted) {
			return err
		}
		c.printf("reconnect %d of %d failed: %v\n", c.tries, c.cfg.Retries, err)
	}
	return fmt.Errorf("connection lost and %d reconnects failed: %v", c.cfg.Retries, err)
}

// shouldReconnect reports whether a drop is worth resuming: we have a
// session and a match (or a watched match) under way.
func (c *playClient) shouldReconnect() bool {
	if c.token == "" {
		return false
	}
	if c.spectating != "" {
		return true
	}
	return c.match != nil && c.match.State != stateOver
}

// isPlayer reports whether we are a player of the current match.
func (c *playClient) isPlayer() bool {
	if c.match == nil {
		return false
	}
	for _, p := range c.match.Players {
		if p.PlayerID == c.playerID {
			return true
		}
	}
	return false
}

// handleAs decodes a server message of type typ as a T and hands it to f;
// a message that does not decode is reported and dropped.
func handleAs[T any](c *playClient, typ string, data []byte, f func(*T)) {
	var m T
	if err := json.Unmarshal(data, &m); err != nil {
		c.printf("cannot read the server's %s message: %v\n", typ, err)
		return
	}
	f(&m)
}

// handle dispatches one server message.
func (c *playClient) handle(data []byte) {
	var env wireEnvelope
	if err := json.Unmarshal(data, &env); err != nil {
		c.printf("the server sent something that is not JSON: %q\n", truncate(string(data), 200))
		return
	}
	reqType := c.pending[env.Re].typ
	delete(c.pending, env.Re)
	switch env.Type {
	case "welcome":
		handleAs(c, env.Type, data, c.onWelcome)
	case "match":
		handleAs(c, env.Type, data, func(m *struct {
			Match *wireMatch `json:"match"`
		}) {
			if m.Match != nil {
				c.onMatch(m.Match, reqType)
			}
		})
	case "matches":
		handleAs(c, env.Type, data, func(m *wireMatches) {
			c.listCursor = m.NextCursor
			c.printf("%s", renderMatchList(m.Matches, m.NextCursor != ""))
		})
	case "round_starting":
		handleAs(c, env.Type, data, c.onRoundStarting)
	case "round_started":
		handleAs(c, env.Type, data, c.onRoundStarted)
	case "move_ok":
		handleAs(c, env.Type, data, c.onMoveOK)
	case "move_rejected":
		handleAs(c, env.Type, data, c.onMoveRejected)
	case "resigned":
		handleAs(c, env.Type, data, c.onResigned)
	case "leaderboard":
		handleAs(c, env.Type, data, c.onLeaderboard)
	case "round_over":
		handleAs(c, env.Type, data, c.onRoundOver)
	case "match_over":
		handleAs(c, env.Type, data, c.onMatchOver)
	case "error":
		handleAs(c, env.Type, data, func(m *wireError) { c.onError(env.Re, reqType, m) })
	default:
		// Newer servers may send more; the protocol only adds.
	}
	c.pump()
}

func truncate(s string, n int) string {
	if len(s) > n {
		return s[:n] + "…"
	}
	return s
}

func (c *playClient) onWelcome(m *wireWelcome) {
	first := !c.welcomed
	c.welcomed = true
	c.tries = 0
	c.playerID, c.name, c.token = m.PlayerID, m.Name, m.Token
	if !m.ServerTime.IsZero() {
		c.skew = time.Until(m.ServerTime)
	}
	switch {
	case !first:
		c.printf("reconnected as %s\n", clean(m.Name))
		if c.spectating != "" {
			c.request("spectate", map[string]any{"match_id": c.spectating})
		}
		return
	case m.Resumed:
		c.printf("resumed the session of %s\n", clean(m.Name))
	default:
		c.printf("connected to %s as %s\n", c.cfg.URL, clean(m.Name))
	}
	if m.Resumed && m.MatchID != "" {
		c.printf("you are in match %s; the server resends where it stands\n", m.MatchID)
		return
	}
	c.startAction()
}

// startAction sends the request the flags asked for, or lists the matches.
func (c *playClient) startAction() {
	if c.actionSent {
		return
	}
	c.actionSent = true
	switch c.cfg.Action {
	case "create":
		c.create(c.cfg.Public)
	case "join":
		c.join(c.cfg.Code)
	case "quick":
		c.request("quick_match", map[string]any{"settings": c.settings()})
	case "spectate":
		c.spectate(c.cfg.Code)
	default:
		c.request("list_matches", nil)
		c.printf("%s", lobbyPrompt)
	}
}

// lobbyPrompt says what a player outside a match can type.
const lobbyPrompt = "Type: join CODE, create (private, shared by its code), create public (listed),\n" +
	"quick, spectate MATCH_ID, list, help or quit.\n"

// create asks for a new match of our settings, listed in the lobby when
// public.
func (c *playClient) create(public bool) {
	s := c.settings()
	if public {
		s["public"] = true
	}
	c.request("create_match", map[string]any{"settings": s})
}

// program is the command to start another client with.
func (c *playClient) program() string {
	if c.cfg.Program == "" {
		return "klondike"
	}
	return c.cfg.Program
}

func (c *playClient) settings() map[string]any {
	s := map[string]any{"draw": c.cfg.Draw}
	for k, v := range c.cfg.Settings {
		s[k] = v
	}
	return s
}

// join asks to join by invite code or, for anything longer, by match id.
func (c *playClient) join(ref string) {
	ref = strings.TrimSpace(ref)
	if len(ref) > 6 {
		c.request("join_match", map[string]any{"match_id": ref})
	} else {
		c.request("join_match", map[string]any{"code": strings.ToUpper(ref)})
	}
}

func (c *playClient) spectate(id string) {
	c.spectating = id
	c.request("spectate", map[string]any{"match_id": id})
}

// onMatch takes a match snapshot: the reply to our request, or a change of
// our match (or a rematch we were seated in).
func (c *playClient) onMatch(m *wireMatch, reqType string) {
	ours := reqType != "" || c.match == nil || c.match.ID == m.ID || c.spectating == m.ID
	if !ours {
		for _, p := range m.Players {
			if p.PlayerID == c.playerID {
				ours = true // seated in a rematch
			}
		}
	}
	if !ours {
		return
	}
	if reqType == "leave_match" {
		c.printf("You left match %s.\n", clean(m.Code))
		c.match, c.matchText, c.round, c.spectating = nil, "", nil, ""
		return
	}
	prev := ""
	if c.match != nil && c.match.ID == m.ID {
		prev = c.match.State
	} else if c.match != nil {
		c.printf("Now in match %s.\n", clean(m.Code))
	}
	c.match = m
	if reqType == "spectate" {
		c.spectating = m.ID
	} else if reqType != "" && c.spectating != m.ID {
		c.spectating = ""
	}
	// The round messages announce the phases: reprint the summary when
	// something else changed (players, ready, connected, spectators).
	key := *m
	key.State, key.Round = "", 0
	if text := renderMatch(&key, c.playerID); text != c.matchText {
		c.matchText = text
		c.printf("%s", renderMatch(m, c.playerID))
	}
	switch reqType {
	case "create_match":
		c.printf("Invite code: %s\nshare: %s play --server %s --code %s\n", clean(m.Code), c.program(), c.cfg.URL, clean(m.Code))
		c.printf("watch: %s play --server %s --spectate %s\n", c.program(), c.cfg.URL, clean(m.ID))
		if m.Settings.Public {
			c.printf("A public match: it is listed in the lobby (list) for anyone to join.\n")
		} else {
			c.printf("A private match: only players with the code can join (create public lists one in the lobby).\n")
		}
		c.printf("Type start when everyone has joined.\n")
	case "join_match":
		c.printf("Joined match %s. The host starts it (or it starts when full and all are ready: type ready).\n", clean(m.Code))
	case "quick_match":
		c.printf("Waiting for players: a quick match starts shortly after a second player joins.\n")
	case "spectate":
		c.printf("Watching match %s.\n", clean(m.Code))
	}
	// A round that ended while we were away: its round_over was lost.
	if r := c.round; r != nil && !r.over && r.matchID == m.ID && (m.RoundID != r.id || m.State == stateBetween || m.State == stateOver) {
		r.over = true
		r.pending = nil
		c.printf("Round %d ended while you were away; its results: %s\n", r.number, clean(c.httpURL("/api/v1/rounds/"+url.PathEscape(r.id)+"/replay")))
		if len(m.Totals) > 0 {
			c.printf("Match totals:\n%s", renderTotals(m.Totals, c.playerID))
		}
	}
	if m.State != prev && (m.State == stateOver || m.State == stateBetween) {
		c.dropQueue("the round is over")
	}
}

func (c *playClient) onRoundStarting(m *wireRoundStarting) {
	c.round = &roundState{
		id: m.RoundID, matchID: m.MatchID, number: m.Round, rules: m.Rules, commitment: m.Commitment,
		knownDeal: m.KnownDeal, seed: m.Seed, startsAt: m.StartsAt, endsAt: m.EndsAt,
	}
	if c.match != nil && c.match.ID == m.MatchID {
		c.match.State = stateStarting
	}
	in := time.Until(m.StartsAt.Add(-c.skew)).Round(time.Second)
	c.printf("Round %d starts in %s (%s).\n", m.Round, max(in, 0), m.Rules.String())
	if m.KnownDeal {
		c.printf("  Known deal #%s: no commitment.\n", clean(m.Seed))
	} else {
		c.printf("  Deal commitment: %s\n", clean(m.Commitment))
	}
}

func (c *playClient) onRoundStarted(m *wireRoundStarted) {
	r := c.round
	if r == nil || r.id != m.RoundID {
		r = &roundState{id: m.RoundID, matchID: m.MatchID, number: m.Round}
		c.round = r
	}
	r.rules, r.startsAt, r.endsAt = m.Rules, m.StartsAt, m.EndsAt
	r.seated = true
	view := m.View
	r.view = &view
	r.lastSeq = m.LastSeq
	if m.LastSeq == 0 && r.opening == nil {
		opening := m.View
		r.opening = &opening
	}
	if c.match != nil && c.match.ID == m.MatchID {
		c.match.State = stateRunning
	}
	if m.Resumed {
		c.printf("Round %d resumed after your move %d.\n", m.Round, m.LastSeq)
	} else {
		c.printf("Round %d started. Type moves (moves lists them; help for commands).\n", m.Round)
	}
	c.printBoard()
	if p := r.pending; p != nil {
		r.pending = nil
		if p.seq <= m.LastSeq {
			c.printf("%s was played before the connection dropped.\n", p.move)
		} else {
			c.queue = append([]string{p.move}, c.queue...) // never reached the server: again
		}
	}
}

// scoring returns the scoring system of the current round by name: from its
// rules when a round message gave them, else from the match's settings; ""
// when neither is known.
func (c *playClient) scoring() string {
	if r := c.round; r != nil && r.rules.Draw != 0 {
		return r.rules.Scoring.String()
	}
	if c.match != nil {
		if s, err := engine.ParseScoring(c.match.Settings.Scoring); err == nil {
			return s.String()
		}
	}
	return ""
}

func (c *playClient) printBoard() {
	r := c.round
	if r == nil || r.view == nil {
		c.printf("No board: you are not playing a round.\n")
		return
	}
	c.printf("\n%s", renderBoard(r.view, c.scoring(), c.cfg.Color))
	if !r.over && !r.endsAt.IsZero() {
		left := time.Until(r.endsAt.Add(-c.skew))
		c.printf("Round %d: %s left\n", r.number, formatMs(left.Milliseconds(), false))
	}
}

func (c *playClient) onMoveOK(m *wireMoveOK) {
	r := c.round
	if r == nil || r.id != m.RoundID {
		return
	}
	p := r.pending
	if p == nil || p.seq != m.Seq {
		// An answer we stopped waiting for: keep the newest board.
		if m.Seq >= r.lastSeq {
			r.lastSeq = m.Seq
			view := m.View
			r.view = &view
		}
		return
	}
	r.pending = nil
	r.lastSeq = max(r.lastSeq, m.Seq)
	view := m.View
	r.view = &view
	what := strings.Join(m.Events, ", ")
	if m.Duplicate {
		what = "already played"
	}
	if what != "" {
		what = " (" + what + ")"
	}
	c.printf("%s ok%s\n", p.move, what)
	c.printBoard()
	switch view.Status {
	case engine.Won:
		c.printf("You won! Waiting for the round to end.\n")
	case engine.Stuck:
		c.printf("No useful move is left: your game is over (stuck). Waiting for the round to end.\n")
	}
}

func (c *playClient) onMoveRejected(m *wireMoveRejected) {
	r := c.round
	if r == nil || r.id != m.RoundID {
		c.printf("move rejected (%s): %s\n", clean(m.Code), clean(m.Reason))
		return
	}
	move := "move"
	if p := r.pending; p != nil && p.seq == m.Seq {
		move = p.move
		r.pending = nil
	}
	switch {
	case m.Code == "out_of_order" && m.Expected > 0:
		r.lastSeq = m.Expected - 1
		c.printf("%s rejected: out of order; the server expects move %d. Resynced: type it again.\n", move, m.Expected)
	case m.Code == "round_not_running":
		c.printf("%s rejected: the round is not running (%s)\n", move, clean(m.Reason))
	default:
		c.printf("%s rejected: %s\n", move, clean(m.Reason))
	}
}

func (c *playClient) onResigned(m *wireResigned) {
	r := c.round
	if r != nil && r.id == m.RoundID && r.view != nil {
		r.view.Status = engine.Resigned
	}
	c.printf("You resigned. Waiting for the round to end.\n")
	c.dropQueue("you resigned")
}

func (c *playClient) onLeaderboard(m *wireLeaderboard) {
	r := c.round
	if r == nil || r.id != m.RoundID {
		r = &roundState{id: m.RoundID, matchID: m.MatchID}
		if c.round != nil && c.round.id == m.RoundID {
			r = c.round
		}
		c.round = r
	}
	r.leaderboard = m.Entries
	// Standard scores fall with time: reprint only when more than that changed.
	var key strings.Builder
	for _, e := range m.Entries {
		fmt.Fprintf(&key, "%d %s %d %d %s|", e.Rank, e.PlayerID, e.Foundation, e.Moves, e.Status)
	}
	if key.String() == r.lbKey {
		return
	}
	r.lbKey = key.String()
	c.printLeaderboard()
}

func (c *playClient) printLeaderboard() {
	r := c.round
	if r == nil || r.leaderboard == nil {
		c.printf("No leaderboard yet.\n")
		return
	}
	title := "Leaderboard"
	if r.number > 0 {
		title += fmt.Sprintf(" (round %d)", r.number)
	}
	c.printf("%s:\n%s", title, renderLeaderboard(r.leaderboard, c.playerID, c.scoring()))
}

func (c *playClient) onRoundOver(m *wireRoundOver) {
	r := c.round
	announced, seed := "", ""
	var opening *engine.View
	if r != nil && r.id == m.RoundID {
		announced, seed = r.commitment, r.seed
		opening = r.opening
		r.over = true
		r.pending = nil
	}
	if c.match != nil && c.match.ID == m.MatchID {
		c.match.State = stateBetween
	}
	c.dropQueue("the round is over")
	replay := ""
	if m.ReplayURL != "" {
		replay = c.httpURL(m.ReplayURL)
	}
	c.printf("\n%s", renderRoundOver(m, c.playerID, replay, c.scoring()))
	for _, line := range verifyDeal(announced, seed, m.Deal, opening) {
		c.printf("%s\n", line)
	}
}

func (c *playClient) onMatchOver(m *wireMatchOver) {
	if c.match != nil && c.match.ID == m.MatchID {
		c.match.State = stateOver
	}
	c.printf("\n%s", renderMatchOver(m.Totals, c.playerID))
	if !c.eof {
		c.printf("Type rematch to play again with the same players, create [public], quick, join CODE or quit.\n")
	}
}

func (c *playClient) onError(re, reqType string, m *wireError) {
	r := c.round
	if m.Code == "rate_limited" && r != nil && r.pending != nil {
		// The server dropped a message without saying which: send the move
		// again in a while (the same seq is safe to repeat).
		c.queue = append([]string{r.pending.move}, c.queue...)
		r.pending = nil
		c.arm(c.cfg.RateRetry)
		return
	}
	if r != nil && r.pending != nil && r.pending.id == re {
		c.printf("%s refused: %s (%s)\n", r.pending.move, clean(m.Message), clean(m.Code))
		r.pending = nil
		return
	}
	what := "error"
	if reqType != "" {
		what = reqType + " failed"
	}
	c.printf("%s: %s (%s)\n", what, clean(m.Message), clean(m.Code))
	switch reqType {
	case "hello":
		c.fatal = fmt.Errorf("the server refused hello: %s (%s)", clean(m.Message), clean(m.Code))
	case "create_match", "join_match", "quick_match", "spectate":
		if reqType == "spectate" {
			c.spectating = ""
		}
		if c.match == nil {
			c.failed = true
			if !c.eof {
				c.printf("%s", lobbyPrompt)
			}
		}
	}
}

// httpURL turns a server path into a full http(s) address on the server.
func (c *playClient) httpURL(path string) string {
	u, err := url.Parse(c.cfg.URL)
	if err != nil {
		return path
	}
	switch u.Scheme {
	case "wss":
		u.Scheme = "https"
	default:
		u.Scheme = "http"
	}
	ref, err := url.Parse(path)
	if err != nil {
		return path
	}
	return u.ResolveReference(ref).String()
}

// verifyDeal checks a round's revealed deal: the commitment announced
// before the round (announced; "" if it was missed, then the one in the
// reveal is checked) must be the hex SHA-256 of "<salt>:<seed>" (a known
// deal has none, but must be the deal number announced, knownSeed, if
// seen); the layout must be that deal number's; and the opening board seen
// (nil if not seen) must be that layout's. It returns the lines to print; a
// failed check's line starts with "WARNING".
func verifyDeal(announced, knownSeed string, d wireDeal, opening *engine.View) []string {
	var out []string
	seed, err := strconv.ParseUint(d.Seed, 10, 64)
	if err != nil {
		return []string{fmt.Sprintf("WARNING: the deal number %q is not a number: the deal cannot be checked", d.Seed)}
	}
	if d.KnownDeal {
		if knownSeed != "" && knownSeed != d.Seed {
			return []string{fmt.Sprintf("WARNING: DEAL NOT VERIFIED: deal #%s was announced, #%s revealed", clean(knownSeed), d.Seed)}
		}
		out = append(out, fmt.Sprintf("deal: known deal #%d (no commitment to check)", seed))
	} else {
		sum := sha256.Sum256([]byte(d.Salt + ":" + d.Seed))
		got := hex.EncodeToString(sum[:])
		want := announced
		if want == "" {
			want = d.Commitment
			out = append(out, "note: the commitment was not seen before the round (you came in during it); checking the one revealed")
		}
		if strings.EqualFold(got, want) && want != "" {
			out = append(out, "deal verified: commitment matches")
		} else {
			out = append(out,
				"WARNING: DEAL NOT VERIFIED: the commitment does not match the revealed seed and salt",
				"WARNING:   committed:            "+clean(want),
				"WARNING:   sha256(salt:seed) is: "+got)
		}
	}
	deal := engine.NumberedDeal(seed)
	layout, err := engine.ParseDeal(d.Layout)
	if err != nil {
		return append(out, fmt.Sprintf("WARNING: the revealed layout cannot be read: %v", err))
	}
	a, _ := json.Marshal(deal)
	b, _ := json.Marshal(layout)
	if !bytes.Equal(a, b) {
		return append(out, fmt.Sprintf("WARNING: the revealed layout is not deal #%d's", seed))
	}
	if opening != nil {
		if err := openingMatches(opening, &deal); err != nil {
			return append(out, "WARNING: the board you were dealt is not deal #"+d.Seed+"'s: "+err.Error())
		}
		out = append(out, fmt.Sprintf("layout checked: deal #%d, as dealt to you", seed))
	}
	return out
}

// openingMatches checks a board at move 0 against a deal: each pile's face-up
// card, the face-down counts, and the stock.
func openingMatches(v *engine.View, d *engine.Deal) error {
	for i, pile := range d.Tableau {
		p := v.Tableau[i]
		if p.Down != len(pile)-1 || len(p.Up) != 1 || p.Up[0] != pile[len(pile)-1] {
			return fmt.Errorf("pile %d differs", i+1)
		}
	}
	if v.Stock != len(d.Stock) || v.WasteSize != 0 {
		return errors.New("the stock differs")
	}
	return nil
}

// endOfInput notes the end of stdin: a pending y/N is a no.
func (c *playClient) endOfInput() {
	c.eof = true
	if c.confirm != "" {
		c.confirm = ""
		c.printf("not resigned\n")
	}
}

// command runs one line of input.
func (c *playClient) command(line string) {
	line = strings.TrimSpace(line)
	if c.confirm != "" {
		what := c.confirm
		c.confirm = ""
		if a := strings.ToLower(line); a == "y" || a == "yes" {
			if what == "resign" && c.round != nil && !c.round.over {
				c.request("resign", map[string]any{"round_id": c.round.id})
				return
			}
		}
		c.printf("not resigned\n")
		return
	}
	if line == "" || strings.HasPrefix(line, "#") {
		return
	}
	fields := strings.Fields(line)
	word, args := strings.ToLower(fields[0]), fields[1:]
	needMatch := func() bool {
		if c.match == nil {
			c.printf("You are not in a match: join CODE, create or quick first.\n")
			return false
		}
		return true
	}
	switch word {
	case "help", "?":
		c.printf("%s", playHelp)
	case "quit", "exit":
		c.quit = true
		if c.isPlayer() && c.match.State != stateOver {
			c.printf("You keep your seat; resume with: %s play --server %s --token %s\n", c.program(), c.cfg.URL, clean(c.token))
		}
	case "board":
		c.printBoard()
	case "lb", "leaderboard":
		c.printLeaderboard()
	case "moves":
		r := c.round
		if r == nil || r.view == nil || r.over {
			c.printf("No board: you are not playing a round.\n")
			return
		}
		c.printf("%s", renderMoves(r.view.LegalMoves(r.rules, nil)))
	case "ready", "unready":
		if needMatch() {
			c.request("ready", map[string]any{"match_id": c.match.ID, "ready": word == "ready"})
		}
	case "start":
		if needMatch() {
			c.request("start_match", map[string]any{"match_id": c.match.ID})
		}
	case "resign":
		r := c.round
		if r == nil || !r.seated || r.over {
			c.printf("You are not playing a round.\n")
			return
		}
		c.confirm = "resign"
		c.printf("Resign round %d? Your game ends now. [y/N]\n", r.number)
	case "join":
		if len(args) != 1 {
			c.printf("Usage: join CODE\n")
			return
		}
		c.join(args[0])
	case "create":
		switch strings.ToLower(strings.Join(args, " ")) {
		case "", "private":
			c.create(false)
		case "public":
			c.create(true)
		default:
			c.printf("Usage: create [public]: a private match is joined by its code, a public one is also listed in the lobby.\n")
		}
	case "quick":
		c.request("quick_match", map[string]any{"settings": c.settings()})
	case "spectate":
		if len(args) != 1 {
			c.printf("Usage: spectate MATCH_ID\n")
			return
		}
		c.spectate(args[0])
	case "list":
		switch strings.ToLower(strings.Join(args, " ")) {
		case "":
			c.request("list_matches", nil)
		case "more":
			if c.listCursor == "" {
				c.printf("No more matches: list shows the first page again.\n")
				return
			}
			c.request("list_matches", map[string]any{"cursor": c.listCursor})
		default:
			c.printf("Usage: list, or list more for the next page.\n")
		}
	case "leave":
		if needMatch() {
			c.request("leave_match", map[string]any{"match_id": c.match.ID})
			c.dropQueue("you left")
		}
	case "rematch":
		if needMatch() {
			c.request("rematch", map[string]any{"match_id": c.match.ID})
		}
	default:
		if !looksLikeMove(fields[0]) {
			c.unknownCommand(fields[0])
			return
		}
		c.moves(fields)
	}
}

// playCommands are the commands that command knows, for suggestions.
var playCommands = []string{
	"help", "quit", "exit", "board", "leaderboard", "moves", "ready", "unready", "start",
	"resign", "join", "create", "quick", "spectate", "list", "leave", "rematch",
}

// unknownCommand answers a word that is neither a command nor a move,
// suggesting the command it may be a typo of.
func (c *playClient) unknownCommand(word string) {
	if s := suggestCommand(strings.ToLower(word)); s != "" {
		c.printf("unknown command %q: did you mean %s? Type help for the commands.\n", clean(word), s)
		return
	}
	c.printf("unknown command %q: type help for the commands and the moves.\n", clean(word))
}

// suggestCommand returns the command that word is one typo away from (one
// letter added, dropped, changed, or two neighbours swapped), or "".
func suggestCommand(word string) string {
	if len(word) < 3 {
		return ""
	}
	for _, cmd := range playCommands {
		if oneTypo(word, cmd) {
			return cmd
		}
	}
	return ""
}

// oneTypo reports whether a and b differ by exactly one edit: a letter
// added, dropped or changed, or two neighbouring letters swapped.
func oneTypo(a, b string) bool {
	if a == b {
		return false
	}
	if len(a) > len(b) {
		a, b = b, a
	}
	i := 0
	for i < len(a) && a[i] == b[i] {
		i++
	}
	switch {
	case len(b)-len(a) == 1:
		return a[i:] == b[i+1:]
	case len(a) != len(b):
		return false
	case a[i+1:] == b[i+1:]:
		return true
	}
	return i+1 < len(a) && a[i] == b[i+1] && a[i+1] == b[i] && a[i+2:] == b[i+2:]
}

// looksLikeMove reports whether a word that is not a command is meant as a
// move, so that its parse error (which says what is wrong with the move) is
// the right answer: a word of the notation's shape, with a '-' or a ':', or
// a pile name (T1, a move cut short). Anything else is an unknown command.
func looksLikeMove(word string) bool {
	if strings.ContainsAny(word, "-:") {
		return true
	}
	if len(word) == 1 {
		_, err := engine.ParseMove(word)
		return err == nil
	}
	return (word[0] == 'T' || word[0] == 't') && '0' <= word[1] && word[1] <= '9'
}

// playHelp is the help command's text.
const playHelp = `Moves: D (draw), R (recycle), U (undo), W-Tn, W-F, Tn-F, Tn-Tm, Tn:k-Tm, Fs-Tn
  (piles T1..T7, foundations FC FD FH FS; several moves may share a line)
Commands:
  moves      list your legal moves       board    print your board
  lb         print the leaderboard       resign   give up this round (y/N)
  ready      say you are ready           unready  take it back
  start      start the match (host)      leave    leave the match
  join CODE  join a match                quick    join a quick match
  create     create a private match: players join it by its code
  create public  create a public match: it shows in the lobby's list
  list       list open public matches    list more  the next page of them
  spectate MATCH_ID  watch a match       rematch  play again, same players
  help       this text                   quit     leave (your seat is kept)
Scores: Game score = your move points, on your board.
  ` + timedScoreNote + `  Leaderboards show the timed score with standard scoring; vegas and none have
  no time penalty, so they show the game score.
`

// moves checks each field as a move and queues them all, or reports the
// first that does not parse.
func (c *playClient) moves(fields []string) {
	ms := make([]string, 0, len(fields))
	for _, f := range fields {
		m, err := engine.ParseMove(f)
		switch {
		case err != nil && !looksLikeMove(f):
			c.printf("%q is not a move (moves look like D, W-T3, T7-F); nothing sent. Type help.\n", clean(f))
			return
		case err != nil && len(fields) == 1:
			c.printf("%s. Type help for the notation.\n", clean(err.Error()))
			return
		case err != nil:
			c.printf("%s; nothing sent. Type help for the notation.\n", clean(err.Error()))
			return
		}
		ms = append(ms, m.String())
	}
	r := c.round
	switch {
	case r != nil && r.seated && !r.over && r.view != nil && r.view.Status.Over():
		c.printf("Your game is over (%s): wait for the round to end.\n", r.view.Status)
		return
	case r != nil && r.seated && !r.over:
	case c.isPlayer() && (c.match.State == stateOpen || c.match.State == stateStarting):
		c.printf("Queued until the round starts: %s\n", strings.Join(ms, " "))
	case c.isPlayer() && c.match.State == stateBetween:
		c.printf("The round is over: wait for the next one.\n")
		return
	default:
		c.printf("No round is running for you.\n")
		return
	}
	if len(c.queue)+len(ms) > maxQueuedMoves {
		c.printf("Too many moves waiting (%d); nothing queued.\n", len(c.queue))
		return
	}
	c.queue = append(c.queue, ms...)
	c.pump()
}

// pump sends the next queued move when the round takes it and no move
// awaits its answer, no sooner than MoveGap after the last.
func (c *playClient) pump() {
	r := c.round
	if len(c.queue) == 0 || r == nil || !r.seated || r.over || r.pending != nil || c.timerC != nil {
		return
	}
	if wait := c.cfg.MoveGap - time.Since(c.lastMove); wait > 0 {
		c.arm(wait)
		return
	}
	move := c.queue[0]
	c.queue = c.queue[1:]
	seq := r.lastSeq + 1
	id := c.request("move", map[string]any{"round_id": r.id, "seq": seq, "move": move})
	r.pending = &pendingMove{id: id, seq: seq, move: move}
	c.lastMove = time.Now()
}

// arm sets the timer that calls pump again.
func (c *playClient) arm(d time.Duration) {
	if c.timer == nil {
		c.timer = time.NewTimer(d)
	} else {
		c.timer.Stop()
		c.timer.Reset(d)
	}
	c.timerC = c.timer.C
}

// dropQueue forgets queued moves, saying why.
func (c *playClient) dropQueue(why string) {
	if len(c.queue) > 0 {
		c.printf("%s: dropped %s not sent (%s)\n", why, plural(len(c.queue), "queued move"), strings.Join(c.queue, " "))
		c.queue = nil
	}
}
