package main

import (
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"klondike/api/protocol"
)

// TestPlayDailyEndToEnd plays today's draw 3 deal on the real server: the
// round's description, moves, a resignation, the result and the board;
// then asking to play it again shows the result, and daily lists the day's
// deals.
func TestPlayDailyEndToEnd(t *testing.T) {
	hs := httptest.NewServer(newRealServer(t))
	t.Cleanup(hs.Close)
	url := "ws" + strings.TrimPrefix(hs.URL, "http") + "/ws"

	carol := startPlayer(t, "carol", playConfig{URL: url, Action: "daily", Draw: 3})
	carol.expect("Daily deal " + time.Now().UTC().Format(time.DateOnly) + " (draw3)\n  Rules: draw 3,")
	carol.expect("  Players: 0 started, 0 finished\n")
	carol.expect("Type play to start your game: your clock (15:00) starts then")
	carol.typeLine("moves")
	carol.expect("Your game has not started: type play to start it")
	carol.typeLine("play")
	carol.expect("Daily deal started.")
	carol.expect("  Deal commitment: ")
	carol.expect("Stock: 24")
	carol.typeLine("D")
	carol.expect("D ok (drew)")
	carol.expect("Moves: 1")
	carol.typeLine("resign")
	carol.expect("Resign the daily deal?")
	carol.typeLine("y")
	// resigned and attempt_over may come in either order.
	carol.expect("Daily deal over: resigned at ")
	carol.expect(", score ")
	carol.expect(" 1 move: rank 1 of 1 finished\n")
	carol.expect("The deal and every replay are published when the window closes (")
	carol.expect("Board of Daily deal ")
	carol.expect("(draw3), live: 1 player started, 1 finished\n")
	carol.expect(">  1  carol")
	carol.expect("Your rank: 1 of 1.\n")

	carol.typeLine("daily 3")
	carol.expect("You have played it: resigned at ")
	carol.expect("Your rank: 1 of 1.\n")
	// The list says draw 3 was played, and offers draw 1 alone.
	carol.typeLine("daily")
	carol.expect("Daily deals of ")
	carol.expect("  draw3 ")
	carol.expect("  resigned, rank 1  ")
	carol.expect("  draw1 ")
	carol.expect("  not played  ")
	carol.expect("Type daily 1 to play: one attempt each, on your own clock.\ndaily 3 shows your result and its board.\n")
	carol.typeLine("records")
	carol.expect("Your records:\n")
	carol.expect("  draw3         1    0")
	if err := carol.end(); err != nil {
		t.Fatalf("run: %v", err)
	}
	if out := carol.out.String(); !strings.Contains(out, "You resigned.\n") {
		t.Errorf("no resignation in the output:\n%s", out)
	}
	if carol.client.failed {
		t.Error("the client counts a failure")
	}
}

// TestPlayChallengeEndToEnd: alice creates a challenge, plays and resigns;
// bob opens its link, plays with alice's ghost, and alice's early close
// ends his game; the revealed deal checks out.
func TestPlayChallengeEndToEnd(t *testing.T) {
	hs := httptest.NewServer(newRealServer(t))
	t.Cleanup(hs.Close)
	url := "ws" + strings.TrimPrefix(hs.URL, "http") + "/ws"

	draw := 1
	alice := startPlayer(t, "alice", playConfig{URL: url, Action: "create-challenge", Window: time.Hour,
		Settings: protocol.PartialSettings{Draw: &draw}})
	alice.expect("Challenge created.\nChallenge ")
	id := alice.expect(" by alice\n")
	alice.expect("  Window: closes ")
	alice.expect("Link: " + hs.URL + "/c/" + id + "\nshare: klondike play --server " + url + " --challenge " + id + "\n")
	alice.typeLine("play")
	alice.expect("Challenge started.")
	alice.expect("Stock: 24")
	alice.typeLine("D")
	alice.expect("D ok (drew)")
	alice.typeLine("resign")
	alice.typeLine("y")
	alice.expect("Challenge over: resigned at ")
	alice.expect("Board of Challenge " + id + " by alice, live: 1 player started, 1 finished\n")

	bob := startPlayer(t, "bob", playConfig{URL: url, Action: "challenge", Code: hs.URL + "/c/" + id})
	bob.expect("Challenge " + id + " by alice\n  Rules: draw 1,")
	bob.expect("  Players: 1 started, 1 finished\n")
	bob.typeLine("play")
	bob.expect("Challenge started.")
	bob.typeLine("D")
	bob.expect("D ok (drew)")
	bob.expect("Ghosts at ")
	bob.expect("alice: timed score ")
	bob.expect(", 0 cards home")

	alice.typeLine("close")
	alice.expect("Close challenge " + id + " now?")
	alice.typeLine("y")
	alice.expect("  Window: closed early by its creator (")
	alice.expect("Challenge closed: nobody can start it now.\n")
	alice.expect("salt ")
	alice.expect(": verified, the commitment matches\nlayout checked: deal #")
	alice.expect("Replay: " + hs.URL + "/api/v1/rounds/" + id + "/replay\n")

	// Ties of cards and score are broken by player id: either may rank first.
	bob.expect("Challenge over: timed_out at ")
	bob.expect(" of 2 finished\n")
	bob.expect("Board of Challenge " + id + " by alice, final: 2 players started, 2 finished\n")
	bob.expect("  bob  ")
	for _, p := range []*player{alice, bob} {
		if err := p.end(); err != nil {
			t.Errorf("%s: run: %v", p.name, err)
		}
		if out := p.out.String(); strings.Contains(out, "WARNING") {
			t.Errorf("%s: warning in the output:\n%s", p.name, out)
		}
	}
}
