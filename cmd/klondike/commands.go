package main

import (
	"fmt"
	"strings"
	"time"

	"klondike/api/protocol"
	"klondike/engine"
)

// endOfInput notes the end of stdin: a pending y/N is a no.
func (c *playClient) endOfInput() {
	c.eof = true
	if c.confirm != "" {
		c.printf("not %s\n", confirmed(c.confirm))
		c.confirm = ""
	}
}

// confirmed is what a y/N question's yes does: "resigned", "closed".
func confirmed(what string) string { return strings.TrimSuffix(what, "e") + "ed" }

// command runs one line of input.
func (c *playClient) command(line string) {
	line = strings.TrimSpace(line)
	if c.confirm != "" {
		what := c.confirm
		c.confirm = ""
		if a := strings.ToLower(line); a == "y" || a == "yes" {
			switch {
			case what == "resign" && c.round != nil && !c.round.over:
				c.request(&protocol.Resign{Type: protocol.TypeResign, RoundID: c.round.id})
				return
			case what == "close":
				c.request(&protocol.RoundRef{Type: protocol.TypeCloseChallenge, RoundID: c.confirmArg})
				return
			}
		}
		c.printf("not %s\n", confirmed(what))
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
	case "here":
		c.request(&protocol.PlayHere{Type: protocol.TypePlayHere})
	case "quit", "exit":
		c.quit = true
		if c.attemptUnderWay() {
			c.printf("Your game goes on until its time runs out; resume with: %s %s\n", c.resumeCommand(), c.resumeFlag())
		} else if c.isPlayer() && c.match.State != protocol.StateOver {
			c.printf("You keep your seat; resume with: %s\n", c.resumeCommand())
		}
	case "board":
		r := c.round
		switch {
		case len(args) > 0:
			if id, err := challengeID(strings.Join(args, " ")); err != nil {
				c.printf("Usage: board [ROUND_ID]: %v\n", err)
			} else {
				c.getBoard(id)
			}
		case c.async != nil && (r == nil || r.kind != "" && r.over):
			c.getBoard(c.async.info.RoundID)
		default:
			c.printBoard()
		}
	case "lb", "leaderboard":
		if c.async != nil && (c.round == nil || c.round.kind != "") {
			c.getBoard(c.async.info.RoundID)
			return
		}
		c.printLeaderboard()
	case "moves":
		r := c.round
		if r == nil || r.view == nil || r.over {
			c.noBoard()
			return
		}
		c.printf("%s", renderMoves(r.view.LegalMoves(r.rules, nil)))
	case "play":
		if len(args) > 0 {
			c.printf("Usage: play starts your game of the daily deal or challenge shown (daily 3, challenge ID).\n")
			return
		}
		c.play()
	case "undo", "redo":
		move := "U"
		if word == "redo" {
			move = "Y"
		}
		if len(args) > 0 {
			c.printf("Usage: %s (the move %s) takes nothing after it.\n", word, move)
			return
		}
		c.moves([]string{move})
	case "ready", "unready":
		if needMatch() {
			ready := word == "ready"
			c.request(&protocol.MatchRef{Type: protocol.TypeReady, MatchID: c.match.ID, Ready: &ready})
		}
	case "start":
		if needMatch() {
			c.request(&protocol.MatchRef{Type: protocol.TypeStartMatch, MatchID: c.match.ID})
		}
	case "resign":
		r := c.round
		if r == nil || !r.seated || r.over {
			c.printf("You are not playing a round.\n")
			return
		}
		c.confirm = "resign"
		c.printf("Resign %s? Your game ends now. [y/N]\n", r.name())
	case "join":
		if len(args) != 1 {
			c.printf("Usage: join CODE\n")
			return
		}
		c.join(args[0])
	case "create":
		const usage = "Usage: create [public] [rated] [--FLAG VALUE...]: a private match is joined by its code, a public one is also listed in the lobby; a rated one changes ratings; flags such as --draw 1 --rounds 3 give its settings (klondike play --help lists them).\n"
		words, over, err := lobbyArgs("create", args)
		if err != nil {
			c.printf("create: %v\n%s", err, usage)
			return
		}
		public, rated, ok := createWords(words)
		if !ok {
			c.printf("%s", usage)
			return
		}
		rated = rated || c.cfg.Rated
		s := mergeSettings(c.cfg.Settings, over)
		if err := checkSettings(s, rated); err != nil {
			c.printf("create: %v\n", err)
			return
		}
		c.create(s, public, rated)
	case "quick":
		switch strings.ToLower(strings.Join(args, " ")) {
		case "":
			c.quick(c.cfg.Casual)
		case "rated":
			c.quick(false)
		case "casual":
			c.quick(true)
		default:
			c.printf("Usage: quick [casual]: a quick match is rated; quick casual looks for one that is not.\n")
		}
	case "spectate":
		if len(args) != 1 {
			c.printf("Usage: spectate MATCH_ID\n")
			return
		}
		c.spectate(args[0])
	case "list":
		switch strings.ToLower(strings.Join(args, " ")) {
		case "":
			c.request(&protocol.ListMatches{Type: protocol.TypeListMatches})
		case "more":
			if c.listCursor == "" {
				c.printf("No more matches: list shows the first page again.\n")
				return
			}
			c.request(&protocol.ListMatches{Type: protocol.TypeListMatches, Cursor: c.listCursor})
		default:
			c.printf("Usage: list, or list more for the next page.\n")
		}
	case "leave":
		if needMatch() {
			c.request(&protocol.MatchRef{Type: protocol.TypeLeaveMatch, MatchID: c.match.ID})
			c.dropQueue("you left")
		}
	case "rematch":
		if needMatch() {
			c.request(&protocol.MatchRef{Type: protocol.TypeRematch, MatchID: c.match.ID})
		}
	case "daily":
		switch strings.Join(args, " ") {
		case "":
			c.playDaily(0)
		case "1", "3":
			c.playDaily(int(args[0][0] - '0'))
		default:
			c.printf("Usage: daily lists today's daily deals; daily 3 or daily 1 shows one, to play.\n")
		}
	case "challenge":
		switch {
		case len(args) >= 1 && strings.ToLower(args[0]) == "create":
			words, over, err := lobbyArgs("create-challenge", args[1:])
			if err == nil && len(words) > 1 {
				err = fmt.Errorf("unexpected %q: want one window, such as 2h", words[1:])
			}
			var window time.Duration
			if err == nil && len(words) == 1 {
				window, err = parseWindow(words[0])
			}
			s := mergeSettings(c.cfg.Settings, over)
			if err == nil {
				err = checkSettings(challengeSettings(s), false)
			}
			if err != nil {
				c.printf("challenge create: %v\n", err)
				return
			}
			c.createChallenge(window, s)
		case len(args) == 1:
			c.playChallenge(args[0])
		default:
			c.printf("Usage: challenge ID (or its link) plays a challenge; challenge create [WINDOW] makes one.\n")
		}
	case "records":
		if len(args) > 1 {
			c.printf("Usage: records [PLAYER_ID]\n")
			return
		}
		m := &protocol.GetRecords{Type: protocol.TypeGetRecords}
		if len(args) == 1 {
			m.PlayerID = args[0]
		}
		c.request(m)
	case "profile", "ratings":
		if len(args) > 1 {
			c.printf("Usage: profile [PLAYER_ID or the name of a player of your match]\n")
			return
		}
		c.showProfile(strings.Join(args, ""))
	case "ladder":
		if len(args) > 1 {
			c.printf("Usage: ladder [GAME/DRAW], such as ladder klondike/1; ladder next for the next page.\n")
			return
		}
		c.ladderCommand(strings.Join(args, ""))
	case "close":
		if len(args) > 1 {
			c.printf("Usage: close [CHALLENGE_ID]\n")
			return
		}
		id := c.closeTarget(strings.Join(args, ""))
		if id == "" {
			return
		}
		c.confirm, c.confirmArg = "close", id
		c.printf("Close challenge %s now? Nobody can start it after, and its deal and replays go public. [y/N]\n", clean(id))
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
	"daily", "challenge", "records", "close", "profile", "ratings", "ladder", "play", "undo", "redo",
}

// createWords reads create's words, in any order: public (or private),
// and rated. ok is false for any other word.
func createWords(args []string) (public, rated, ok bool) {
	for _, a := range args {
		switch strings.ToLower(a) {
		case "public":
			public = true
		case "private":
			public = false
		case "rated":
			rated = true
		default:
			return false, false, false
		}
	}
	return public, rated, true
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
// the right answer: a word of the notation's shape, with a '-' or a ':', a
// one-letter move (D, R, U, Y), or a pile name (T1, a move cut short).
// Anything else is an unknown command.
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
const playHelp = `Moves: D (draw), R (recycle), U (undo), Y (redo what U took back), W-Tn, W-F,
  Tn-F, Tn-Tm, Tn:k-Tm, Fs-Tn (piles T1..T7, T1..T9 in double_klondike;
  foundations FC FD FH FS; several moves may share a line); undo and redo
  are U and Y, which act only in a game you are playing
Commands:
  moves      list your legal moves       board    print your board
  lb         print the leaderboard       resign   give up this round (y/N)
  ready      say you are ready           unready  take it back
  start      start the match (host)      leave    leave the match
  join CODE  join a match                quick    join a rated quick match
  quick casual   join a quick match that changes no rating
  create     create a private match: players join it by its code
  create public  create a public match: it shows in the lobby's list
  create [public] rated  create a rated match (created ones are casual)
  create ... --draw 1 --rounds 3 --time-limit 10m  with settings: any of
             play's settings flags (klondike play --help), after the words
  list       list open public matches    list more  the next page of them
  spectate MATCH_ID  watch a match       rematch  play again, same players
  help       this text                   quit     leave (your seat is kept)
  here       play here the game this player plays in another terminal or tab
Daily deals and challenges: a deal everyone plays once, on their own clock.
  daily      list today's daily deals, and which you have played
  daily 3 | daily 1  show one: its rules and time limit (or your result)
  challenge ID   show a challenge (its id or its link, .../c/ID)
  play       start your game of the round shown: its clock starts now
  challenge create [WINDOW] [--FLAG VALUE...]  make a challenge of your
             rules, open for WINDOW (such as 2h; default 24h, at most 7d),
             share its link; play then starts your game
  board      after your game: the round's board, top 10 and you (board ID: any)
  lb         that board again, fresh    records [PLAYER_ID]  records by variant
  close [ID] close your challenge now (y/N): its deal and replays go public
Ratings: one a game and draw; rated rounds change them ("1500?" is provisional).
  profile [PLAYER]  your ratings (or a player's: id, or name in your match),
             ladder places and a sparkline of each one's history
  ladder [GAME/DRAW]  the top of a ladder (default your match's game and draw)
             and your place among your neighbours; ladder next: the next page
Scores: Game score = your move points, on your board.
  ` + timedScoreNote + `  Leaderboards show the timed score with standard scoring; vegas and none have
  no time penalty, so they show the game score.
  Ties: the earlier to reach the result ranks first.
`
