// Package engine implements Klondike solitaire as this server plays it, and
// the variations Thumb and Pouch, Whitehead and Double Klondike: cards and
// layouts, numbered deals, the rule options, the move notation, a game that
// applies, undoes and redoes moves, legal moves, stuck detection, scoring,
// the player's view and a one-line text form of any position. The rules are
// described in docs/rules.md, the notation, the view and the text form in
// docs/notation.md, and numbered deals in docs/deals.md.
//
// The package is pure: it does no I/O, reads no clock, starts no goroutines
// and uses no global randomness. A numbered deal depends only on its number,
// and the time that a timed score needs is passed in by the caller. A Game is
// not safe for concurrent use; its owner serialises the moves.
//
// # Starting a game
//
// A game starts from a layout and rules. [NumberedDeal](n) returns deal #n,
// the layout that PySolFC deals as Klondike game n:
//
//	g, err := engine.NewGame(engine.NumberedDeal(1), engine.DefaultRules())
//	if err != nil {
//		return err // the rules or the layout are not valid
//	}
//
// [DefaultRules] are the solo defaults: draw 3, unlimited passes, cards allowed
// back from the foundations, undo on and standard scoring. Change what a game
// needs; [DefaultPasses] gives the passes for a game that does not set them
// (1 or 3 in Vegas, unlimited otherwise):
//
//	r := engine.DefaultRules()
//	r.Draw = 1
//	r.Undo = engine.UndoNoReveal
//	r.Scoring = engine.ScoringVegas
//	r.Passes = engine.DefaultPasses(r.Draw, r.Scoring) // 1
//
// # Games
//
// Rules.Game picks the game, a [Variant]: [Klondike] (the zero value, which
// the rules' JSON leaves out), [ThumbAndPouch], [Whitehead] or
// [DoubleKlondike]. Each is a rule set of the same engine, allocation-free
// on the move path like Klondike. [DefaultRulesFor] gives a game's solo
// defaults and [NumberedDealFor] its numbered deals (Double Klondike deals
// 104 cards to nine piles); moves for a game are read with its
// [Variant.ParseMove], since Double Klondike has piles T8 and T9:
//
//	r := engine.DefaultRulesFor(engine.DoubleKlondike)
//	g, err := engine.NewGame(engine.NumberedDealFor(r.Game, 7), r)
//	m, err := r.Game.ParseMove("T9-T8")
//
// A layout brought from elsewhere is imported from its canonical JSON. Every
// error of [ParseDeal] wraps [ErrBadDeal] and names the problem, such as a duplicate card:
//
//	d, err := engine.ParseDeal(data) // {"tableau":[["QH"],…],"stock":[…]}
//	if err != nil {
//		return err // errors.Is(err, engine.ErrBadDeal)
//	}
//	g, err := engine.NewGame(d, r)
//
// A game may be over as soon as it starts: some deals leave no useful move
// at all (deal #10 in draw 3, for one), and [NewGame] returns them with
// status [Stuck].
//
// # Moves and refusals
//
// Moves are written in the notation D R W-Tn W-F Tn-F Tn-Tm Tn:k-Tm Fs-Tn U Y.
// [ParseMove] reads it in either case; [Move.String] writes it canonically:
//
//	m, err := engine.ParseMove("t6-f")
//	if err != nil {
//		return err // a *ParseError; errors.Is(err, engine.ErrSyntax)
//	}
//	fmt.Println(m) // T6-F
//
// Moves can also be built directly: DrawMove, RecycleMove, WasteToPile(3),
// WasteUp, PileUp(6), PileToPile(7, 6, 0), FoundationDown(engine.Hearts, 5),
// UndoMove and RedoMove.
//
// [Game.Apply] plays a move if the rules allow it, turning up any card it exposes,
// and returns what the move did:
//
//	ev, err := g.Apply(m)
//	if err != nil {
//		fmt.Println("refused:", err) // the game is unchanged
//	}
//	if ev.Has(engine.Revealed) {
//		// a face-down card turned face up
//	}
//	fmt.Println(ev.Names()) // [revealed to_foundation]
//
// Every refusal matches [ErrIllegal], and also the sentinel of the rule it
// broke, so callers test reasons with errors.Is. Many refusals are a
// [*MoveError], whose message names the cards before the rule:
//
//	_, err = g.Apply(engine.PileToPile(1, 2, 0))
//	fmt.Println(err)                             // QH on TS: a card goes on a face-up card one rank higher of the opposite colour
//	fmt.Println(errors.Is(err, engine.ErrBuild)) // true
//	var me *engine.MoveError
//	if errors.As(err, &me) {
//		fmt.Println(me.Move, me.Detail) // T1-T2 QH on TS
//	}
//
// # Undo
//
// U takes the last move back exactly, its score and any card it turned face
// up included, if the game's [UndoPolicy] allows it. [Game.CanUndo] says whether it
// would be accepted now:
//
//	if g.CanUndo() {
//		_, err = g.Apply(engine.UndoMove())
//	}
//
// Under [UndoNoReveal], U after a move that turned a card face up is refused
// with [ErrUndoReveal]; under [UndoOff] always with [ErrUndoOff].
// [Game.Moves] counts every accepted move, undos included.
//
// Y plays again the move U last took back ([Game.CanRedo]); any other move
// clears what could be redone. It reports the events of that move and
// [Redid], and is refused with [ErrUndoOff] under UndoOff.
//
// # Legal moves
//
// [Game.LegalMoves] appends every move Apply would accept now, in a fixed order
// (D, R, W-F, W-Tn, Tn-F, Tn-Tm, Fs-Tn, U), and does not allocate when the
// slice has room:
//
//	buf := make([]engine.Move, 0, 64)
//	for _, m := range g.LegalMoves(buf[:0]) {
//		fmt.Println(m)
//	}
//
// A bot or client that holds only a player's view gets the same list from it,
// except U, which a view cannot tell about ([View.LegalMoves]):
//
//	var v engine.View
//	if err := json.Unmarshal(viewJSON, &v); err != nil {
//		return err
//	}
//	moves := v.LegalMoves(rules, nil)
//
// [Game.SafeMove] suggests a card that can go to its foundation without any risk,
// and [Game.AutoComplete], once every tableau card is face up, returns the moves that
// finish the game; the caller plays them one by one like any other move:
//
//	if moves, ok := g.AutoComplete(); ok {
//		for _, m := range moves {
//			if _, err := g.Apply(m); err != nil {
//				return err
//			}
//		}
//	}
//
// # The player's view
//
// [Game.View] returns what the player may see and nothing more: face-up cards,
// counts of face-down cards, the stock's size, the visible top of the waste
// and the foundations' counts. Its JSON is the protocol's "view" object.
// The engine has no clock, so the caller gives the time since the round
// started:
//
//	v := g.View(elapsed.Milliseconds())
//	b, err := json.Marshal(v)
//
// [Game.ViewInto] fills a View the caller keeps, reusing its lists:
//
//	g.ViewInto(&v, elapsed.Milliseconds())
//
// # The text form
//
// A Game prints as a one-line position: the piles, the talon (waste and
// stock), the foundations, the recycles made and the score. [ParseGame] reads
// it back under the rules given. Deal #1 at the start reads:
//
//	fmt.Println(g)
//	// |QH/7H|TS/5D9S|5C/JCKCKH|4C/9HKDQCKS|3C/2D5HAD2SQD|AH/JD7C5S3H9DJS|AS |4HAC4D7S3STD4STH8H2CJH7D6D8S8DQS6C3D8CTC6S9C2H6H ---- 0 0
//	g2, err := engine.ParseGame(text, engine.DefaultRules())
//
// The text form shows every face-down card and the order of the stock: it is
// for fixtures, logs and tools, never for a player during a round.
//
// # Scores and the end of a game
//
// [Game.Score] is the running move points of the game's Scoring, with no time
// adjustment. A timed round ranks players by [TimedScore], given the time on
// the server's clock; in standard scoring that is the points less 2 for every
// full 10 seconds (never below 0), plus 700000 divided by the whole seconds,
// rounded down, for a game won in 30 seconds or more. Vegas and none have no time adjustment.
//
//	fmt.Println(g.TimedScore(95 * time.Second))
//	fmt.Println(engine.TimedScore(engine.ScoringStandard, 655, 183*time.Second, true)) // 4444
//
// [Game.Status] tells how the game stands. Apply ends it as [Won] when the
// last card goes up and as [Stuck] when no useful move is left (see
// [Game.IsStuck]); the owner ends it with [Game.Resign] or [Game.TimeOut].
// After that every move is refused with [ErrGameOver]:
//
//	if err := g.Resign(); err != nil {
//		return err // ErrGameOver: it had already ended
//	}
//	fmt.Println(g.Status()) // resigned
package engine
