package main

import (
	"fmt"

	"klondike/api/client"
	"klondike/api/protocol"
)

// The bots and the attacks speak the protocol of klondike/api/protocol:
// they send its client messages and read the server's frames as inMsg,
// with api/client's decoder.
type inMsg = client.Message

// clientFields returns where the id of msg goes and the message's type:
// msg is a pointer to one of the protocol's client messages that the bots
// and the attacks send.
func clientFields(msg any) (id *string, typ string) {
	id, typ, ok := protocol.ClientFields(msg)
	if !ok {
		panic(fmt.Sprintf("loadtest: %T is not a client message", msg))
	}
	return id, typ
}
