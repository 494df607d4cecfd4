package rating

import (
	"math"
	"time"
)

// The parameters; the package comment says why each has its value.
const (
	Initial       = 1500.0         // a new player's rating
	InitialRD     = 350.0          // a new player's deviation, also the most it can grow to
	InitialVol    = 0.06           // a new player's volatility
	Tau           = 0.5            // Glicko-2's system constant τ (Glickman suggests 0.3 to 1.2)
	ProvisionalRD = 110.0          // a rating with a deviation above this is provisional (lichess's rule)
	MinRD         = 45.0           // a deviation never falls below this, so a rating can always move
	Period        = 24 * time.Hour // time away grows the deviation by one rating period a Period
)

// A Rating is one player's rating in one game and draw.
type Rating struct {
	Rating     float64   `json:"rating"`
	Deviation  float64   `json:"deviation"`
	Volatility float64   `json:"volatility"`
	Rounds     int       `json:"rounds"`      // rated rounds played
	At         time.Time `json:"at,omitzero"` // the last rated round's end; zero: never rated
}

// New returns a new player's rating.
func New() Rating {
	return Rating{Rating: Initial, Deviation: InitialRD, Volatility: InitialVol}
}

// Provisional reports whether r is still too uncertain to rank the player
// among established ones.
func (r Rating) Provisional() bool { return r.Deviation > ProvisionalRD }

// AsOf returns r as it stands at now: its deviation grown by the time away
// since r.At, as Glicko-2's step 6 for each Period elapsed, fractionally
// (φ* = sqrt(φ² + σ²·t), t = elapsed/Period), never above InitialRD.
// A zero At or now before At changes nothing.
//
// At is left as it was, so the result is a view for showing or pairing:
// keep r, not the result, or the same time away would be counted again.
func (r Rating) AsOf(now time.Time) Rating {
	if r.At.IsZero() || !now.After(r.At) {
		return r
	}
	t := float64(now.Sub(r.At)) / float64(Period)
	phi := r.Deviation / scale
	r.Deviation = min(scale*math.Sqrt(phi*phi+r.Volatility*r.Volatility*t), InitialRD)
	return r
}

// Display is the rating rounded to a whole number, as shown to players.
func (r Rating) Display() int { return int(math.Round(r.Rating)) }

// LapseMicros is when r, established, turns provisional again if no rated
// round comes first, in Unix microseconds (AsOf's growth reaching
// ProvisionalRD); +Inf when it never does (never rated, or no volatility).
// The stores keep it to drop lapsed players from the ladders as they read.
func (r Rating) LapseMicros() float64 {
	phi, phiP := r.Deviation/scale, ProvisionalRD/scale
	t := (phiP*phiP - phi*phi) / (r.Volatility * r.Volatility)
	at := float64(r.At.UnixMicro()) + t*float64(Period.Microseconds())
	if r.At.IsZero() || math.IsNaN(at) || math.IsInf(at, 0) {
		return math.Inf(1)
	}
	return at
}
