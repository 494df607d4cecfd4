// Package fast holds the speed tricks of package api: code that does what
// a plain path (encoding/json, context.WithDeadline) does, for less work or
// fewer allocations on the hot path of a move. Each trick has a test that
// holds it to its plain path, so that it can be trusted or dropped without
// a change of behaviour.
//
// ScanMove reads the move frames most of the traffic is without
// reflection; CmdContext is context.WithDeadline made lazily, so that a
// message whose handling never waits costs no timer; AppendViewJSON and
// MoveOK write the answer to every move, its view included, by hand.
package fast
