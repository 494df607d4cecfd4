package match

import "strings"

// An attempt at a challenge (lobby/challenge) is a Round of one player,
// whose id names the challenge and the player. It is here because a Round
// must know it is an attempt: an attempt has no hints (Round.Hint).

// attemptSep joins a challenge's id and a player's id into the id of the
// player's attempt.
const attemptSep = "."

// AttemptRoundID returns the round id of a player's attempt.
func AttemptRoundID(challengeID, playerID string) string { return challengeID + attemptSep + playerID }

// SplitAttemptRoundID returns the challenge and the player of an attempt's
// round id; ok is false for any other round id.
func SplitAttemptRoundID(roundID string) (challengeID, playerID string, ok bool) {
	challengeID, playerID, ok = strings.Cut(roundID, attemptSep)
	return challengeID, playerID, ok && challengeID != "" && playerID != ""
}
