package protocol

// The WebSocket close codes of the server's own, beyond the standard ones
// it also uses (RFC 6455: 1008 policy violation, 1009 message too big, 1011
// internal error, 1012 service restart). 4000–4999 are for applications
// (RFC 6455 §7.4.2).
const (
	// CloseReplaced: the player opened more connections at once than the
	// server keeps (eight); this, the oldest, is closed in favour of the
	// newest.
	CloseReplaced = 4000
	// CloseSignedOut: the player signed out everywhere or was deleted:
	// the credential this connection said hello with no longer works.
	CloseSignedOut = 4001
	// CloseSlowConsumer: the client did not read its messages fast enough
	// and its send queue overflowed, in messages or in bytes. A client may
	// reconnect and resume.
	CloseSlowConsumer = 4008
)

// The reasons sent with the server's close frames.
const (
	ReasonNoHello    = "no hello"                            // 1008: no successful hello in time
	ReasonRateLimit  = "rate limit exceeded"                 // 1008: a message flood
	ReasonTooBig     = "message too big"                     // 1009: a frame over the read limit
	ReasonInternal   = "internal error"                      // 1011: the server failed handling a message
	ReasonRestarting = "server restarting, please reconnect" // 1012: shutting down; resume
	ReasonReplaced   = "replaced by a newer connection"      // CloseReplaced
	ReasonSlow       = "slow consumer"                       // CloseSlowConsumer
	ReasonSignedOut  = "signed out"                          // CloseSignedOut
)
