package engine

import "errors"

// ErrIllegal is matched (with errors.Is) by every refusal of a move: each
// rule sentinel below and every *MoveError.
var ErrIllegal = errors.New("illegal move")

// A rule is a sentinel refusal: one rule of the book, in words.
type rule string

func (r rule) Error() string { return string(r) }

// Is makes every rule match ErrIllegal.
func (r rule) Is(target error) bool { return target == ErrIllegal }

// The reasons a move is refused. Each is a comparable sentinel for errors.Is,
// and each matches ErrIllegal.
var (
	ErrGameOver          error = rule("the game is over")
	ErrStockEmpty        error = rule("the stock is empty")
	ErrStockNotEmpty     error = rule("the waste goes back to the stock only when the stock is empty")
	ErrWasteEmpty        error = rule("the waste is empty")
	ErrNoPassesLeft      error = rule("no passes through the stock are left")
	ErrPileEmpty         error = rule("the pile is empty")
	ErrSamePile          error = rule("a pile cannot move onto itself")
	ErrFoundationOrder   error = rule("a foundation takes the ace of its suit, then the next rank of that suit")
	ErrBuild             error = rule("a card goes on a face-up card one rank higher of the opposite colour")
	ErrKingOnly          error = rule("an empty pile takes only a king")
	ErrNoRunFits         error = rule("no face-up run of that pile fits there")
	ErrRunCount          error = rule("the count does not match the run that fits")
	ErrNoFoundationMoves error = rule("these rules do not allow cards back from a foundation")
	ErrFoundationEmpty   error = rule("that foundation is empty")
	ErrUndoOff           error = rule("undo is off in this game")
	ErrUndoReveal        error = rule("undo cannot take back a move that turned a card face up")
	ErrNothingToUndo     error = rule("there is no move to undo")
	ErrNothingToRedo     error = rule("there is no move to redo")
	ErrMalformedMove     error = rule("not a well-formed move")
)

// A variantRule is a refusal under a rule of a variant that replaces one of
// Klondike's: it matches the sentinel of that rule as well as ErrIllegal, so
// that callers testing for the Klondike reason still find it.
type variantRule struct {
	msg string
	of  error
}

func (r *variantRule) Error() string { return r.msg }

// Is makes the rule match ErrIllegal and the Klondike rule it replaces.
func (r *variantRule) Is(target error) bool { return target == ErrIllegal || target == r.of }

// The refusals of the variants' own rules.
var (
	// ErrBuildSuit is Thumb and Pouch's building rule; it matches ErrBuild.
	ErrBuildSuit error = &variantRule{"a card goes on a face-up card one rank higher of another suit", ErrBuild}
	// ErrBuildColour is Whitehead's building rule; it matches ErrBuild.
	ErrBuildColour error = &variantRule{"a card goes on a face-up card one rank higher of the same colour", ErrBuild}
	// ErrFoundationBase is Whitehead's foundation rule; it matches
	// ErrFoundationOrder.
	ErrFoundationBase error = &variantRule{"a foundation takes the card of its suit of the base rank, then the next rank of that suit, a king followed by an ace", ErrFoundationOrder}
)

// A MoveError reports a refused move: the rule it broke and, where it helps,
// the cards or piles involved.
type MoveError struct {
	Move   Move   // the refused move
	Err    error  // one of the rule sentinels above
	Detail string // words naming the cards or piles, such as "8H on 9D"; may be empty
}

// Error returns the reason in words: the detail, if any, then the rule.
func (e *MoveError) Error() string {
	if e.Detail == "" {
		return e.Err.Error()
	}
	return e.Detail + ": " + e.Err.Error()
}

// Unwrap returns the rule.
func (e *MoveError) Unwrap() error { return e.Err }

// Is makes every MoveError match ErrIllegal.
func (e *MoveError) Is(target error) bool { return target == ErrIllegal }
