package rating

import "time"

// A Placing is one player's place in a round: 1 first; equal places are ties.
type Placing struct {
	Rating Rating
	Place  int
}

// Update rates one round: every player's rating after it, in the order given.
// Each is first brought to now with AsOf, then updated as one Glicko-2 rating
// period in which they played every other player once, scoring 1 against
// those placed below, 0.5 against those tied and 0 against those above, all
// at their ratings before the round. Rounds goes up by one and At becomes now.
// Fewer than two players change nothing (their ratings are returned as given).
func Update(round []Placing, now time.Time) []Rating {
	out := make([]Rating, len(round))
	if len(round) < 2 {
		for i, p := range round {
			out[i] = p.Rating
		}
		return out
	}
	before := make([]Rating, len(round))
	for i, p := range round {
		before[i] = p.Rating.AsOf(now)
	}
	for i := range round {
		r := period(before[i], games(round, before, i))
		r.Rounds++
		r.At = now
		out[i] = r
	}
	return out
}

// games is player i's games of the round, one against each other player.
func games(round []Placing, before []Rating, i int) []result {
	opps := make([]result, 0, len(round)-1)
	for j, p := range round {
		if j == i {
			continue
		}
		opps = append(opps, result{before[j].Rating, before[j].Deviation, score(round[i].Place, p.Place)})
	}
	return opps
}
