package wstest

import (
	"encoding/json"
	"testing"
	"time"

	"github.com/gorilla/websocket"
)

// IOWait bounds each Send and Recv.
const IOWait = 5 * time.Second

// Send writes msg as a text frame, failing the test if it cannot.
func Send(t testing.TB, c *websocket.Conn, msg string) {
	t.Helper()
	c.SetWriteDeadline(time.Now().Add(IOWait))
	if err := c.WriteMessage(websocket.TextMessage, []byte(msg)); err != nil {
		t.Fatalf("send %s: %v", msg, err)
	}
}

// Recv reads the next frame as a JSON object, failing the test if none
// comes within IOWait or it is not JSON.
func Recv(t testing.TB, c *websocket.Conn) map[string]any {
	t.Helper()
	c.SetReadDeadline(time.Now().Add(IOWait))
	_, b, err := c.ReadMessage()
	if err != nil {
		t.Fatalf("recv: %v", err)
	}
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatalf("recv: not JSON: %s", b)
	}
	return m
}
