package main

import (
	"klondike/api/protocol"
	"klondike/engine"
)

// The client speaks the protocol of klondike/api/protocol, whose types it
// sends and reads. Two messages carry the player's board as JSON the
// protocol leaves raw; the client reads them with the board decoded as an
// engine.View (the outer View field takes "view" from the embedded one).
type (
	roundStartedMsg struct {
		protocol.RoundStarted
		View engine.View `json:"view"`
	}
	moveOKMsg struct {
		protocol.MoveOK
		View engine.View `json:"view"`
	}
)
