package main

import (
	"bytes"
	"errors"
	"flag"
	"fmt"
	"io"
	"math"
	"os"
	"strconv"
	"strings"

	"klondike/engine"
)

// seedFlagHelp documents --seed for every command that takes it.
const seedFlagHelp = `  --seed N        the deal: deal number N of the game, any whole number
                  from 0 to 18446744073709551615; from 1 on, the layout
                  PySolFC deals as its game number N (its Klondike deal in
                  Klondike, Thumb and Pouch and Whitehead, its Double
                  Klondike deal in Double Klondike); PySolFC numbers from
                  1, so deal 0 is this server's own
`

// gameFlagHelp documents --game for every command that takes it.
const gameFlagHelp = `  --game GAME     the game: klondike (the default), thumb_and_pouch,
                  whitehead or double_klondike (docs/rules.md, "Games")
`

// gameFlagsHelp documents the deal and rule flags that addGameFlags defines.
const gameFlagsHelp = `Deal (exactly one):
` + seedFlagHelp + `  --deal FILE     the deal: a layout in canonical JSON, as 'klondike deal' prints
                  (one of nine piles and two decks is double_klondike's,
                  the game then unless --game says otherwise)

Rules:
` + gameFlagHelp + `  --draw 1|3      cards turned by each D (default 3; 1 in thumb_and_pouch
                  and whitehead, which plays draw 1 only)
  --passes 0|1|3  passes through the stock: 1 (no recycle), 3, or 0 for
                  unlimited (default the game's: 0, or 1 in thumb_and_pouch
                  and whitehead, which has no redeal; with --scoring vegas
                  and no --passes, 1 in draw 1 and 3 in draw 3)
  --scoring standard|vegas|none
                  the scoring system (default standard)
  --undo on|off|no_reveal
                  whether U is allowed; no_reveal refuses to take back a move
                  that turned a card face up (default on)
  --no-foundation-to-tableau
                  refuse moves of cards back from a foundation (Fs-Tn)
`

// movesFileHelp documents the moves file.
const movesFileHelp = `Moves are written in the move notation (D R U Y W-Tn W-F Tn-F Tn-Tm Tn:k-Tm
Fs-Tn, in either case; Y redoes what U took back; piles T1..T7, T1..T9 in
double_klondike), separated by spaces or newlines; '#' starts a comment
that runs to the end of the line.
`

// gameFlags holds the deal and rule flags shared by the commands that play a
// game on a deal.
type gameFlags struct {
	game     string
	seed     string
	dealFile string
	draw     int
	passes   int
	scoring  string
	undo     string
	noF2T    bool
}

// addGameFlags defines the deal and rule flags on fs, with the rule book's
// defaults.
func addGameFlags(fs *flag.FlagSet) *gameFlags {
	def := engine.DefaultRules()
	f := &gameFlags{}
	fs.StringVar(&f.game, "game", engine.Klondike.String(), "the `GAME`: klondike, thumb_and_pouch, whitehead or double_klondike")
	fs.StringVar(&f.seed, "seed", "", "deal number `N`")
	fs.StringVar(&f.dealFile, "deal", "", "canonical layout JSON `FILE`")
	fs.IntVar(&f.draw, "draw", def.Draw, "cards turned by D: 1 or 3")
	fs.IntVar(&f.passes, "passes", def.Passes, "passes through the stock: 0 (unlimited), 1 or 3")
	fs.StringVar(&f.scoring, "scoring", def.Scoring.String(), "scoring: standard, vegas or none")
	fs.StringVar(&f.undo, "undo", def.Undo.String(), "undo: on, off or no_reveal")
	fs.BoolVar(&f.noF2T, "no-foundation-to-tableau", !def.FoundationToTableau, "refuse Fs-Tn moves")
	return f
}

// isSet reports whether the flag was given on the command line.
func isSet(fs *flag.FlagSet, name string) bool {
	set := false
	fs.Visit(func(f *flag.Flag) {
		if f.Name == name {
			set = true
		}
	})
	return set
}

// A badInput is an error in an input file rather than in the command line.
type badInput struct{ error }

func (e badInput) Unwrap() error { return e.error }

// fail reports err and returns exitUsage: a usage error gets a hint to the
// command's help, a bad input file does not.
func fail(stderr io.Writer, fs *flag.FlagSet, err error) int {
	var bi badInput
	if errors.As(err, &bi) {
		return inputError(stderr, fs.Name(), err)
	}
	return usageError(stderr, fs.Name(), err)
}

// parseSeed parses a deal number: an unsigned 64-bit decimal number.
func parseSeed(s string) (uint64, error) {
	n, err := strconv.ParseUint(s, 10, 64)
	if err != nil {
		return 0, fmt.Errorf("--seed %q: want a deal number from 0 to %d", s, uint64(math.MaxUint64))
	}
	return n, nil
}

// variant returns the game that --game names.
func (f *gameFlags) variant() (engine.Variant, error) {
	v, err := engine.ParseVariant(f.game)
	if err != nil {
		return 0, fmt.Errorf("--game %q: want klondike, thumb_and_pouch, whitehead or double_klondike", f.game)
	}
	return v, nil
}

// rules returns the rules the flags ask for, validated. A draw not given
// explicitly is the game's (engine.DefaultRulesFor); passes not given are
// the game's too, except in Vegas scoring, where they follow the draw
// (engine.DefaultPassesFor), as the server's match settings do.
func (f *gameFlags) rules(fs *flag.FlagSet) (engine.Rules, error) {
	game, err := f.variant()
	if err != nil {
		return engine.Rules{}, err
	}
	r := engine.DefaultRulesFor(game)
	if r.Scoring, err = engine.ParseScoring(f.scoring); err != nil {
		return r, err
	}
	if r.Undo, err = engine.ParseUndoPolicy(f.undo); err != nil {
		return r, err
	}
	if isSet(fs, "draw") {
		r.Draw = f.draw
	}
	switch {
	case isSet(fs, "passes"):
		r.Passes = f.passes
	case r.Scoring == engine.ScoringVegas:
		r.Passes = engine.DefaultPassesFor(game, r.Draw, r.Scoring)
	}
	r.FoundationToTableau = !f.noF2T
	if err := r.Validate(); err != nil {
		return r, err
	}
	return r, nil
}

// deal returns the deal that --seed or --deal names. A deal file that cannot
// be read or is not a valid layout is a badInput.
func (f *gameFlags) deal(fs *flag.FlagSet) (engine.Deal, error) {
	seedSet, dealSet := isSet(fs, "seed"), isSet(fs, "deal")
	switch {
	case seedSet && dealSet:
		return engine.Deal{}, errors.New("give either --seed or --deal, not both")
	case seedSet:
		n, err := parseSeed(f.seed)
		if err != nil {
			return engine.Deal{}, err
		}
		game, err := f.variant()
		if err != nil {
			return engine.Deal{}, err
		}
		return engine.NumberedDealFor(game, n), nil
	case dealSet:
		if f.dealFile == "" {
			return engine.Deal{}, errors.New("--deal: want a file name")
		}
		data, err := os.ReadFile(f.dealFile)
		if err != nil {
			return engine.Deal{}, badInput{err}
		}
		d, err := engine.ParseDeal(data)
		if err != nil {
			return engine.Deal{}, badInput{fmt.Errorf("deal file %s: %w", f.dealFile, err)}
		}
		return d, nil
	}
	return engine.Deal{}, errors.New("no deal: give --seed N or --deal FILE")
}

// newGame starts the game that the flags describe. A deal file of two
// decks is Double Klondike's, which is then the game unless --game says
// otherwise.
func (f *gameFlags) newGame(fs *flag.FlagSet) (*engine.Game, error) {
	if _, err := f.rules(fs); err != nil {
		return nil, err
	}
	d, err := f.deal(fs)
	if err != nil {
		return nil, err
	}
	if d.Decks() == 2 && !isSet(fs, "game") {
		f.game = engine.DoubleKlondike.String()
	}
	r, err := f.rules(fs)
	if err != nil {
		return nil, err
	}
	g, err := engine.NewGame(d, r)
	if err != nil {
		return nil, badInput{err}
	}
	return g, nil
}

// A moveToken is one whitespace-separated word of a moves file.
type moveToken struct {
	text string // as written
	line int    // 1-based line number
}

// splitMoves splits a moves file into its tokens: words separated by white
// space, with '#' starting a comment to the end of the line.
func splitMoves(data []byte) []moveToken {
	var toks []moveToken
	for n, line := range strings.Split(string(data), "\n") {
		line, _, _ = strings.Cut(line, "#")
		for _, w := range strings.Fields(line) {
			toks = append(toks, moveToken{text: w, line: n + 1})
		}
	}
	return toks
}

// readMoves reads the moves file that args name: none (no moves, or stdin
// when stdinByDefault), one file, or "-" for stdin. More arguments are a
// usage error; a file that cannot be read is a badInput.
func readMoves(args []string, stdin io.Reader, stdinByDefault bool) ([]moveToken, error) {
	var (
		data []byte
		err  error
	)
	switch {
	case len(args) > 1:
		return nil, fmt.Errorf("too many arguments %q: want at most one moves file (flags go before it)", args)
	case len(args) == 0 && !stdinByDefault:
		return nil, nil
	case len(args) == 0 || args[0] == "-":
		data, err = io.ReadAll(stdin)
		if err != nil {
			err = fmt.Errorf("reading moves from stdin: %w", err)
		}
	default:
		data, err = os.ReadFile(args[0])
	}
	if err != nil {
		return nil, badInput{err}
	}
	data = bytes.TrimPrefix(data, []byte("\uFEFF")) // a byte order mark is no move
	return splitMoves(data), nil
}

// noteTerminalInput tells the user, on stderr, when the moves are about to
// be read from a terminal (args as for readMoves), lest the command seem to
// hang: they are typed and ended with the end-of-file key.
func noteTerminalInput(fs *flag.FlagSet, stdin io.Reader, stderr io.Writer, stdinByDefault bool) {
	args := fs.Args()
	fromStdin := (len(args) == 0 && stdinByDefault) || (len(args) == 1 && args[0] == "-")
	if fromStdin && isTerminal(stdin) {
		fmt.Fprintf(stderr, "%s: reading moves from the terminal: type them, then Ctrl-D (Ctrl-Z Enter on Windows)\n", fs.Name())
	}
}

// playMoves plays the tokens in order on g, read with the piles of g's game
// (T8 and T9 in Double Klondike). It calls report after each one
// with its 1-based index, the parsed move (zero when it did not parse), what
// it did and why it was refused (a parse error or a refusal, nil when played).
// A refused move changes nothing and play goes on. It returns how many moves
// were refused.
func playMoves(g *engine.Game, toks []moveToken, report func(i int, tok moveToken, m engine.Move, ev engine.Events, err error)) int {
	refused := 0
	game := g.Rules().Game
	for i, tok := range toks {
		m, err := game.ParseMove(tok.text)
		var ev engine.Events
		if err == nil {
			ev, err = g.Apply(m)
		}
		if err != nil {
			refused++
		}
		report(i+1, tok, m, ev, err)
	}
	return refused
}
