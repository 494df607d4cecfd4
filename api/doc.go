// Package api is klondiked's HTTP and WebSocket server: the routes
// (Server, described in openapi.json), the Service that answers every
// WebSocket message through one table from message type to handler
// (dispatch.go, challenges.go), the Hub that delivers the matches' events
// to the players' connections (the match.Sink), the one conversion from
// domain values to the wire's (wireof.go), the HTTP server's limits,
// Prometheus metrics and hints through the solver.
//
// It is handed what it serves: cmd/klondiked opens the backends and builds
// the lobby and the challenge service, then NewServer puts them on the
// WebSocket transport of api/ws. The wire types are api/protocol's, and
// the speed tricks of the move path are in api/internal/fast.
package api
