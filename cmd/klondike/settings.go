package main

// The settings of the matches and challenges that play creates: a flag for
// each field of the protocol's settings object (docs/protocol.md,
// "Settings"), named after it (--max-players for max_players). A setting
// whose flag is not given is left out of the request, so that the server's
// default applies, as for the web's form.

import (
	"errors"
	"flag"
	"fmt"
	"strconv"
	"strings"
	"time"

	"klondike/api/protocol"
	"klondike/engine"
)

// The bounds of the settings, as docs/protocol.md "Settings" gives them. The
// server checks them too; checking them here refuses a flag before
// connecting, in the flag's own words.
const (
	maxRounds     = 20
	maxMaxPlayers = 64
	minTimeLimit  = 2 * time.Second
	maxTimeLimit  = 3 * time.Hour
	maxCountdown  = 30 * time.Second
)

// settingsFlagsHelp documents the flags that addSettingsFlags defines, after
// --game and --draw (which play documents with the other requests).
const settingsFlagsHelp = `  --passes 0|1|3  passes through the stock: 1 (no recycle), 3, or 0 for
                  unlimited (default the game's: 0, or 1 in thumb_and_pouch
                  and whitehead; with --scoring vegas, 1 in draw 1 and 3 in
                  draw 3)
  --scoring standard|vegas|none
                  the scoring (default standard)
  --undo on|off|no_reveal
                  whether U takes a move back; no_reveal refuses a move that
                  turned a card face up (default no_reveal)
  --foundation-to-tableau=false
                  refuse moves of cards back from a foundation (Fs-Tn);
                  allowed by default
  --mode race|score
                  race: winners first, by time, then cards home; score: by
                  score alone (default race)
  --time-limit D  each round's (or each player's challenge game's) time
                  limit: a duration such as 10m or 1h30m, or seconds, from
                  2s to 3h (default 15m)
  --rounds N      rounds in the match, 1 to 20 (default 1)
  --max-players N seats, 1 to 64 (default 8)
  --countdown D   the wait between a round's announcement and its start,
                  seconds or a duration, 0 to 30s (default 3s)
  --deals any|winnable
                  winnable: deal each round from a deal the server's solver
                  proved winnable (klondike and thumb_and_pouch only; not
                  with --seed); default any
  --seed N        a known deal: every round (or the challenge) deals deal
                  number N, 0 to 18446744073709551615, which anyone can look
                  up; such a match is never rated (default: a fresh hidden
                  deal, committed to before each round)
`

// settingsFlags holds the flags of a match's settings.
type settingsFlags struct {
	game, scoring, undo, mode, deals, seed, timeLimit, countdown string
	draw, passes, rounds, maxPlayers                             int
	f2t                                                          bool
}

// addSettingsFlags defines the settings' flags on fs. Their defaults are
// only what help shows: a flag not given sends nothing (settings).
func addSettingsFlags(fs *flag.FlagSet) *settingsFlags {
	f := &settingsFlags{}
	fs.StringVar(&f.game, "game", engine.Klondike.String(), "the `GAME`: klondike, thumb_and_pouch, whitehead or double_klondike")
	fs.IntVar(&f.draw, "draw", 3, "cards turned by D: 1 or 3")
	fs.IntVar(&f.passes, "passes", 0, "passes through the stock: 0 (unlimited), 1 or 3")
	fs.StringVar(&f.scoring, "scoring", engine.ScoringStandard.String(), "scoring: standard, vegas or none")
	fs.StringVar(&f.undo, "undo", engine.UndoNoReveal.String(), "undo: on, off or no_reveal")
	fs.BoolVar(&f.f2t, "foundation-to-tableau", true, "allow Fs-Tn moves")
	fs.StringVar(&f.mode, "mode", protocol.ModeRace, "ranking: race or score")
	fs.StringVar(&f.timeLimit, "time-limit", "15m", "each round's time limit: a `DURATION` or seconds")
	fs.IntVar(&f.rounds, "rounds", 1, "rounds in the match: 1 to 20")
	fs.IntVar(&f.maxPlayers, "max-players", 8, "seats: 1 to 64")
	fs.StringVar(&f.countdown, "countdown", "3s", "the countdown before each round: a `DURATION` or seconds")
	fs.StringVar(&f.deals, "deals", protocol.DealsAny, "deals: any or winnable")
	fs.StringVar(&f.seed, "seed", "", "a known deal: deal number `N`")
	return f
}

// What takes each setting besides a created match: a quick match takes
// what it seats players by, a challenge its game, rules, mode, time limit
// and deal (docs/protocol.md, "quick_match" and "create_challenge").
var settingsFlagNames = []struct {
	name             string
	quick, challenge bool
}{
	{"game", true, true}, {"draw", true, true}, {"passes", true, true}, {"scoring", true, true},
	{"undo", false, true}, {"foundation-to-tableau", false, true}, {"mode", false, true},
	{"time-limit", false, true}, {"seed", false, true},
	{"rounds", false, false}, {"max-players", false, false}, {"countdown", false, false}, {"deals", false, false},
}

// settingsGiven returns the names of the settings' flags given on fs.
func settingsGiven(fs *flag.FlagSet) []string {
	var names []string
	for _, s := range settingsFlagNames {
		if isSet(fs, s.name) {
			names = append(names, s.name)
		}
	}
	return names
}

// settingsFit checks that the settings' flags given on fs go with action
// (as playConfig.Action names it; "" for the lobby, whose create takes
// them all).
func settingsFit(fs *flag.FlagSet, action string) error {
	for _, s := range settingsFlagNames {
		if !isSet(fs, s.name) {
			continue
		}
		switch {
		case action == "" || action == "create":
		case action == "quick" && !s.quick && s.challenge:
			return fmt.Errorf("--%s goes with --create and --create-challenge: a quick match seats you by game, draw, passes and scoring, and has the server's other settings", s.name)
		case action == "quick" && !s.quick:
			return fmt.Errorf("--%s goes with --create: a quick match seats you by game, draw, passes and scoring, and has the server's other settings", s.name)
		case action == "create-challenge" && !s.challenge:
			return fmt.Errorf("--%s goes with --create: a challenge is one game that each player plays alone, on their own clock", s.name)
		case action == "quick" || action == "create-challenge":
		default:
			return fmt.Errorf("--%s goes with --create, --quick and --create-challenge: a match you join or watch, a daily deal and a challenge have their own settings", s.name)
		}
	}
	return nil
}

// settings returns the settings that the flags given on fs ask for, each
// checked on its own; checkSettings checks them together.
func (f *settingsFlags) settings(fs *flag.FlagSet) (protocol.PartialSettings, error) {
	var s protocol.PartialSettings
	given := func(name string) bool { return isSet(fs, name) }
	if given("game") {
		v, err := engine.ParseVariant(f.game)
		if err != nil {
			return s, fmt.Errorf("--game %q: want klondike, thumb_and_pouch, whitehead or double_klondike", f.game)
		}
		if v != engine.Klondike { // Klondike is the protocol's game when none is named
			game := v.String()
			s.Game = &game
		}
	}
	if given("draw") {
		if f.draw != 1 && f.draw != 3 {
			return s, fmt.Errorf("--draw %d: want 1 or 3", f.draw)
		}
		s.Draw = ptr(f.draw)
	}
	if given("passes") {
		if f.passes != 0 && f.passes != 1 && f.passes != 3 {
			return s, fmt.Errorf("--passes %d: want 0 (unlimited), 1 or 3", f.passes)
		}
		s.Passes = ptr(f.passes)
	}
	if given("scoring") {
		if _, err := engine.ParseScoring(f.scoring); err != nil {
			return s, fmt.Errorf("--scoring %q: want standard, vegas or none", f.scoring)
		}
		s.Scoring = ptr(f.scoring)
	}
	if given("undo") {
		if _, err := engine.ParseUndoPolicy(f.undo); err != nil {
			return s, fmt.Errorf("--undo %q: want on, off or no_reveal", f.undo)
		}
		s.Undo = ptr(f.undo)
	}
	if given("foundation-to-tableau") {
		s.FoundationToTableau = ptr(f.f2t)
	}
	if given("mode") {
		if f.mode != protocol.ModeRace && f.mode != protocol.ModeScore {
			return s, fmt.Errorf("--mode %q: want race or score", f.mode)
		}
		s.Mode = ptr(f.mode)
	}
	if given("rounds") {
		if f.rounds < 1 || f.rounds > maxRounds {
			return s, fmt.Errorf("--rounds %d: want 1 to %d", f.rounds, maxRounds)
		}
		s.Rounds = ptr(f.rounds)
	}
	if given("max-players") {
		if f.maxPlayers < 1 || f.maxPlayers > maxMaxPlayers {
			return s, fmt.Errorf("--max-players %d: want 1 to %d", f.maxPlayers, maxMaxPlayers)
		}
		s.MaxPlayers = ptr(f.maxPlayers)
	}
	if given("time-limit") {
		n, err := parseSeconds(f.timeLimit, minTimeLimit, maxTimeLimit)
		if err != nil {
			return s, fmt.Errorf("--time-limit %q: %v, such as 10m", f.timeLimit, err)
		}
		s.TimeLimitS = &n
	}
	if given("countdown") {
		n, err := parseSeconds(f.countdown, 0, maxCountdown)
		if err != nil {
			return s, fmt.Errorf("--countdown %q: %v, such as 5s", f.countdown, err)
		}
		s.CountdownS = &n
	}
	if given("deals") {
		if f.deals != protocol.DealsAny && f.deals != protocol.DealsWinnable {
			return s, fmt.Errorf("--deals %q: want any or winnable", f.deals)
		}
		s.Deals = ptr(f.deals)
	}
	if given("seed") {
		n, err := parseSeed(f.seed)
		if err != nil {
			return s, err
		}
		s.Seed = ptr(strconv.FormatUint(n, 10))
	}
	return s, nil
}

func ptr[T any](v T) *T { return &v }

// parseSeconds reads a time setting: whole seconds ("90") or a duration
// ("10m", "1h30m") of whole seconds, from least to most.
func parseSeconds(s string, least, most time.Duration) (int, error) {
	d, err := time.ParseDuration(s)
	if n, aerr := strconv.Atoi(s); aerr == nil {
		d, err = time.Duration(n)*time.Second, nil
	}
	if err != nil || d < least || d > most || d%time.Second != 0 {
		return 0, fmt.Errorf("want whole seconds or a duration from %s to %s", shortDuration(least), shortDuration(most))
	}
	return int(d / time.Second), nil
}

// shortDuration writes a bound as people write it: "2s", "30s", "3h".
func shortDuration(d time.Duration) string {
	switch {
	case d != 0 && d%time.Hour == 0:
		return fmt.Sprintf("%dh", d/time.Hour)
	case d != 0 && d%time.Minute == 0:
		return fmt.Sprintf("%dm", d/time.Minute)
	}
	return fmt.Sprintf("%ds", d/time.Second)
}

// checkSettings checks the settings together: that the rules they ask for
// are a game's (Whitehead is draw 1, one pass), and what the server refuses
// with a known deal. rated says whether the match is to be rated.
func checkSettings(s protocol.PartialSettings, rated bool) error {
	game := engine.Klondike
	if s.Game != nil {
		v, err := engine.ParseVariant(*s.Game)
		if err != nil {
			return fmt.Errorf("--game %q: want klondike, thumb_and_pouch, whitehead or double_klondike", *s.Game)
		}
		game = v
	}
	r := engine.DefaultRulesFor(game)
	if s.Draw != nil {
		r.Draw = *s.Draw
	}
	if s.Scoring != nil {
		sc, err := engine.ParseScoring(*s.Scoring)
		if err != nil {
			return fmt.Errorf("--scoring %q: want standard, vegas or none", *s.Scoring)
		}
		r.Scoring = sc
	}
	switch {
	case s.Passes != nil:
		r.Passes = *s.Passes
	case r.Scoring == engine.ScoringVegas:
		r.Passes = engine.DefaultPassesFor(game, r.Draw, r.Scoring)
	}
	if err := r.Validate(); err != nil {
		return fmt.Errorf("%s: %w", ruleFlags(s, game), err)
	}
	if s.Seed != nil {
		switch {
		case rated:
			return errors.New("--rated with --seed: anyone can study a known deal beforehand, so it rates nobody")
		case s.Deals != nil && *s.Deals == protocol.DealsWinnable:
			return errors.New("--deals winnable with --seed: the seed already says which deal")
		}
	}
	return nil
}

// ruleFlags writes the rule flags that s gives, as they were typed: the
// rules that checkSettings refuses.
func ruleFlags(s protocol.PartialSettings, game engine.Variant) string {
	parts := []string{"--game " + game.String()}
	if s.Draw != nil {
		parts = append(parts, "--draw "+strconv.Itoa(*s.Draw))
	}
	if s.Passes != nil {
		parts = append(parts, "--passes "+strconv.Itoa(*s.Passes))
	}
	if s.Scoring != nil {
		parts = append(parts, "--scoring "+*s.Scoring)
	}
	return strings.Join(parts, " ")
}

// mergeSettings returns base with the settings that over gives in place of
// base's.
func mergeSettings(base, over protocol.PartialSettings) protocol.PartialSettings {
	s := base
	if over.Game != nil {
		s.Game = over.Game
	}
	if over.Draw != nil {
		s.Draw = over.Draw
	}
	if over.Passes != nil {
		s.Passes = over.Passes
	}
	if over.Scoring != nil {
		s.Scoring = over.Scoring
	}
	if over.Undo != nil {
		s.Undo = over.Undo
	}
	if over.FoundationToTableau != nil {
		s.FoundationToTableau = over.FoundationToTableau
	}
	if over.Mode != nil {
		s.Mode = over.Mode
	}
	if over.Rounds != nil {
		s.Rounds = over.Rounds
	}
	if over.MaxPlayers != nil {
		s.MaxPlayers = over.MaxPlayers
	}
	if over.TimeLimitS != nil {
		s.TimeLimitS = over.TimeLimitS
	}
	if over.Public != nil {
		s.Public = over.Public
	}
	if over.Seed != nil {
		s.Seed = over.Seed
	}
	if over.CountdownS != nil {
		s.CountdownS = over.CountdownS
	}
	if over.Deals != nil {
		s.Deals = over.Deals
	}
	if over.Rated != nil {
		s.Rated = over.Rated
	}
	return s
}

// quickSettings keeps of s what a quick match seats players by.
func quickSettings(s protocol.PartialSettings) protocol.PartialSettings {
	return protocol.PartialSettings{Game: s.Game, Draw: s.Draw, Passes: s.Passes, Scoring: s.Scoring}
}

// challengeSettings keeps of s what a challenge takes.
func challengeSettings(s protocol.PartialSettings) protocol.PartialSettings {
	return protocol.PartialSettings{Game: s.Game, Draw: s.Draw, Passes: s.Passes, Scoring: s.Scoring,
		Undo: s.Undo, FoundationToTableau: s.FoundationToTableau, Mode: s.Mode, TimeLimitS: s.TimeLimitS, Seed: s.Seed}
}

// lobbyArgs reads the arguments of the lobby's create (kind "create") or
// challenge create (kind "create-challenge"): words, then settings flags
// as play takes them, such as create public rated --draw 1 --rounds 3.
// It returns the words in lower case and the settings the flags give.
func lobbyArgs(kind string, args []string) (words []string, s protocol.PartialSettings, err error) {
	i := 0
	for i < len(args) && !strings.HasPrefix(args[i], "-") {
		words = append(words, strings.ToLower(args[i]))
		i++
	}
	fs := newFlagSet(kind)
	f := addSettingsFlags(fs)
	if err := fs.Parse(args[i:]); err != nil {
		return nil, s, err
	}
	if fs.NArg() > 0 {
		return nil, s, fmt.Errorf("unexpected %q after the flags: words such as public go first", fs.Args())
	}
	if err := settingsFit(fs, kind); err != nil {
		return nil, s, err
	}
	s, err = f.settings(fs)
	return words, s, err
}
