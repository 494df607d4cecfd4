package main

import (
	"strings"

	"klondike/api/protocol"
	"klondike/engine"
	"klondike/match"
)

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
				c.request(&protocol.Resign{Type: protocol.TypeResign, RoundID: c.round.id})
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
		if c.isPlayer() && c.match.State != match.StateOver {
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
		c.request(&protocol.CreateMatch{Type: protocol.TypeQuickMatch, Settings: c.settings()})
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
