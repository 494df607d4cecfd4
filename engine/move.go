package engine

import (
	"errors"
	"strconv"
)

// A MoveKind is the kind of a move of the notation.
type MoveKind uint8

// The kinds of moves. The zero MoveKind means "no move".
const (
	NoMove              MoveKind = iota
	Draw                         // D: turn cards from stock to waste
	Recycle                      // R: turn the waste back into the stock
	WasteToTableau               // W-Tn
	WasteToFoundation            // W-F
	TableauToFoundation          // Tn-F
	TableauToTableau             // Tn-Tm or Tn:k-Tm
	FoundationToTableau          // Fs-Tn
	Undo                         // U
	Redo                         // Y: play again the last move taken back
)

// A Move is one move of the notation. Its zero value is no move.
type Move struct {
	Kind MoveKind
	// From is the source pile 1..7 (1..9 in Double Klondike) for
	// TableauToFoundation and TableauToTableau, and the suit for
	// FoundationToTableau.
	From uint8
	// To is the target pile 1..7 (1..9 in Double Klondike) for moves to the
	// tableau.
	To uint8
	// Count is the explicit run length of Tn:k-Tm, or 0 when not given.
	Count uint8
}

// Constructors of moves; piles are numbered 1..7, 1..9 in Double Klondike.

// DrawMove returns D.
func DrawMove() Move { return Move{Kind: Draw} }

// RecycleMove returns R.
func RecycleMove() Move { return Move{Kind: Recycle} }

// UndoMove returns U.
func UndoMove() Move { return Move{Kind: Undo} }

// RedoMove returns Y.
func RedoMove() Move { return Move{Kind: Redo} }

// WasteToPile returns W-Tn.
func WasteToPile(n int) Move { return Move{Kind: WasteToTableau, To: uint8(n)} }

// WasteUp returns W-F.
func WasteUp() Move { return Move{Kind: WasteToFoundation} }

// PileUp returns Tn-F.
func PileUp(n int) Move { return Move{Kind: TableauToFoundation, From: uint8(n)} }

// PileToPile returns Tn-Tm, or Tn:k-Tm when k > 0.
func PileToPile(n, m, k int) Move {
	return Move{Kind: TableauToTableau, From: uint8(n), To: uint8(m), Count: uint8(k)}
}

// FoundationDown returns Fs-Tn.
func FoundationDown(s Suit, n int) Move {
	return Move{Kind: FoundationToTableau, From: uint8(s), To: uint8(n)}
}

// String returns the move's canonical notation, or "?" for an invalid move.
func (m Move) String() string {
	var buf [8]byte
	b := m.AppendText(buf[:0])
	if len(b) == 0 {
		return "?"
	}
	return string(b)
}

// AppendText appends the canonical notation to b. It appends nothing for a
// move that is not well formed.
func (m Move) AppendText(b []byte) []byte {
	if !m.wellFormed() {
		return b
	}
	switch m.Kind {
	case Draw:
		return append(b, 'D')
	case Recycle:
		return append(b, 'R')
	case Undo:
		return append(b, 'U')
	case Redo:
		return append(b, 'Y')
	case WasteToTableau:
		return append(b, 'W', '-', 'T', '0'+m.To)
	case WasteToFoundation:
		return append(b, 'W', '-', 'F')
	case TableauToFoundation:
		return append(b, 'T', '0'+m.From, '-', 'F')
	case TableauToTableau:
		b = append(b, 'T', '0'+m.From)
		if m.Count > 0 {
			b = append(b, ':')
			b = strconv.AppendUint(b, uint64(m.Count), 10)
		}
		return append(b, '-', 'T', '0'+m.To)
	case FoundationToTableau:
		return append(b, 'F', suitLetters[m.From], '-', 'T', '0'+m.To)
	}
	return b
}

// MarshalText returns the canonical notation.
func (m Move) MarshalText() ([]byte, error) {
	if !m.wellFormed() {
		return nil, &ParseError{Input: "", Msg: "not a well-formed move"}
	}
	return m.AppendText(nil), nil
}

// UnmarshalText parses the notation as ParseMove does.
func (m *Move) UnmarshalText(b []byte) error {
	v, err := ParseMove(string(b))
	if err != nil {
		return err
	}
	*m = v
	return nil
}

func pileOK(n uint8) bool { return n >= 1 && n <= MaxPiles }

// highestPile returns the highest pile number m names, or 0, for checking it
// against the game's piles.
func (m Move) highestPile() uint8 {
	switch m.Kind {
	case WasteToTableau, FoundationToTableau:
		return m.To
	case TableauToFoundation:
		return m.From
	case TableauToTableau:
		return max(m.From, m.To)
	}
	return 0
}

// wellFormed reports whether m is a move the notation can write in some
// game (piles up to 9); Apply also checks the piles against its game.
func (m Move) wellFormed() bool {
	switch m.Kind {
	case Draw, Recycle, Undo, Redo, WasteToFoundation:
		return m.From == 0 && m.To == 0 && m.Count == 0
	case WasteToTableau:
		return m.From == 0 && pileOK(m.To) && m.Count == 0
	case TableauToFoundation:
		return pileOK(m.From) && m.To == 0 && m.Count == 0
	case TableauToTableau:
		return pileOK(m.From) && pileOK(m.To) && m.Count <= NumRanks
	case FoundationToTableau:
		return m.From < NumSuits && pileOK(m.To) && m.Count == 0
	}
	return false
}

// ErrSyntax is wrapped by every error of ParseMove.
var ErrSyntax = errors.New("bad move notation")

// A ParseError reports text that is not a move of the notation.
type ParseError struct {
	Input string // the text, as given
	Msg   string // what is wrong, in words
}

func (e *ParseError) Error() string {
	return "bad move " + strconv.Quote(e.Input) + ": " + e.Msg
}

// Unwrap returns ErrSyntax.
func (e *ParseError) Unwrap() error { return ErrSyntax }

// ParseMove parses one move of the notation: D R W-Tn W-F Tn-F Tn-Tm Tn:k-Tm
// Fs-Tn U Y, with piles 1..7 (every game but Double Klondike; see
// Variant.ParseMove). It ignores case and surrounding spaces and does not
// allocate unless it fails. Every error is a *ParseError wrapping ErrSyntax.
func ParseMove(s string) (Move, error) {
	m, msg := parseMove(trimSpace(s), NumPiles)
	if msg != "" {
		return Move{}, &ParseError{Input: s, Msg: msg}
	}
	return m, nil
}

// ParseMove parses one move of the notation for the variant's game, as the
// function ParseMove does, with its piles: 1..9 in Double Klondike, 1..7 in
// the others.
func (v Variant) ParseMove(s string) (Move, error) {
	m, msg := parseMove(trimSpace(s), v.spec().piles)
	if msg != "" {
		return Move{}, &ParseError{Input: s, Msg: msg}
	}
	return m, nil
}

func trimSpace(s string) string {
	for len(s) > 0 && isSpace(s[0]) {
		s = s[1:]
	}
	for len(s) > 0 && isSpace(s[len(s)-1]) {
		s = s[:len(s)-1]
	}
	return s
}

func isSpace(b byte) bool { return b == ' ' || b == '\t' || b == '\n' || b == '\r' }

func upper(b byte) byte {
	if b >= 'a' && b <= 'z' {
		return b - 'a' + 'A'
	}
	return b
}

// wantForms names the forms of play; Y, the redo, is read as well but left
// out, so that the message stays what clients already show.
const wantForms = "want D, R, U, W-Tn, W-F, Tn-F, Tn-Tm, Tn:k-Tm or Fs-Tn"

// pileAt parses "Tn" at s[i:], n in 1..piles (7 or 9), and returns n.
func pileAt(s string, i int, piles uint8) (uint8, string) {
	if i+1 >= len(s) || upper(s[i]) != 'T' {
		if piles == MaxPiles {
			return 0, "expected a pile T1..T9"
		}
		return 0, "expected a pile T1..T7"
	}
	n := s[i+1] - '0'
	if n < 1 || n > piles {
		if piles == MaxPiles {
			return 0, "pile number must be 1..9"
		}
		return 0, "pile number must be 1..7"
	}
	return n, ""
}

func parseMove(s string, piles uint8) (Move, string) {
	if s == "" {
		return Move{}, "empty move; " + wantForms
	}
	switch len(s) {
	case 1:
		switch upper(s[0]) {
		case 'D':
			return DrawMove(), ""
		case 'R':
			return RecycleMove(), ""
		case 'U':
			return UndoMove(), ""
		case 'Y':
			return RedoMove(), ""
		}
		return Move{}, wantForms
	}
	switch upper(s[0]) {
	case 'W':
		if len(s) == 3 && s[1] == '-' && upper(s[2]) == 'F' {
			return WasteUp(), ""
		}
		if len(s) == 4 && s[1] == '-' {
			n, msg := pileAt(s, 2, piles)
			if msg != "" {
				return Move{}, msg
			}
			return WasteToPile(int(n)), ""
		}
		return Move{}, "a waste move is W-Tn or W-F"
	case 'F':
		if len(s) != 5 || s[2] != '-' {
			return Move{}, "a foundation move is Fs-Tn, such as FH-T3"
		}
		var suit Suit
		switch upper(s[1]) {
		case 'C':
			suit = Clubs
		case 'D':
			suit = Diamonds
		case 'H':
			suit = Hearts
		case 'S':
			suit = Spades
		default:
			return Move{}, "foundation suit must be C, D, H or S"
		}
		n, msg := pileAt(s, 3, piles)
		if msg != "" {
			return Move{}, msg
		}
		return FoundationDown(suit, int(n)), ""
	case 'T':
		from, msg := pileAt(s, 0, piles)
		if msg != "" {
			return Move{}, msg
		}
		rest := s[2:]
		var count int
		if len(rest) > 0 && rest[0] == ':' {
			i := 1
			for i < len(rest) && rest[i] >= '0' && rest[i] <= '9' && i < 4 {
				count = count*10 + int(rest[i]-'0')
				i++
			}
			if i == 1 || count < 1 || count > NumRanks {
				return Move{}, "run length k in Tn:k-Tm must be 1..13"
			}
			rest = rest[i:]
		}
		if len(rest) == 2 && rest[0] == '-' && upper(rest[1]) == 'F' && count == 0 {
			return PileUp(int(from)), ""
		}
		if len(rest) == 3 && rest[0] == '-' {
			to, msg := pileAt(rest, 1, piles)
			if msg != "" {
				return Move{}, msg
			}
			return PileToPile(int(from), int(to), count), ""
		}
		return Move{}, "a tableau move is Tn-F, Tn-Tm or Tn:k-Tm"
	}
	return Move{}, wantForms
}
