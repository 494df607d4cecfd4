// Package wstest has what tests of WebSocket servers share: a listener
// whose connections are in-memory pipes, so that a server and its clients
// run inside a testing/synctest bubble, on the bubble's clock.
package wstest

import (
	"context"
	"net"
	"sync"
)

// PipeListener is a net.Listener whose connections are net.Pipe pairs,
// made by its Dial.
type PipeListener struct {
	conns chan net.Conn
	done  chan struct{}
	once  sync.Once
}

// NewPipeListener returns a listener with no connection yet.
func NewPipeListener() *PipeListener {
	return &PipeListener{conns: make(chan net.Conn), done: make(chan struct{})}
}

// Accept waits for the next Dial, or for Close.
func (l *PipeListener) Accept() (net.Conn, error) {
	select {
	case c := <-l.conns:
		return c, nil
	case <-l.done:
		return nil, net.ErrClosed
	}
}

// Close makes Accept and Dial fail with net.ErrClosed.
func (l *PipeListener) Close() error {
	l.once.Do(func() { close(l.done) })
	return nil
}

// Addr returns the listener's address, "pipe".
func (l *PipeListener) Addr() net.Addr { return pipeAddr{} }

// Dial connects to the listener; it fits websocket.Dialer's NetDialContext.
func (l *PipeListener) Dial(ctx context.Context, _, _ string) (net.Conn, error) {
	client, server := net.Pipe()
	select {
	case l.conns <- server:
		return client, nil
	case <-l.done:
		return nil, net.ErrClosed
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

type pipeAddr struct{}

func (pipeAddr) Network() string { return "pipe" }
func (pipeAddr) String() string  { return "pipe" }
