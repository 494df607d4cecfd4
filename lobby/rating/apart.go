package rating

import "time"

// UpdateApart is Update with some pairs of players kept apart: apart(i, j)
// true means that i and j did not play each other for rating (the
// lobby's limit on one pair's rated rounds a day). A player every one of
// whose pairs is kept apart is returned as given. apart nil keeps none
// apart.
func UpdateApart(round []Placing, apart func(i, j int) bool, now time.Time) []Rating {
	out := make([]Rating, len(round))
	before := make([]Rating, len(round))
	for i, p := range round {
		out[i] = p.Rating
		before[i] = p.Rating.AsOf(now)
	}
	for i := range round {
		opps := games(round, before, i)
		if apart != nil {
			opps = opps[:0]
			for j, p := range round {
				if j == i || apart(min(i, j), max(i, j)) {
					continue
				}
				opps = append(opps, result{before[j].Rating, before[j].Deviation, score(round[i].Place, p.Place)})
			}
		}
		if len(opps) == 0 {
			continue
		}
		r := period(before[i], opps)
		r.Rounds++
		r.At = now
		out[i] = r
	}
	return out
}

// score is a game's score for the player placed mine against one placed
// theirs.
func score(mine, theirs int) float64 {
	switch {
	case mine < theirs:
		return 1
	case mine > theirs:
		return 0
	}
	return 0.5
}
