package main

import (
	"strings"
	"testing"
	"time"

	"klondike/api/protocol"
)

// welcome answers the client's hello on fc.
func welcome(fc *fakeConn, name string) {
	hello := fc.next("hello")
	fc.reply(hello, map[string]any{"type": "welcome", "player_id": name, "name": name, "token": "t"})
}

// TestPlayUnknownInput checks the answers to input that is not a command:
// a word that is no move is an unknown command (with a suggestion when it
// is one typo from a command); a word shaped like a move keeps the reason
// it is not one. None of it reaches the server.
func TestPlayUnknownInput(t *testing.T) {
	fs := newFakeServer(t)
	p := startPlayer(t, "alice", playConfig{URL: fs.url, Action: "join", Code: "K7QX2M"})
	fc := fs.accept()
	helloAndJoin(t, fc, p)
	g := newDeal1Game(t)
	startRound(fc, g, 0, false)
	p.expect("Round 1 started")
	for _, c := range []struct{ line, want string }{
		{"foo", `unknown command "foo": type help for the commands and the moves.`},
		{"foo D", `unknown command "foo": type help for the commands and the moves.`},
		{"x", `unknown command "x": type help for the commands and the moves.`},
		{"fh", `unknown command "fh": type help for the commands and the moves.`},
		{"strat", `unknown command "strat": did you mean start? Type help for the commands.`},
		{"MOVS", `unknown command "MOVS": did you mean moves? Type help for the commands.`},
		{"\x1b[31mfoo", `unknown command "?[31mfoo": type help for the commands and the moves.`},
		{"T9-T1", `bad move "T9-T1": pile number must be 1..7. Type help for the notation.`},
		{"w-t8", `bad move "w-t8": pile number must be 1..7. Type help for the notation.`},
		{"T1", `bad move "T1": a tableau move is Tn-F, Tn-Tm or Tn:k-Tm. Type help for the notation.`},
		{"T1:0-T2", `bad move "T1:0-T2": run length k in Tn:k-Tm must be 1..13. Type help for the notation.`},
		{"D foo", `"foo" is not a move (moves look like D, W-T3, T7-F); nothing sent. Type help.`},
		{"D T9-T1", `bad move "T9-T1": pile number must be 1..7; nothing sent. Type help for the notation.`},
		{"create bogus", `Usage: create [public] [rated] [--FLAG VALUE...]: a private match is joined by its code, a public one is also listed in the lobby; a rated one changes ratings; flags such as --draw 1 --rounds 3 give its settings (klondike play --help lists them).`},
		{"create --rounds 99", "create: --rounds 99: want 1 to 20"},
		{"create public --bogus 1", "create: flag provided but not defined: -bogus"},
		{"create --draw 1 public", `create: unexpected ["public"] after the flags: words such as public go first`},
		{"create rated --seed 5", "create: --rated with --seed: anyone can study a known deal beforehand, so it rates nobody"},
		{"create --game whitehead --draw 3", "create: --game whitehead --draw 3: bad rules: draw 3: whitehead turns one card at a time (draw 1)"},
		{"quick bogus", `Usage: quick [casual]: a quick match is rated; quick casual looks for one that is not.`},
		{"ladder nosuch/3", `ladder "nosuch/3": want GAME/DRAW, such as klondike/3 (games: klondike, thumb_and_pouch, whitehead, double_klondike)`},
		{"ladder whitehead/3", `ladder "whitehead/3": bad rules: draw 3: whitehead turns one card at a time (draw 1)`},
		{"list sideways", `Usage: list, or list more for the next page.`},
	} {
		p.typeLine(c.line)
		p.expect(c.want + "\n")
	}
	// Nothing was sent: the first move is still move 1. An illegal move
	// goes to the server, whose reason is shown.
	p.typeLine("R")
	m := expectMove(t, fc, 1, "R")
	fc.reply(m, map[string]any{"type": "move_rejected", "round_id": "r1", "seq": 1, "code": "illegal_move",
		"reason": "the stock is not empty: draw instead"})
	p.expect("R rejected: the stock is not empty: draw instead\n")
}

func TestSuggestCommand(t *testing.T) {
	for word, want := range map[string]string{
		"strat":   "start",  // two letters swapped
		"quti":    "quit",   // two letters swapped at the end
		"hlep":    "help",   // two letters swapped
		"bord":    "board",  // a letter dropped
		"boards":  "board",  // a letter added
		"resigm":  "resign", // a letter changed
		"unread":  "unready",
		"spectat": "spectate",
		"crate":   "create",
		"foo":     "",
		"xy":      "", // too short to guess
		"srat":    "", // two edits
		"stratt":  "",
	} {
		if got := suggestCommand(word); got != want {
			t.Errorf("suggestCommand(%q) = %q, want %q", word, got, want)
		}
	}
}

func TestLooksLikeMove(t *testing.T) {
	for word, want := range map[string]bool{
		"D": true, "r": true, "u": true, "T6-F": true, "t9-t1": true, "W-T8": true, "FH-T3": true,
		"T1:3-T2": true, "T1": true, "t7": true, "-": true,
		"x": false, "foo": false, "fh": false, "wf": false, "Tx": false, "start": false,
	} {
		if got := looksLikeMove(word); got != want {
			t.Errorf("looksLikeMove(%q) = %v, want %v", word, got, want)
		}
	}
}

// TestPlayCreatePublic checks both ways to create a match from the lobby,
// private and public, and the flags' way; the lines to share name the
// command the user ran.
func TestPlayCreatePublic(t *testing.T) {
	fs := newFakeServer(t)
	p := startPlayer(t, "bob", playConfig{URL: fs.url, Program: "go run ./cmd/klondike"})
	fc := fs.accept()
	welcome(fc, "bob")
	p.expect("Type: join CODE, create (private, shared by its code), create public (listed),\n")
	fc.reply(fc.next("list_matches"), map[string]any{"type": "matches", "matches": []any{}})
	p.expect("No open public matches (create public opens one that others see here).\n")

	for _, c := range []struct {
		line   string
		public bool
		want   string
	}{
		{"create", false, "A private match: only players with the code can join (create public lists one in the lobby).\n"},
		{"create public", true, "A public match: it is listed in the lobby (list) for anyone to join.\n"},
		{"CREATE Private", false, "A private match"},
	} {
		p.typeLine(c.line)
		cr := fc.next("create_match")
		s, _ := cr["settings"].(map[string]any)
		if s == nil || s["draw"] != nil || (s["public"] == true) != c.public || (!c.public && s["public"] != nil) {
			t.Errorf("%s: create_match = %v, want no draw (the server's default) and public %v", c.line, cr, c.public)
		}
		m := fakeMatch("open", "bob")
		m["settings"].(map[string]any)["public"] = c.public
		fc.reply(cr, map[string]any{"type": "match", "match": m})
		p.expect("share: go run ./cmd/klondike play --server " + fs.url + " --code K7QX2M\n")
		p.expect("watch: go run ./cmd/klondike play --server " + fs.url + " --spectate m1\n")
		p.expect(c.want)
	}

	// --create --public asks for a public match at once.
	draw := 1
	p2 := startPlayer(t, "carol", playConfig{URL: fs.url, Action: "create", Public: true, Settings: protocol.PartialSettings{Draw: &draw}})
	fc2 := fs.accept()
	welcome(fc2, "carol")
	cr := fc2.next("create_match")
	if s, _ := cr["settings"].(map[string]any); s == nil || s["public"] != true || s["draw"] != float64(1) {
		t.Errorf("--create --public: create_match = %v, want public and draw 1", cr)
	}
	m := fakeMatch("open", "carol")
	m["settings"].(map[string]any)["public"] = true
	fc2.reply(cr, map[string]any{"type": "match", "match": m})
	p2.expect("share: klondike play --server ")
	p2.expect("A public match")
}

// TestPlayListMore checks the paged match list: the client says when more
// matches follow and list more asks for them with the server's cursor.
func TestPlayListMore(t *testing.T) {
	fs := newFakeServer(t)
	p := startPlayer(t, "dan", playConfig{URL: fs.url})
	fc := fs.accept()
	welcome(fc, "dan")
	first := fc.next("list_matches")
	if _, ok := first["cursor"]; ok {
		t.Errorf("first list_matches = %v, want no cursor", first)
	}
	fc.reply(first, map[string]any{"type": "matches", "matches": []any{fakeMatch("open", "bob")}, "next_cursor": "c2"})
	p.expect("K7QX2M  bob")
	p.expect("More matches follow: type list more.\n")

	p.typeLine("list more")
	next := fc.next("list_matches")
	if next["cursor"] != "c2" {
		t.Errorf("list more sent %v, want cursor c2", next)
	}
	last := fakeMatch("open", "erin")
	last["code"] = "ZZZ234"
	fc.reply(next, map[string]any{"type": "matches", "matches": []any{last}})
	p.expect("ZZZ234  -         1/8")
	p.typeLine("list more")
	if between := p.expect("No more matches: list shows the first page again.\n"); strings.Contains(between, "More matches") {
		t.Errorf("the last page says more follow:\n%s", between)
	}
	p.typeLine("list")
	again := fc.next("list_matches")
	if _, ok := again["cursor"]; ok {
		t.Errorf("list after the last page = %v, want no cursor", again)
	}
	fc.reply(again, map[string]any{"type": "matches", "matches": []any{}})
	p.expect("No open public matches")
}

// TestPlayCountdownAndTakeBacks: U and Y (and the words undo and redo)
// act only in a game being played, and say so otherwise rather than wait
// in the queue; during a round's countdown, moves and board say that the
// round is about to start.
func TestPlayCountdownAndTakeBacks(t *testing.T) {
	fs := newFakeServer(t)
	p := startPlayer(t, "alice", playConfig{URL: fs.url})
	fc := fs.accept()
	welcome(fc, "alice")
	fc.reply(fc.next("list_matches"), map[string]any{"type": "matches", "matches": []any{}})
	for _, c := range []struct{ line, want string }{
		{"u", "Nothing to undo: you are not playing a game (U takes back your last move of one); nothing sent.\n"},
		{"undo", "Nothing to undo: you are not playing a game (U takes back your last move of one); nothing sent.\n"},
		{"y", "Nothing to redo: you are not playing a game (Y plays again a move that U took back); nothing sent.\n"},
		{"REDO", "Nothing to redo: you are not playing a game (Y plays again a move that U took back); nothing sent.\n"},
		{"undo it", "Usage: undo (the move U) takes nothing after it.\n"},
		{"moves", "No board: you are not playing a round.\n"},
	} {
		p.typeLine(c.line)
		p.expect(c.want)
	}

	p.typeLine("join K7QX2M")
	join := fc.next("join_match")
	fc.reply(join, map[string]any{"type": "match", "match": fakeMatch("open", "bob", "alice")})
	p.expect("Joined match K7QX2M")
	p.typeLine("y")
	p.expect("Nothing to redo: your game has not started (Y plays again a move that U took back); nothing sent.\n")
	p.typeLine("D Y")
	p.expect("Nothing to redo: your game has not started")

	now := time.Now().UTC()
	fc.send(map[string]any{"type": "round_starting", "match_id": "m1", "round_id": "r1", "round": 1,
		"starts_at": now.Add(5 * time.Second), "ends_at": now.Add(15 * time.Minute), "commitment": commitment("s1", "1"), "rules": matchRules})
	p.expect("Round 1 starts in ")
	for _, line := range []string{"moves", "board"} {
		p.typeLine(line)
		p.expect("Round 1 is about to start (in ")
		p.expect("): your board comes then.\n")
	}
	fc.quiet()

	g := newDeal1Game(t)
	fc.send(map[string]any{"type": "round_started", "match_id": "m1", "round_id": "r1", "round": 1,
		"starts_at": now, "ends_at": now.Add(15 * time.Minute), "rules": matchRules, "view": g.view(), "last_seq": 0})
	p.expect("Round 1 started")
	// In the game, undo and redo are U and Y (W-T3 turns no card face up,
	// so undo no_reveal takes it back).
	p.typeLine("D W-T3")
	moveOK(fc, g, expectMove(t, fc, 1, "D"))
	moveOK(fc, g, expectMove(t, fc, 2, "W-T3"))
	p.expect("W-T3 ok")
	p.typeLine("undo")
	moveOK(fc, g, expectMove(t, fc, 3, "U"))
	p.expect("U ok")
	p.typeLine("redo")
	moveOK(fc, g, expectMove(t, fc, 4, "Y"))
	p.expect("Y ok")
}
