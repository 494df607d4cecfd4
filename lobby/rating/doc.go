// Package rating rates races: rounds of two or more players ranked first to
// last, with ties, by Glicko-2 applied pairwise, as in Mark E. Glickman,
// "Example of the Glicko-2 system" (http://www.glicko.net/glicko/glicko2.pdf).
//
// A round is one rating period for each of its players, in which each has
// played one game against every other player of the round, scoring 1 against
// each placed below, 0.5 against each tied (equal place) and 0 against each
// placed above. Every player is updated against the others' ratings before
// the round, all at once, so the order the players are given in does not
// matter and anyone can recompute a change from the published ranking and the ratings
// (rating, deviation, volatility) the players had before the round, each
// brought to the round's end with AsOf:
//
//	after := rating.Update([]rating.Placing{
//		{Rating: alice, Place: 1},
//		{Rating: bob, Place: 2},
//		{Rating: carol, Place: 2}, // tied with bob
//	}, end)
//
// The update follows the paper's steps 1 to 8 exactly; on top of them a
// deviation is kept between MinRD and InitialRD. Time away is the paper's
// step 6 for the periods a player did not play: AsOf grows the deviation by
// one rating period a Period, in proportion to the time elapsed.
//
// The parameters, and why:
//
//   - Initial, InitialRD and InitialVol are Glickman's values for an unrated
//     player: the middle of the scale, a deviation wide enough that the
//     first results move the rating a long way, and the volatility of his
//     worked example.
//   - InitialRD is also the ceiling: a player away for a long time becomes
//     as uncertain as a new one, never more.
//   - Tau is low in Glickman's range because the deal makes a race partly
//     luck, and a small τ keeps an improbable result from swinging the
//     volatility, and with it the rating, by much.
//   - MinRD keeps a frequent player's deviation from shrinking until results
//     barely move their rating.
//   - Period is a day: a player who has not raced for days is less certain
//     than one who raced yesterday, while a night's break changes little.
//
// A rating is provisional while its deviation is above ProvisionalRD, as on
// lichess: it is still a rough guess, too uncertain to rank the player among
// established ones. A new player's rating is provisional until a handful of
// rounds against established players bring the deviation down.
package rating
