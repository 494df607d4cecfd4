package api

import "klondike/api/ws"

// Limits are the WebSocket server's protective limits: the transport's
// (ws.Limits), where each field and what its zero value means is
// described.
type Limits = ws.Limits

// The defaults of the WebSocket limits (see ws).
const (
	DefaultReadLimit     = ws.DefaultReadLimit
	DefaultHelloTimeout  = ws.DefaultHelloTimeout
	DefaultPongWait      = ws.DefaultPongWait
	DefaultWriteWait     = ws.DefaultWriteWait
	DefaultCloseWait     = ws.DefaultCloseWait
	DefaultSendQueue     = ws.DefaultSendQueue
	DefaultSendBudget    = ws.DefaultSendBudget
	DefaultMsgRate       = ws.DefaultMsgRate
	DefaultMsgBurst      = ws.DefaultMsgBurst
	DefaultMaxConnsPerIP = ws.DefaultMaxConnsPerIP
)
