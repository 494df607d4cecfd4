// Package client is the Go client of klondiked's WebSocket protocol: the
// one connection that the terminal client (cmd/klondike), the tests
// (api/apitest) and the load generator's bots (loadtest) speak through.
//
// A Conn dials the server, sends the protocol's client messages (each
// given the connection's next id) and reads the server's frames, by a read
// loop that hands them on in order. Replies are matched to requests by
// their "re". GetReplay fetches a finished round's replay over HTTP.
//
// It imports only the protocol (api/protocol), the engine and
// gorilla/websocket: a client knows the wire, never the server's packages.
package client
