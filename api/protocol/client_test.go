package protocol_test

import (
	"encoding/json"
	"strings"
	"testing"

	"klondike/api/protocol"
)

// TestClientMessages: each client message writes the frame of
// docs/protocol.md, and reads back as itself.
func TestClientMessages(t *testing.T) {
	ready := false
	for _, c := range []struct {
		msg  any
		want string
	}{
		{protocol.Hello{Type: protocol.TypeHello, ID: "1", Name: "alice"}, `{"type":"hello","id":"1","name":"alice"}`},
		{protocol.Hello{Type: protocol.TypeHello, Token: "ee91"}, `{"type":"hello","token":"ee91"}`},
		{protocol.ListMatches{Type: protocol.TypeListMatches, ID: "v"}, `{"type":"list_matches","id":"v"}`},
		{protocol.ListMatches{Type: protocol.TypeListMatches, ID: "w", Limit: 100, Cursor: "1e"},
			`{"type":"list_matches","id":"w","limit":100,"cursor":"1e"}`},
		{protocol.MatchRef{Type: protocol.TypeJoinMatch, ID: "2", Code: "VJPYET"}, `{"type":"join_match","id":"2","code":"VJPYET"}`},
		{protocol.MatchRef{Type: protocol.TypeReady, ID: "3", MatchID: "35c60f3cec9ddca4", Ready: &ready},
			`{"type":"ready","id":"3","match_id":"35c60f3cec9ddca4","ready":false}`},
		{protocol.MatchRef{Type: protocol.TypeLeaveMatch, ID: "9"}, `{"type":"leave_match","id":"9"}`},
		{protocol.Move{Type: protocol.TypeMove, ID: "5", RoundID: "3418e212c6f57ca6", Seq: 2, Move: "T5-T4"},
			`{"type":"move","id":"5","round_id":"3418e212c6f57ca6","seq":2,"move":"T5-T4"}`},
		{protocol.Resign{Type: protocol.TypeResign, ID: "7", RoundID: "3418e212c6f57ca6"}, `{"type":"resign","id":"7","round_id":"3418e212c6f57ca6"}`},
		{protocol.Hint{Type: protocol.TypeHint, ID: "8", RoundID: "3418e212c6f57ca6"}, `{"type":"hint","id":"8","round_id":"3418e212c6f57ca6"}`},
	} {
		got, err := json.Marshal(c.msg)
		if err != nil {
			t.Fatal(err)
		}
		if string(got) != c.want {
			t.Errorf("%T %+v:\n got %s\nwant %s", c.msg, c.msg, got, c.want)
		}
	}
}

// TestCreateMatchSettings: the settings a client leaves out are absent
// for the server, which fills in their defaults.
func TestCreateMatchSettings(t *testing.T) {
	draw, public := 1, true
	b, err := json.Marshal(protocol.CreateMatch{Type: protocol.TypeCreateMatch, ID: "2",
		Settings: protocol.PartialSettings{Draw: &draw, Public: &public}})
	if err != nil {
		t.Fatal(err)
	}
	if want := `{"type":"create_match","id":"2","settings":{"draw":1,"public":true}}`; string(b) != want {
		t.Fatalf("create_match writes %s, want %s", b, want)
	}
	var m protocol.CreateMatch
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatal(err)
	}
	if m.Type != protocol.TypeCreateMatch || m.ID != "2" || *m.Settings.Draw != 1 || !*m.Settings.Public || m.Settings.Rounds != nil {
		t.Errorf("%s reads as %+v", b, m)
	}
}

func TestClientFields(t *testing.T) {
	msgs := []any{
		&protocol.Hello{Type: protocol.TypeHello}, &protocol.CreateMatch{Type: protocol.TypeCreateMatch},
		&protocol.ListMatches{Type: protocol.TypeListMatches}, &protocol.MatchRef{Type: protocol.TypeJoinMatch},
		&protocol.Move{Type: protocol.TypeMove}, &protocol.Resign{Type: protocol.TypeResign}, &protocol.Hint{Type: protocol.TypeHint},
	}
	for _, msg := range msgs {
		id, typ, ok := protocol.ClientFields(msg)
		if !ok || id == nil {
			t.Fatalf("ClientFields(%T) = %v, %q, %v; want the id's place", msg, id, typ, ok)
		}
		*id = "7"
		if b, _ := json.Marshal(msg); !strings.Contains(string(b), `"id":"7"`) || !strings.Contains(string(b), `"type":"`+typ+`"`) {
			t.Errorf("ClientFields(%T): setting the id gave %s, type %q", msg, b, typ)
		}
	}
	for _, msg := range []any{protocol.Hello{}, &protocol.Welcome{}, "hello"} {
		if _, _, ok := protocol.ClientFields(msg); ok {
			t.Errorf("ClientFields(%T) ok, want not a client message", msg)
		}
	}
}
