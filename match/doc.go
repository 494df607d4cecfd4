// Package match plays matches: one or more rounds on seeded deals for a set
// of players, every move checked by the engine on the server's clock.
//
// A Match is an actor: one goroutine runs its commands in order (join,
// ready, start, leave, the clock's events), each a compare-and-set of the
// match's record in the Coord, so that several server nodes can serve one
// match's players (see Match). A Round is one deal with a seat per player;
// a move locks only its player's seat, checks the move against the engine,
// and is in the Store (the round's move log and the player's standing)
// before it is acknowledged (Round.Move). Deals are drawn and committed to
// as in FairDeal; rounds are ranked by Rank.
//
// The package builds no wire messages: a match produces events
// (MatchUpdate, RoundStarting, RoundStarted, Leaderboard, RoundOver,
// MatchOver, and for an attempt at a challenge GhostUpdate and AttemptOver,
// which lobby/challenge sends) and hands them to its Sink, which writes
// them for the wire (the api's Hub). Its record keeps the last RoundOver
// and the MatchOver as events, and nodes tell each other events as their
// kind and JSON (EventKind, DecodeEvent).
//
// The interfaces it needs are declared here: Store (move logs and
// standings), Coord (the match's record, round records, the bus between
// nodes, leases) and Sink (delivery to players). lobby/memstore and
// lobby/redisstore implement them; lobby/storetest is the suite every
// implementation passes.
//
// Challenges are lobby/challenge's. Of their values, match keeps only what
// its own code names: BoardEntry and Ghost, which its events AttemptOver
// and GhostUpdate carry, and an attempt's round id (AttemptRoundID,
// SplitAttemptRoundID), by which a Round knows it is an attempt and gives
// no hints.
package match
