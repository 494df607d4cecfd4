package engine

import "time"

// TimePenalty returns the standard time penalty: 2 points for every full 10
// seconds elapsed.
func TimePenalty(elapsed time.Duration) int {
	if elapsed <= 0 {
		return 0
	}
	return timePenaltyPoints * int(elapsed/(timePenaltyEverySecs*time.Second))
}

// TimeBonus returns the standard bonus of a won game: 700000 divided by the
// whole seconds elapsed, rounded down, for a game of at least 30 seconds;
// otherwise 0.
func TimeBonus(elapsed time.Duration) int {
	secs := int64(elapsed / time.Second)
	if secs < timeBonusMinimumSecs {
		return 0
	}
	return int(timeBonusNumerator / secs)
}

// TimedScore returns the score of a timed game under scoring s, given its
// running move points, the time elapsed on the server's clock and whether it
// was won. In standard scoring it is max(0, points − penalty) plus the bonus
// when won; Vegas and none have no time adjustment, so it is the points.
func TimedScore(s Scoring, points int, elapsed time.Duration, won bool) int {
	if s != ScoringStandard {
		return points
	}
	score := max(0, points-TimePenalty(elapsed))
	if won {
		score += TimeBonus(elapsed)
	}
	return score
}

// TimedScore returns the game's score on the server's clock (see the
// function TimedScore).
func (g *Game) TimedScore(elapsed time.Duration) int {
	return TimedScore(g.rules.Scoring, int(g.score), elapsed, g.status == Won)
}
