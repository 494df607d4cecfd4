package match

import (
	"errors"
	"fmt"
	"strconv"

	"klondike/engine"
)

// A Mode says how a round ranks its players.
type Mode string

// The modes: race ranks winners by finish time, then the others by cards on
// the foundations, then score; score ranks everyone by final score.
const (
	ModeRace  Mode = "race"
	ModeScore Mode = "score"
)

// Limits of the settings a match may ask for.
const (
	MaxRounds        = 20
	MaxPlayersLimit  = 64
	MinTimeLimitS    = 2
	MaxTimeLimitS    = 3 * 3600
	MaxCountdownS    = 30
	DefaultPlayers   = 8
	DefaultTimeLimit = 900
	DefaultCountdown = 3
)

// Settings are a match's options. Their JSON is the protocol's "settings"
// object; fields a client leaves out take their defaults (see Decode).
type Settings struct {
	Draw                int    `json:"draw"`
	Passes              int    `json:"passes"`
	Scoring             string `json:"scoring"`
	Undo                string `json:"undo"`
	FoundationToTableau bool   `json:"foundation_to_tableau"`
	Mode                Mode   `json:"mode"`
	Rounds              int    `json:"rounds"`
	MaxPlayers          int    `json:"max_players"`
	TimeLimitS          int    `json:"time_limit_s"`
	Public              bool   `json:"public"`
	// Seed, when set, makes every round deal this numbered deal (a decimal
	// unsigned 64-bit number): the rounds are "known deals" with no commitment.
	Seed string `json:"seed,omitempty"`
	// CountdownS is the time between round_starting and round_started.
	CountdownS int `json:"countdown_s"`
	// Deals is "any" (any deal, default) or "winnable": every round is
	// dealt from a deal the solver proved winnable under the round's rules,
	// when the server has one ready (round_starting says whether it had).
	// Winnable deals are offered only for the games the solver plays
	// (Solvable).
	Deals string `json:"deals"`
	// Game is the game played: "thumb_and_pouch", "whitehead" or
	// "double_klondike", or Klondike, which is written "" (left out of
	// the JSON, as in the rules, so Klondike's settings read and write as
	// they always did; "klondike" is read too and made "").
	Game string `json:"game,omitempty"`
	// Rated rounds change their players' ratings (lobby.Ratings). A quick
	// match is rated unless it asks not to be; a created match only when it
	// asks to be.
	Rated bool `json:"rated,omitempty"`
}

// The values of Settings.Deals.
const (
	DealsAny      = "any"
	DealsWinnable = "winnable"
)

// DefaultSettings returns the settings of a match that asks for nothing:
// draw 3, unlimited passes, standard scoring, undo no_reveal, foundation to
// tableau allowed, race, one round, 8 players, 15 minutes, private, a 3 s
// countdown.
func DefaultSettings() Settings {
	return Settings{
		Draw: 3, Passes: 0, Scoring: "standard", Undo: "no_reveal", FoundationToTableau: true,
		Mode: ModeRace, Rounds: 1, MaxPlayers: DefaultPlayers, TimeLimitS: DefaultTimeLimit,
		CountdownS: DefaultCountdown, Deals: DealsAny,
	}
}

// ErrBadSettings is wrapped by every error of Settings.Validate.
var ErrBadSettings = errors.New("bad settings")

// WithDefaults fills a partial settings object: p holds what the client
// sent (nil fields were left out). The draw left out is the game's
// (engine.DefaultRulesFor: 3, or 1 in Thumb and Pouch and Whitehead);
// passes left out are the game's too, except in Vegas scoring, where they
// follow the draw (DefaultPasses).
func WithDefaults(p PartialSettings) Settings {
	s := DefaultSettings()
	if p.Game != nil {
		s.Game = canonicalGame(*p.Game)
	}
	game, gameErr := engine.ParseVariant(canonicalGameName(s.Game))
	if p.Draw != nil {
		s.Draw = *p.Draw
	} else if gameErr == nil {
		s.Draw = engine.DefaultRulesFor(game).Draw
	}
	if p.Scoring != nil {
		s.Scoring = *p.Scoring
	}
	if p.Passes != nil {
		s.Passes = *p.Passes
	} else if sc, err := engine.ParseScoring(s.Scoring); err == nil && gameErr == nil {
		s.Passes = DefaultPasses(game, s.Draw, sc)
	}
	if p.Undo != nil {
		s.Undo = *p.Undo
	}
	if p.FoundationToTableau != nil {
		s.FoundationToTableau = *p.FoundationToTableau
	}
	if p.Mode != nil {
		s.Mode = *p.Mode
	}
	if p.Rounds != nil {
		s.Rounds = *p.Rounds
	}
	if p.MaxPlayers != nil {
		s.MaxPlayers = *p.MaxPlayers
	}
	if p.TimeLimitS != nil {
		s.TimeLimitS = *p.TimeLimitS
	}
	if p.Public != nil {
		s.Public = *p.Public
	}
	if p.Seed != nil {
		s.Seed = *p.Seed
	}
	if p.CountdownS != nil {
		s.CountdownS = *p.CountdownS
	}
	if p.Deals != nil {
		s.Deals = *p.Deals
	}
	if p.Rated != nil {
		s.Rated = *p.Rated
	}
	return s
}

// PartialSettings is the settings object as a client sends it: every field
// may be left out.
type PartialSettings struct {
	Draw                *int    `json:"draw,omitempty"`
	Passes              *int    `json:"passes,omitempty"`
	Scoring             *string `json:"scoring,omitempty"`
	Undo                *string `json:"undo,omitempty"`
	FoundationToTableau *bool   `json:"foundation_to_tableau,omitempty"`
	Mode                *Mode   `json:"mode,omitempty"`
	Rounds              *int    `json:"rounds,omitempty"`
	MaxPlayers          *int    `json:"max_players,omitempty"`
	TimeLimitS          *int    `json:"time_limit_s,omitempty"`
	Public              *bool   `json:"public,omitempty"`
	Seed                *string `json:"seed,omitempty"`
	CountdownS          *int    `json:"countdown_s,omitempty"`
	Deals               *string `json:"deals,omitempty"`
	Game                *string `json:"game,omitempty"`
	Rated               *bool   `json:"rated,omitempty"`
}

// DefaultPasses returns the passes of a game whose settings leave them
// out: the game's own (engine.DefaultRulesFor: unlimited in Klondike and
// Double Klondike, one in Thumb and Pouch and Whitehead), and in Vegas
// scoring the Vegas default of the draw (engine.DefaultPassesFor: 1 in
// draw 1, 3 in draw 3, always 1 in Whitehead).
func DefaultPasses(game engine.Variant, draw int, sc engine.Scoring) int {
	if sc == engine.ScoringVegas {
		return engine.DefaultPassesFor(game, draw, sc)
	}
	return engine.DefaultRulesFor(game).Passes
}

// canonicalGame is the settings' form of a game's name: Klondike is "".
func canonicalGame(name string) string {
	if name == engine.Klondike.String() {
		return ""
	}
	return name
}

// canonicalGameName is the game's name as engine.ParseVariant reads it.
func canonicalGameName(game string) string {
	if game == "" {
		return engine.Klondike.String()
	}
	return game
}

// Variant returns the game of the settings (Klondike for one not known;
// Validate refuses those).
func (s Settings) Variant() engine.Variant {
	v, _ := engine.ParseVariant(canonicalGameName(s.Game))
	return v
}

// Validate reports the first setting out of range.
func (s Settings) Validate() error {
	if _, err := s.Rules(); err != nil {
		return fmt.Errorf("%w: %v", ErrBadSettings, err)
	}
	bad := func(format string, a ...any) error {
		return fmt.Errorf("%w: "+format, append([]any{ErrBadSettings}, a...)...)
	}
	switch {
	case s.Mode != ModeRace && s.Mode != ModeScore:
		return bad("mode %q: want race or score", s.Mode)
	case s.Rounds < 1 || s.Rounds > MaxRounds:
		return bad("rounds %d: want 1..%d", s.Rounds, MaxRounds)
	case s.MaxPlayers < 1 || s.MaxPlayers > MaxPlayersLimit:
		return bad("max_players %d: want 1..%d", s.MaxPlayers, MaxPlayersLimit)
	case s.TimeLimitS < MinTimeLimitS || s.TimeLimitS > MaxTimeLimitS:
		return bad("time_limit_s %d: want %d..%d", s.TimeLimitS, MinTimeLimitS, MaxTimeLimitS)
	case s.CountdownS < 0 || s.CountdownS > MaxCountdownS:
		return bad("countdown_s %d: want 0..%d", s.CountdownS, MaxCountdownS)
	case s.Deals != DealsAny && s.Deals != DealsWinnable && s.Deals != "":
		return bad("deals %q: want any or winnable", s.Deals)
	case s.Deals == DealsWinnable && s.Seed != "":
		return bad("deals winnable with a seed: the seed already fixes the deal")
	case s.Deals == DealsWinnable && !Solvable(s.Variant()):
		return bad("deals winnable: %s", ErrNotSolvable)
	case s.Rated && s.Seed != "":
		return bad("rated with a seed: a known deal can be studied beforehand, so it rates nobody")
	}
	if s.Seed != "" {
		if _, err := strconv.ParseUint(s.Seed, 10, 64); err != nil {
			return bad("seed %q: want a deal number 0..18446744073709551615 in decimal", s.Seed)
		}
	}
	return nil
}

// Rules returns the engine rules of the settings.
func (s Settings) Rules() (engine.Rules, error) {
	sc, err := engine.ParseScoring(s.Scoring)
	if err != nil {
		return engine.Rules{}, err
	}
	u, err := engine.ParseUndoPolicy(s.Undo)
	if err != nil {
		return engine.Rules{}, err
	}
	game, err := engine.ParseVariant(canonicalGameName(s.Game))
	if err != nil {
		return engine.Rules{}, err
	}
	r := engine.Rules{Draw: s.Draw, Passes: s.Passes, FoundationToTableau: s.FoundationToTableau, Undo: u, Scoring: sc, Game: game}
	return r, r.Validate()
}
