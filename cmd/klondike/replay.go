package main

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"

	"klondike/engine"
)

func replayUsage(w io.Writer) {
	fmt.Fprint(w, `Usage: klondike replay [--seed N | --deal FILE] [rule flags] [--elapsed DURATION] [MOVES_FILE | -]

Replay plays the moves of MOVES_FILE (stdin when it is '-' or not given, as
for 'klondike moves') on a deal and prints one JSON object a line for each
move, in order:

  {"i":1,"move":"D","ok":true,"score":0,"events":["drew"]}
  {"i":7,"move":"T1-T2","ok":false,"error":"QH on TS: a card goes on …"}

"move" is the move in canonical notation (a word that is not a move is shown
as written), "score" the running score after it and "events" what it did. A
refused move changes nothing and the replay goes on. A last line sums up:

  {"summary":true,"won":false,"status":"playing","score":55,"moves":40,
   "foundation":{"C":1,"D":0,"H":2,"S":0},"illegal":1}

"moves" counts the accepted moves (undos and redos included), "illegal" the
refused ones. "foundation" counts the cards on each suit's foundation (the
first of the two in double_klondike, whose summary adds "foundation2", the
second); whitehead's adds "foundation_base", the rank its foundations start
at.

`+movesFileHelp+`
`+gameFlagsHelp+`
Other:
  --elapsed DURATION
                  the time the game took on the server's clock, such as 3m5s;
                  the summary then also gives "timed_score", the score with
                  the standard time penalty and bonus (as the server ranks)

  --round FILE|URL|-
                  verify a finished round from the server's replay
                  (GET /api/v1/rounds/{id}/replay): the commitment against the
                  revealed seed and salt, the layout, and every player's moves
                  to their recorded round score. Prints one line for the deal
                  ({"round":…,"commitment_ok":true,"layout_ok":true}) and one
                  a player ({"player_id":…,"timed_score":N,"recorded_score":N,
                  "verified":true,…}); exit status 1 if anything does not match.
                  The game is the one the replay's rules name; --game, if
                  given, must be that one

Exit status: 0 when every move was legal, 1 when any was refused, 2 for bad
usage or a bad deal or moves file.

Examples:
  klondike replay --seed 1 game.txt
  echo "T6-F T7-F T7-T6 D" | klondike replay --seed 1
  klondike replay --seed 42 --draw 1 --scoring vegas - < game.txt
  klondike replay --deal layout.json --undo no_reveal --elapsed 3m5s game.txt
  klondike replay --seed 3 --game thumb_and_pouch game.txt
  klondike replay --round http://127.0.0.1:8080/api/v1/rounds/ROUND_ID/replay
`)
}

// replayMove is the line of an accepted move.
type replayMove struct {
	I      int      `json:"i"`
	Move   string   `json:"move"`
	OK     bool     `json:"ok"`
	Score  int      `json:"score"`
	Events []string `json:"events"`
}

// replayRefused is the line of a refused move.
type replayRefused struct {
	I     int    `json:"i"`
	Move  string `json:"move"`
	OK    bool   `json:"ok"`
	Error string `json:"error"`
}

// replaySummary is the last line.
type replaySummary struct {
	Summary    bool                    `json:"summary"`
	Won        bool                    `json:"won"`
	Status     string                  `json:"status"`
	Score      int                     `json:"score"`
	Moves      int                     `json:"moves"`
	Foundation engine.FoundationCounts `json:"foundation"`
	// Foundation2 is Double Klondike's second foundation of each suit;
	// FoundationBase Whitehead's base rank. Both are left out in the
	// other games.
	Foundation2    *engine.FoundationCounts `json:"foundation2,omitempty"`
	FoundationBase int                      `json:"foundation_base,omitempty"`
	Illegal        int                      `json:"illegal"`
	TimedScore     *int                     `json:"timed_score,omitempty"`
}

func runReplay(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	fs := newFlagSet("replay")
	gf := addGameFlags(fs)
	elapsed := fs.Duration("elapsed", 0, "time the game took, such as 3m5s")
	round := fs.String("round", "", "a server's round replay (file, - or URL) to verify")
	if ok, status := parseFlags(fs, args, replayUsage, stdout, stderr); !ok {
		return status
	}
	if isSet(fs, "round") {
		if fs.NArg() > 0 || isSet(fs, "seed") || isSet(fs, "deal") {
			return usageError(stderr, fs.Name(), errRoundWithMoves)
		}
		var game *engine.Variant
		if isSet(fs, "game") {
			v, err := gf.variant()
			if err != nil {
				return usageError(stderr, fs.Name(), err)
			}
			game = &v
		}
		return replayRound(*round, game, stdin, stdout, stderr)
	}
	timed := isSet(fs, "elapsed")
	if timed && *elapsed < 0 {
		return usageError(stderr, fs.Name(), errors.New("--elapsed must not be negative"))
	}
	g, err := gf.newGame(fs)
	if err != nil {
		return fail(stderr, fs, err)
	}
	noteTerminalInput(fs, stdin, stderr, true)
	toks, err := readMoves(fs.Args(), stdin, true)
	if err != nil {
		return fail(stderr, fs, err)
	}

	w := bufio.NewWriter(stdout)
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	// Encode fails only when w does, and w keeps its first error for flush.
	illegal := playMoves(g, toks, func(i int, tok moveToken, m engine.Move, ev engine.Events, err error) {
		switch {
		case err == nil:
			names := ev.Names()
			if names == nil {
				names = []string{}
			}
			enc.Encode(replayMove{I: i, Move: m.String(), OK: true, Score: g.Score(), Events: names})
		case errors.Is(err, engine.ErrSyntax):
			enc.Encode(replayRefused{I: i, Move: tok.text, Error: err.Error()})
		default:
			enc.Encode(replayRefused{I: i, Move: m.String(), Error: err.Error()})
		}
	})
	sum := replaySummary{
		Summary:    true,
		Won:        g.Status() == engine.Won,
		Status:     g.Status().String(),
		Score:      g.Score(),
		Moves:      g.Moves(),
		Foundation: foundationCounts(g),
		Illegal:    illegal,
	}
	sum.Foundation2, sum.FoundationBase = gameFoundations(g)
	if timed {
		ts := engine.TimedScore(g.Rules().Scoring, g.Score(), *elapsed, sum.Won)
		sum.TimedScore = &ts
	}
	enc.Encode(sum)
	status := exitOK
	if illegal > 0 {
		status = exitFailure
	}
	return flush(w, stderr, fs.Name(), status)
}

// foundationCounts returns how many cards are on each suit's foundation
// (the first of a suit's two in Double Klondike).
func foundationCounts(g *engine.Game) engine.FoundationCounts {
	return engine.FoundationCounts{
		C: g.Foundation(engine.Clubs), D: g.Foundation(engine.Diamonds),
		H: g.Foundation(engine.Hearts), S: g.Foundation(engine.Spades),
	}
}

// gameFoundations returns what a game's foundations hold beyond
// foundationCounts: in Double Klondike the second foundation of each suit,
// in Whitehead the base rank; nil and 0 in the other games.
func gameFoundations(g *engine.Game) (second *engine.FoundationCounts, base int) {
	switch g.Rules().Game {
	case engine.DoubleKlondike:
		return &engine.FoundationCounts{
			C: g.SecondFoundation(engine.Clubs), D: g.SecondFoundation(engine.Diamonds),
			H: g.SecondFoundation(engine.Hearts), S: g.SecondFoundation(engine.Spades),
		}, 0
	case engine.Whitehead:
		return nil, g.FoundationBase()
	}
	return nil, 0
}
