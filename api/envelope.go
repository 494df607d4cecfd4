package api

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"klondike/api/internal/fast"
	"klondike/api/protocol"
)

// maxIDLen is the longest "id" a client message may carry.
const maxIDLen = protocol.MaxIDLen

// Envelope is a decoded client message: its type, optional id, and the whole raw object.
type Envelope struct {
	Type string
	ID   string
	Raw  []byte // the whole frame (a JSON object); the handler decodes its own fields

	move *fast.MoveFields // a move's fields, when fast.ScanMove read the frame: &moveBuf
	// moveBuf holds them, so that the Envelope and the fields are one
	// allocation.
	moveBuf fast.MoveFields
	// cmd is the storage of the context of the message's handling (see
	// commandContext).
	cmd     fast.CmdContext
	cmdUsed bool
}

// commandContext returns the context of the message's handling: parent
// with the deadline d, as context.WithDeadline(parent, d) but lazily (see
// fast.CmdContext). The caller must call its Cancel when the handling is
// over.
// The first one is kept in the Envelope itself, so that a message is one
// allocation; another (a message handled twice) gets its own, since the
// first may be held on to after it ended (an abandoned match command
// checks its context's Err when its turn comes).
func (env *Envelope) commandContext(parent context.Context, d time.Time) *fast.CmdContext {
	c := &env.cmd
	if env.cmdUsed {
		c = new(fast.CmdContext)
	}
	env.cmdUsed = true
	c.Start(parent, d)
	return c
}

// decodeEnvelope reads a frame's type and id. When the frame is not a
// JSON object with a string "type" (and, if present, a string "id" of at
// most maxIDLen characters) it returns a nil Envelope, the id if one could be
// read, and what is wrong.
func decodeEnvelope(data []byte) (env *Envelope, re, problem string) {
	if f, ok := fast.ScanMove(data, maxIDLen); ok {
		env := &Envelope{Type: f.Type, ID: f.ID, Raw: data}
		if f.Type == protocol.TypeMove {
			env.moveBuf = f.Move
			env.move = &env.moveBuf
		}
		return env, "", ""
	}
	return decodeEnvelopeJSON(data)
}

// decodeEnvelopeJSON is decodeEnvelope through encoding/json, for every
// frame fast.ScanMove leaves.
func decodeEnvelopeJSON(data []byte) (env *Envelope, re, problem string) {
	// Two fields of a struct rather than a map of every field: nothing
	// is made for the fields the handler decodes itself. Keys match as encoding/json matches
	// struct fields, ignoring ASCII case, as every handler's own decoding
	// of the other fields already does.
	var head struct {
		Type json.RawMessage `json:"type"`
		ID   json.RawMessage `json:"id"`
	}
	if !isObject(data) || json.Unmarshal(data, &head) != nil {
		return nil, "", "a message must be a JSON object"
	}
	var id string
	if head.ID != nil {
		if err := json.Unmarshal(head.ID, &id); err != nil {
			return nil, "", "id must be a string"
		}
		if len(id) > maxIDLen {
			return nil, "", fmt.Sprintf("id longer than %d characters", maxIDLen)
		}
	}
	if head.Type == nil {
		return nil, id, `missing "type"`
	}
	var typ string
	if err := json.Unmarshal(head.Type, &typ); err != nil || typ == "" {
		return nil, id, `"type" must be a non-empty string`
	}
	return &Envelope{Type: typ, ID: id, Raw: data}, "", ""
}

// isObject reports whether the JSON text data starts as an object (its
// validity is for the decoder to check).
func isObject(data []byte) bool {
	for _, c := range data {
		switch c {
		case ' ', '\t', '\n', '\r':
			continue
		}
		return c == '{'
	}
	return false
}
