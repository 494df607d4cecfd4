package challenge

import "klondike/match"

// A BoardPage is what a reader of a board asks for at once: the counts,
// the top of the board and, for a player on it, their own entry among
// their neighbours.
type BoardPage struct {
	Players  int                `json:"players"`  // attempts started
	Finished int                `json:"finished"` // entries on the board
	Top      []match.BoardEntry `json:"top"`
	// Around is the player's entry with up to the asked number of
	// neighbours on each side, best first; empty when the player has no
	// entry.
	Around []match.BoardEntry `json:"around,omitempty"`
	Rank   int                `json:"rank,omitempty"` // the player's rank, 0 if none
}
