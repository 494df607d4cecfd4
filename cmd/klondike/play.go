package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"net/url"
	"os"
	"os/exec"
	"os/signal"
	"slices"
	"strings"
)

// playUsage prints play's help: its flags, commands and exit statuses.
func playUsage(w io.Writer) {
	fmt.Fprint(w, `Usage: klondike play --server ws://HOST:PORT/ws [--name NAME]
                     [--profile NAME | --token TOKEN]
                     [--create [--public] [--rated] | --code CODE | --quick [--casual] |
                      --spectate MATCH_ID |
                      --daily 1|3 | --challenge ID |
                      --create-challenge [--window D]]
                     [--game GAME] [--draw 1|3] [--passes 0|1|3] [--scoring S]
                     [--undo U] [--foundation-to-tableau=false] [--mode M]
                     [--time-limit D] [--rounds N] [--max-players N]
                     [--countdown D] [--deals any|winnable] [--seed N]
                     [--color[=auto|always|never]]

Play connects to a klondiked server and plays matches from the terminal: it
prints the board after every change (face-down cards as ##), reads moves in
the move notation from stdin, and shows the leaderboard and the results. It
is the reference client of the WebSocket protocol.

Flags:
  --server URL    the server's WebSocket address, ws://HOST:PORT/ws (or
                  wss://…); a URL without a path gets /ws, and HOST:PORT
                  alone means ws://HOST:PORT/ws
  --name NAME     your name, 1 to 24 printable characters: a new player's
                  (default $USER, or "player"), or a new name for your saved
                  player, who otherwise keeps theirs
`+profileFlagHelp+`  --token TOKEN   play as the player of TOKEN (a welcome's token) instead of
                  the saved one; it is not saved
  --create        create a match and print its invite code and the command
                  to share; the match is private: players join it by its
                  code, and it is not listed in the lobby
  --public        with --create: a public match, which also shows in the
                  lobby's list (play's list, the web lobby) for anyone to join
  --rated         with --create (or the lobby's create): a rated match, whose
                  rounds change its players' ratings; a created match is
                  casual otherwise (never with --seed)
  --code CODE     join the match with this invite code (or match id)
  --quick         join (or open) a public quick match: rated, with players
                  near your rating (the range widens as you wait)
  --casual        with --quick (or the lobby's quick): a casual quick match,
                  which changes no rating
  --spectate ID   watch a match's leaderboards by its match id
  --daily 1|3     today's daily deal of draw 1 or draw 3: the same deal for
                  everyone, one attempt each on your own clock. Prints its
                  rules and time limit, then waits for play, which starts
                  the clock; if you have played it, prints your result and
                  its board
  --challenge ID  a challenge: its id, or its link (…/c/ID); prints who made
                  it, its rules, time limit, window and players, then waits
                  for play, as --daily does
  --create-challenge
                  create a challenge (a deal others play once each, within
                  its window), print its link and the command to share, and
                  wait for play to play it yourself
  --window D      with --create-challenge: how long it stays open, a
                  duration such as 90m, 24h or 2d, or whole minutes, from
                  1m to 7d (default 24h)
  --color[=WHEN]  paint the board, red suits red and card backs dim: auto
                  (the default) when stdout is a terminal, NO_COLOR is unset
                  or empty and TERM is not dumb; always (--color alone), even
                  into a pipe or with NO_COLOR; never

Settings of the match you create (--create, or the lobby's create), one
flag a field of the protocol's settings (docs/protocol.md, "Settings"); a
setting you do not give is left to the server's default. --game, --draw,
--passes and --scoring also go with --quick (a quick match seats you by
them) and, with --undo, --foundation-to-tableau, --mode, --time-limit and
--seed, with --create-challenge (and the lobby's challenge create).
  --game GAME     klondike (the default), thumb_and_pouch, whitehead or
                  double_klondike (docs/rules.md, "Games"); a match you join
                  or watch has its own
  --draw 1|3      cards turned by each D (default the game's: 3, or 1 in
                  thumb_and_pouch and whitehead, which plays draw 1 only)
`+settingsFlagsHelp+`
With none of --create, --code, --quick, --spectate, --daily, --challenge and
--create-challenge, play lists the open public matches and waits for one of:
join CODE, create, create public, quick, spectate ID, daily, challenge ID
(--rated, --casual and the settings' flags then apply to its create, quick
and challenge create), or for a look at ratings: profile, ladder.

Commands (one a line):
  D, R, U, Y, W-Tn, W-F, Tn-F, Tn-Tm, Tn:k-Tm, Fs-Tn
                  a move (several may share a line): U takes the last move
                  back and Y plays again what U took back, when the match's
                  undo setting allows (undo and redo say the same), in a
                  game you are playing; piles are T1..T7, T1..T9 in
                  double_klondike; moves typed before the round starts, or
                  while a move awaits the server, are queued
  moves           list the legal moves of your board
  play            start your game of the daily deal or challenge shown:
                  its clock starts then, and you have one attempt
  board           print your board again; after your game of a daily deal
                  or challenge, its board (board ID: any such round's)
  lb              print the round's leaderboard again (of a daily deal or
                  challenge: its board, read afresh)
  ready, unready  say whether you are ready (a full match whose players are
                  all ready starts by itself)
  start           start the match (host only)
  resign          give up this round's game (asks y/N)
  create          create a private match, joined by its code
  create public   create a public match, listed in the lobby
  create [public] rated
                  create a rated match (a created match is casual otherwise)
  create ... --FLAG VALUE
                  with settings' flags after the words, such as create public
                  --draw 1 --rounds 3 --time-limit 10m: those settings (over
                  the flags play was started with)
  quick           join a rated quick match; quick casual: one that changes
                  no rating
  join CODE | spectate ID | leave | rematch
  list            list the open public matches; list more: the next page
  daily           list today's daily deals and which you have played;
                  daily 3, daily 1: show one (then play starts it), or your
                  result and its board once played
  challenge ID    show a challenge (its id or link); play then starts it
  challenge create [WINDOW] [--FLAG VALUE...]
                  create a challenge of the settings' flags, open for WINDOW
                  (default 24h), print its link; play then starts your game
  records [PLAYER_ID]
                  your records (or a player's) by variant: games played and
                  won, best score, fastest win, daily streak
  close [ID]      close your challenge now (asks y/N): nobody can start it
                  after, and its deal and every replay go public
  profile [PLAYER]
                  your ratings (or a player's, by id or by the name of a
                  player of your match): each game and draw's rating
                  ("1500?" while provisional), rated rounds, ladder place
                  and a sparkline of its history
  ladder [GAME/DRAW]
                  the ladder of a game and draw (such as klondike/1; default
                  your match's, or --game and --draw's): its top, then your
                  place among your neighbours; ladder next: the next page
  help            this list of commands
  quit            leave; in a match you keep your seat, and your game goes on
                  until its time limit: play again to resume it

Scores: the board shows your game score, the move points of the match's
scoring, and with standard scoring your timed score too. Leaderboards and
results show the round score: with standard scoring the timed score, the
game score less 2 points for every full 10 seconds of the round (not below
0), plus, for a win of at least 30 s, 700000 divided by its seconds; with
vegas and none scoring, the game score itself (no time penalty).
Ties: the earlier to reach the result ranks first.

The share, watch and resume lines that play prints start with the command
you ran (go run ./cmd/klondike when you ran it with go run).

Ratings (docs/ratings.md): every player has a rating in each game and draw,
shown with "?" while provisional (new, or long away). Rated rounds change
them: quick matches are rated unless --casual or quick casual, created
matches only with --rated or create rated. A rated match shows each
player's rating beside their name, in the match, the leaderboard and the
results, and shortly after each round the changes:
  Ratings: alice 1512 (+12), bob 1488? (-12)
or why the round rated nobody. The ladder of a game and draw lists the
established ratings, best first.

Daily deals and challenges: everyone plays the same committed deal once,
each on their own clock with the same time limit, and is ranked on a board
(wins by time, then cards home, then score; ties: the earlier to reach the
result ranks first). --daily, --challenge, daily N and challenge ID show
the round's rules and time limit first; your clock starts only when you
type play. While you play, a line shows
where the board's leader and the challenge's creator stood at the same time
of their own games (their ghosts). When your game ends, play prints your
result and the board: the top 10 and your neighbours. The deal's seed and
salt and every replay are published when the window closes; opening a closed
round (--challenge ID, challenge ID, close) checks its deal against the
commitment.

Your player: the first run on a server makes a player, and play keeps its
credential (the token the server's welcome gives) in the profile, readable
by you alone; every later run with the same profile is that player, with
its records, daily attempts and challenges (klondike whoami shows who it
is); two players on one machine take a profile each. When the server no
longer knows the saved player (it expired or was deleted), play says so on
stderr and starts a new one.

Ending: quit, Ctrl-C, or the end of stdin. At the end of stdin, play waits
for whatever is under way: replies to what it sent, queued moves, a match
that has started, until the match is over (and, for a rated match, its last
round's rating changes, a few seconds at most), and your game of a daily
deal or challenge, until it ends; otherwise it ends at once. When the connection
drops during a match or your game, play reconnects with its token (5 tries,
backing off up to 5 s) and resumes where the server left off.

Every round's deal is checked when the round ends: the SHA-256 of
"<salt>:<seed>" must be the commitment announced before the round, and the
layout must be that deal number's.

Exit status: 0 after quit or the end of input, 1 when the connection failed
or a request made by a flag was refused, 2 for bad usage, 130 on Ctrl-C.

Examples:
  klondike play --server ws://127.0.0.1:8080/ws --name alice --create
  klondike play --server ws://127.0.0.1:8080/ws --name alice --create --public
  klondike play --server ws://127.0.0.1:8080/ws --name bob --profile bob --code K7QX2M
  klondike play --server ws://127.0.0.1:8080/ws --quick --draw 1
  klondike play --server ws://127.0.0.1:8080/ws --quick --casual
  klondike play --server ws://127.0.0.1:8080/ws --create --rated
  echo 'ladder klondike/3' | klondike play --server ws://127.0.0.1:8080/ws
  klondike play --server ws://127.0.0.1:8080/ws --create --game thumb_and_pouch
  klondike play --server 127.0.0.1:8080 --create --draw 1 --undo off --rounds 3 --time-limit 10m
  klondike play --server ws://127.0.0.1:8080/ws --create --seed 5 --scoring vegas
  printf 'play\nD\n' | klondike play --server ws://127.0.0.1:8080/ws --daily 3
  klondike play --server ws://127.0.0.1:8080/ws --profile work --daily 3
  klondike play --server ws://127.0.0.1:8080/ws --create-challenge --draw 1 --window 2h
  klondike play --server ws://127.0.0.1:8080/ws --challenge http://127.0.0.1:8080/c/9f3a2b1c
  klondike play --server ws://127.0.0.1:8080/ws --create --color=never
  printf 'start\nD\nT6-F\n' | klondike play --server ws://127.0.0.1:8080/ws --create
`)
}

// errInterrupted is run's error when its context ends (Ctrl-C).
var errInterrupted = errors.New("interrupted")

// exitInterrupted is the conventional status after SIGINT.
const exitInterrupted = 130

// runPlay is the play command: it plays until quit, the end of input or
// Ctrl-C, and returns the exit status.
func runPlay(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	return playMain(args, osPlayEnv(), stdin, stdout, stderr)
}

// playMain is runPlay in the surroundings env.
func playMain(args []string, env playEnv, stdin io.Reader, stdout, stderr io.Writer) int {
	cfg, ok, status := playSetup(args, env, stdout, stderr)
	if !ok {
		return status
	}
	if err := usePlayer(&cfg, env.configDir); err != nil {
		fmt.Fprintf(stderr, "klondike play: %v\n", err)
		return exitFailure
	}
	cfg.Stderr = stderr
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
	// configDir is where the profiles of saved players are kept, in a
	// klondike directory (os.UserConfigDir).
	configDir func() (string, error)
}

// osPlayEnv returns the surroundings of this process.
func osPlayEnv() playEnv {
	return playEnv{
		getenv:   os.Getenv,
		arg0:     os.Args[0],
		lookPath: exec.LookPath,
		isDir: func(path string) bool {
			st, err := os.Stat(path)
			return err == nil && st.IsDir()
		},
		configDir: os.UserConfigDir,
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
	fs.StringVar(&cfg.ProfileName, "profile", defaultProfile, "the saved player's profile `NAME`")
	fs.BoolVar(&create, "create", false, "create a match")
	fs.BoolVar(&cfg.Public, "public", false, "list the created match in the lobby")
	fs.StringVar(&code, "code", "", "invite `CODE` of the match to join")
	fs.BoolVar(&quick, "quick", false, "join a quick match")
	fs.BoolVar(&cfg.Rated, "rated", false, "make the created match rated")
	fs.BoolVar(&cfg.Casual, "casual", false, "look for a casual quick match")
	fs.StringVar(&spectate, "spectate", "", "`MATCH_ID` to watch")
	settings := addSettingsFlags(fs)
	fs.Var(&color, "color", "paint the board: auto, always or never")
	var daily int
	var challenge, window string
	var createChallenge bool
	fs.IntVar(&daily, "daily", 0, "play today's daily deal of draw `N`: 1 or 3")
	fs.StringVar(&challenge, "challenge", "", "play the challenge `ID` (or its link)")
	fs.BoolVar(&createChallenge, "create-challenge", false, "create a challenge and play it")
	fs.StringVar(&window, "window", "", "how long the challenge stays open: `DURATION`")
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
	dailySet := isSet(fs, "daily")
	for _, set := range []bool{create, code != "", quick, spectate != "", dailySet, challenge != "", createChallenge} {
		if set {
			n++
		}
	}
	if n > 1 {
		return cfg, false, usageError(stderr, fs.Name(), errors.New(
			"give at most one of --create, --code, --quick, --spectate, --daily, --challenge and --create-challenge"))
	}
	if err := asyncFlags(fs, &cfg, daily, challenge, window, createChallenge); err != nil {
		return cfg, false, usageError(stderr, fs.Name(), err)
	}
	if cfg.Public && !create {
		return cfg, false, usageError(stderr, fs.Name(), errors.New("--public goes with --create (a quick match is always public; in the lobby, type create public)"))
	}
	// --rated and --casual also go with none of the actions: the lobby's
	// create and quick then take them.
	if cfg.Rated && n == 1 && !create {
		return cfg, false, usageError(stderr, fs.Name(), errors.New("--rated goes with --create (a quick match is rated unless --casual)"))
	}
	if cfg.Casual && n == 1 && !quick {
		return cfg, false, usageError(stderr, fs.Name(), errors.New("--casual goes with --quick (a created match is casual unless --rated)"))
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
	case dailySet:
		cfg.Action, cfg.Draw = "daily", daily
	case challenge != "":
		cfg.Action = "challenge"
	case createChallenge:
		cfg.Action = "create-challenge"
	}
	if err := settingsSetup(fs, settings, &cfg); err != nil {
		return cfg, false, usageError(stderr, fs.Name(), err)
	}
	u, err := serverURL(cfg.URL)
	if err != nil {
		return cfg, false, usageError(stderr, fs.Name(), err)
	}
	cfg.URL = u
	if err := playerFlags(fs, &cfg); err != nil {
		return cfg, false, usageError(stderr, fs.Name(), err)
	}
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

// settingsSetup checks the settings' flags and puts them in cfg: those
// given go with the action, and are sent with its request (or with the
// lobby's create, quick and challenge create) and nothing else, so that
// the server's defaults apply. --draw is also the game and draw that the
// ladder shows by default.
func settingsSetup(fs *flag.FlagSet, f *settingsFlags, cfg *playConfig) error {
	if err := settingsFit(fs, cfg.Action); err != nil {
		return err
	}
	s, err := f.settings(fs)
	if err != nil {
		return err
	}
	if err := checkSettings(s, cfg.Rated); err != nil {
		return err
	}
	if s.Draw != nil {
		cfg.Draw = *s.Draw
	}
	cfg.Settings = s
	return nil
}

// playerFlags checks the flags that say who plays: --profile's name, and
// --token, which does without a profile.
func playerFlags(fs *flag.FlagSet, cfg *playConfig) error {
	if err := checkProfileName(cfg.ProfileName); err != nil {
		return err
	}
	if isSet(fs, "profile") && isSet(fs, "token") {
		return errors.New("give --token or --profile, not both: a --token session is not kept in a profile")
	}
	cfg.NameGiven = isSet(fs, "name")
	return nil
}

// asyncFlags checks the flags of asynchronous rounds and puts them in cfg:
// --daily's draw, --challenge's id, and --window, which goes with
// --create-challenge only.
func asyncFlags(fs *flag.FlagSet, cfg *playConfig, daily int, challenge, window string, createChallenge bool) error {
	if isSet(fs, "daily") {
		if daily != 1 && daily != 3 {
			return fmt.Errorf("--daily %d: want the draw, 1 or 3", daily)
		}
		if isSet(fs, "draw") {
			return errors.New("--daily takes the draw: give --daily 1 or --daily 3, without --draw")
		}
	}
	if challenge != "" {
		id, err := challengeID(challenge)
		if err != nil {
			return fmt.Errorf("--%v", err)
		}
		cfg.Code = id
	}
	if window != "" {
		if !createChallenge {
			return errors.New("--window goes with --create-challenge")
		}
		d, err := parseWindow(window)
		if err != nil {
			return fmt.Errorf("--%v", err)
		}
		cfg.Window = d
	}
	return nil
}

// serverURL checks --server and completes it: a ws or wss URL (http and
// https are taken to mean them; a bare HOST:PORT, ws) with /ws when it has
// no path.
func serverURL(s string) (string, error) {
	if s == "" {
		return "", errors.New("--server: want the server's address, such as ws://127.0.0.1:8080/ws")
	}
	bad := fmt.Errorf("--server %q: want a ws:// or wss:// URL such as ws://127.0.0.1:8080/ws", s)
	if !strings.Contains(s, "://") {
		s = "ws://" + s
	}
	u, err := url.Parse(s)
	if err != nil {
		return "", bad
	}
	switch u.Scheme {
	case "ws", "wss":
	case "http":
		u.Scheme = "ws"
	case "https":
		u.Scheme = "wss"
	default:
		return "", bad
	}
	if u.Host == "" {
		return "", bad
	}
	if u.Path == "" || u.Path == "/" {
		u.Path = "/ws"
	}
	return u.String(), nil
}
