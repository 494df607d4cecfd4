package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"net/http"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/gorilla/websocket"

	"klondike/api/protocol"
	"klondike/engine"
)

// The baseline: a bare WebSocket server with the same shape of work per
// move as klondiked's connection layer (gorilla, a send queue between the
// reader and a writer, the envelope decoded as a JSON object and then the
// message's own fields, the reply encoded with encoding/json and a
// view-sized payload) and nothing else: no lobby, no rules, no store. It
// keeps the textbook one reader and one writer goroutine per connection
// for its whole life (klondiked's writer runs only while it has something
// to write). The same bots play against it, so a run's throughput
// divided by the echo's is how much of the machine's WebSocket limit the
// server reaches.

// echoServer answers hello with a welcome and every move with a move_ok
// carrying a fixed mid-game view.
type echoServer struct {
	view     json.RawMessage
	upgrader websocket.Upgrader
	players  atomic.Int64
	wg       sync.WaitGroup
	mu       sync.Mutex
	conns    map[*websocket.Conn]struct{}
	log      moveLog // nil: moves are not logged
}

// moveLog is where the echo logs each move before it answers: Redis lists
// (echoLog, --echo-redis) or the Redis store (storeLog, --echo-store).
type moveLog interface {
	// append logs the player's move and returns once it is kept, or the
	// error that kept it out.
	append(player string, seq int, move string) error
	// close waits for the appends under way and releases the connection.
	close()
}

// echoPlayerPrefix and a number from 1 up, in the order of connection, name
// the echo's players.
const echoPlayerPrefix = "echo"

// echoPosition returns a mid-game position under rules: the opening of
// deal #1 after some moves, its view's JSON and the view. It is what every
// move_ok of the echo server shows, so the bots' work per move (decoding
// the view, listing its legal moves) is that of a real game.
func echoPosition(rules engine.Rules) (json.RawMessage, engine.View, error) {
	g, err := engine.NewGame(engine.NumberedDeal(1), rules)
	if err != nil {
		return nil, engine.View{}, err
	}
	var buf []engine.Move
	for i := 0; i < 12; i++ {
		buf = g.LegalMoves(buf[:0])
		if len(buf) == 0 {
			break
		}
		// The first move that is not a draw, else the draw: deterministic.
		mv := buf[0]
		for _, m := range buf {
			if m.Kind != engine.Draw && m.Kind != engine.Recycle && m.Kind != engine.Undo {
				mv = m
				break
			}
		}
		before := g.Clone()
		if _, err := g.Apply(mv); err != nil || g.Status() != engine.Playing {
			g = before
			break
		}
	}
	raw, err := json.Marshal(g.View(12345))
	if err != nil {
		return nil, engine.View{}, err
	}
	var v engine.View
	if err := json.Unmarshal(raw, &v); err != nil {
		return nil, engine.View{}, err
	}
	if v.Status != engine.Playing || len(v.LegalMoves(rules, nil)) == 0 {
		return nil, engine.View{}, errors.New("echo position has no legal move")
	}
	return raw, v, nil
}

// echoEvents are the events of every echo move_ok.
var echoEvents = engine.Drew.Names()

// startEcho listens on a loopback port and serves the echo protocol at /ws.
// The returned stop closes every connection and the listener.
// It also serves GET /metrics with its process's CPU time and resident
// memory, so that the baseline run as a process of its own (--echo-listen)
// is measured as an external klondiked is.
//
// With log, every move is logged before its move_ok (--echo-redis,
// --echo-store).
func startEcho(addr string, view json.RawMessage, log moveLog) (wsURL string, stop func(), err error) {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return "", nil, err
	}
	e := &echoServer{
		view:  view,
		log:   log,
		conns: map[*websocket.Conn]struct{}{},
		upgrader: websocket.Upgrader{
			ReadBufferSize: 1024, WriteBufferSize: 1024, WriteBufferPool: &sync.Pool{},
			CheckOrigin: func(*http.Request) bool { return true },
		},
	}
	mux := http.NewServeMux()
	mux.HandleFunc("GET /ws", e.serve)
	mux.HandleFunc("GET /metrics", func(w http.ResponseWriter, r *http.Request) {
		p := selfSample()
		w.Header().Set("Content-Type", "text/plain; version=0.0.4")
		fmt.Fprintf(w, "process_cpu_seconds_total %g\nprocess_resident_memory_bytes %g\n", p.CPUSeconds, p.RSSBytes)
	})
	hs := &http.Server{Handler: mux, ReadHeaderTimeout: 5 * time.Second}
	go hs.Serve(ln)
	stop = func() {
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
		defer cancel()
		_ = hs.Shutdown(ctx)
		e.mu.Lock()
		for c := range e.conns {
			c.Close()
		}
		e.mu.Unlock()
		e.wg.Wait()
	}
	return "ws://" + ln.Addr().String() + "/ws", stop, nil
}

func (e *echoServer) serve(w http.ResponseWriter, r *http.Request) {
	ws, err := e.upgrader.Upgrade(w, r, nil)
	if err != nil {
		return
	}
	e.mu.Lock()
	e.conns[ws] = struct{}{}
	e.wg.Add(1)
	e.mu.Unlock()
	defer func() {
		e.mu.Lock()
		delete(e.conns, ws)
		e.mu.Unlock()
		ws.Close()
		e.wg.Done()
	}()
	ws.SetReadLimit(4096)
	send := make(chan []byte, 256)
	done := make(chan struct{})
	writerDone := make(chan struct{})
	go func() { // the writer
		defer close(writerDone)
		for {
			select {
			case <-done:
				return
			case msg := <-send:
				ws.SetWriteDeadline(time.Now().Add(writeWait))
				if err := ws.WriteMessage(websocket.TextMessage, msg); err != nil {
					ws.Close()
					return
				}
			}
		}
	}()
	defer func() {
		close(done)
		<-writerDone
	}()
	queue := func(v any) bool {
		b, err := json.Marshal(v)
		if err != nil {
			return false
		}
		select {
		case send <- b:
			return true
		default: // a slow consumer, as the real server treats one
			return false
		}
	}
	player := echoPlayerPrefix + strconv.FormatInt(e.players.Add(1), 10)
	for { // the reader
		_, data, err := ws.ReadMessage()
		if err != nil {
			return
		}
		var fields map[string]json.RawMessage
		if err := json.Unmarshal(data, &fields); err != nil {
			queue(protocol.Error{Type: protocol.TypeError, Code: protocol.CodeBadRequest, Message: "a message must be a JSON object"})
			continue
		}
		var typ, id string
		_ = json.Unmarshal(fields["type"], &typ)
		_ = json.Unmarshal(fields["id"], &id)
		badRequest := func(err error) bool {
			return queue(protocol.Error{Type: protocol.TypeError, Re: id, Code: protocol.CodeBadRequest, Message: err.Error()})
		}
		var ok bool
		switch typ {
		case protocol.TypeHello:
			var m protocol.Hello
			if err := json.Unmarshal(data, &m); err != nil {
				ok = badRequest(err)
				break
			}
			ok = queue(protocol.Welcome{Type: protocol.TypeWelcome, Re: id, PlayerID: player, Name: m.Name,
				Token: "000000000000000000000000000000000000000000000000", ServerTime: time.Now().UTC()})
		case protocol.TypeMove:
			var m protocol.Move
			if err := json.Unmarshal(data, &m); err != nil {
				ok = badRequest(err)
				break
			}
			if e.log != nil {
				if err := e.log.append(player, m.Seq, m.Move); err != nil {
					ok = queue(protocol.Error{Type: protocol.TypeError, Re: id, Code: protocol.CodeUnavailable, Message: "redis: " + err.Error()})
					break
				}
			}
			ok = queue(protocol.MoveOK{Type: protocol.TypeMoveOK, Re: id, RoundID: m.RoundID, Seq: m.Seq, View: e.view, Events: echoEvents})
		default:
			ok = queue(protocol.Error{Type: protocol.TypeError, Re: id, Code: protocol.CodeBadRequest, Message: "the echo server knows hello and move"})
		}
		if !ok {
			return
		}
	}
}
