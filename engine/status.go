package engine

import "fmt"

// A Status says whether a game goes on and, if not, how it ended.
type Status uint8

// The statuses of a game. Every status but Playing is final.
const (
	Playing  Status = iota
	Won             // all 52 cards on the foundations
	Stuck           // no useful move is left (see Game.IsStuck)
	Resigned        // the player gave up
	TimedOut        // the round's time limit passed
)

var statusNames = [...]string{Playing: "playing", Won: "won", Stuck: "stuck", Resigned: "resigned", TimedOut: "timed_out"}

// String returns the protocol's name: playing, won, stuck, resigned or timed_out.
func (s Status) String() string {
	if int(s) < len(statusNames) {
		return statusNames[s]
	}
	return fmt.Sprintf("Status(%d)", uint8(s))
}

// Over reports whether the game has ended.
func (s Status) Over() bool { return s != Playing }

// ParseStatus parses a status name.
func ParseStatus(s string) (Status, error) {
	for i, n := range statusNames {
		if s == n {
			return Status(i), nil
		}
	}
	return 0, fmt.Errorf("unknown status %q", s)
}

// MarshalText returns the status name.
func (s Status) MarshalText() ([]byte, error) { return []byte(s.String()), nil }

// UnmarshalText parses a status name.
func (s *Status) UnmarshalText(b []byte) error {
	v, err := ParseStatus(string(b))
	*s = v
	return err
}

// Events is the set of things one move did, as flags.
type Events uint16

// The events of a move.
const (
	Drew           Events = 1 << iota // cards went from stock to waste
	Recycled                          // the waste became the stock again
	Revealed                          // a tableau card turned face up
	ToFoundation                      // a card went up to a foundation
	FromFoundation                    // a card came back from a foundation
	ToTableau                         // a card or run went to a tableau pile
	Undid                             // the move was an undo
	GameWon                           // the move won the game
	GameStuck                         // the move left the game stuck
	Redid                             // the move was a redo (with the events of the move it played again)
)

var eventNames = [...]string{"drew", "recycled", "revealed", "to_foundation", "from_foundation", "to_tableau", "undo", "won", "stuck", "redo"}

// Has reports whether every event of x is in e.
func (e Events) Has(x Events) bool { return e&x == x }

// Names returns the names of the events in e, in a fixed order:
// drew, recycled, revealed, to_foundation, from_foundation, to_tableau, undo,
// won, stuck, redo.
func (e Events) Names() []string {
	names := []string{}
	for i, n := range eventNames {
		if e&(1<<i) != 0 {
			names = append(names, n)
		}
	}
	return names
}

// String returns the names joined by commas.
func (e Events) String() string {
	s := ""
	for i, n := range e.Names() {
		if i > 0 {
			s += ","
		}
		s += n
	}
	return s
}
