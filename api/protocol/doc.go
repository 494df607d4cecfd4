// Package protocol is klondiked's WebSocket protocol, version 1, as Go
// types: the name of every message, every message a client sends and the
// server sends with its JSON fields, the error codes, and the close codes
// and reasons. docs/protocol.md describes it in words; these types are what
// the server, the terminal client (cmd/klondike), the load generator and
// the tests all read and write.
//
// A client sends a message by filling its type, with its Type set to the
// message's name:
//
//	b, _ := json.Marshal(protocol.Move{Type: protocol.TypeMove, ID: "5",
//		RoundID: roundID, Seq: 2, Move: "T5-T4"})
//
// and reads a server message by its "type" first (Header), then as the
// type of that name:
//
//	var h protocol.Header
//	_ = json.Unmarshal(frame, &h)
//	switch h.Type {
//	case protocol.TypeMoveOK:
//		var m protocol.MoveOK
//		_ = json.Unmarshal(frame, &m)
//	}
//
// The package stands alone: it imports nothing of the server but the
// engine (cards, moves, rules, views), so a client needs nothing else. The
// objects the messages carry (MatchInfo, Settings, Entry, Total, AsyncInfo,
// BoardPage, ...) are its own types; the server fills them from its match
// and lobby values in one place (api/wireof.go).
package protocol
