package main

import (
	"io"
	"net/http"
	"testing"
	"time"
)

// The asynchronous attacks, each briefly against a server of its own: they
// run, count what they did and report the server's answers, whatever
// limits the server has.

func TestAttackBulkAttempts(t *testing.T) {
	t.Parallel()
	url := attackServer(t, &http.Server{}, nil)
	r := runOne(t, url, attackConfig{Name: "bulk-attempts", Conns: 1, Count: 20, Duration: 200 * time.Millisecond, Wait: 400 * time.Millisecond}).(*bulkAttemptsResult)
	if r.Players == 0 || r.Challenges == 0 || r.Started == 0 || r.Started > 20 {
		t.Errorf("players %d, challenges %d, attempts %d: want some of each, at most 20 attempts", r.Players, r.Challenges, r.Started)
	}
	if len(r.Server) != 5 || len(r.Honest.Phases) != 5 || r.Honest.Phases[0].Latency.Count == 0 || r.Honest.Error != "" {
		t.Errorf("server phases %+v, honest %+v: want 5 phases each, honest moves before the attack, no error", r.Server, r.Honest)
	}
	if r.Retries == 0 || r.HoldS < 0.15 {
		t.Errorf("held %.2f s with %d retries: want the attempts held for --duration, retrying", r.HoldS, r.Retries)
	}
	if r.Server[0].Error != "" || r.Server[1].CPUCores <= 0 {
		t.Errorf("server phases %+v: want /metrics read, CPU spent during the attack", r.Server)
	}
}

func TestAttackAttemptResume(t *testing.T) {
	t.Parallel()
	url := attackServer(t, &http.Server{}, nil)
	r := runOne(t, url, attackConfig{Name: "attempt-resume", Count: 150, Duration: 300 * time.Millisecond, Wait: 10 * time.Second}).(*resumeResult)
	if r.Moves == 0 || r.Moves > 150 || r.Stopped == "" {
		t.Errorf("log of %d moves, stopped by %q: want 1..150 and a reason", r.Moves, r.Stopped)
	}
	if r.Sent == 0 || r.Answered != r.Sent || r.Latency.Count != uint64(r.Answered) {
		t.Errorf("resumes: %d sent, %d answered (%s), %d timed: want every one answered and timed", r.Sent, r.Answered, r.Replies, r.Latency.Count)
	}
	if len(r.Honest.Phases) != 2 || r.Honest.Phases[0].Latency.Count == 0 {
		t.Errorf("honest %+v: want moves in the quiet phase", r.Honest)
	}
}

func TestAttackBulkChallenges(t *testing.T) {
	t.Parallel()
	url, url2 := attackServer(t, &http.Server{}, nil), attackServer(t, &http.Server{}, nil)
	r := runOne(t, url, attackConfig{Name: "bulk-challenges", Server2: url2, Conns: 4, Duration: 3 * time.Second}).(*bulkChallengesResult)
	if len(r.Servers) != 2 || r.Players[0] != 2 || r.Players[1] != 2 || r.Challenges[0] == 0 || r.Challenges[1] == 0 {
		t.Errorf("players %v, challenges %v on %v: want 2 players a server, each with challenges", r.Players, r.Challenges, r.Servers)
	}
	if r.FirstMin != r.Challenges[0]+r.Challenges[1] {
		t.Errorf("first minute %d, challenges %v: want every one in the first minute", r.FirstMin, r.Challenges)
	}
}

func TestAttackDailyProbe(t *testing.T) {
	t.Parallel()
	url := attackServer(t, &http.Server{}, nil)
	r := runOne(t, url, attackConfig{Name: "daily-probe", Conns: 3, Count: 15, Duration: 5 * time.Second}).(*dailyProbeResult)
	if r.Tried != 3 || r.Probes == 0 || r.Ended != r.Probes || r.StockSize == 0 || r.WasteSeen == 0 || r.CardsSeen == 0 {
		t.Errorf("%+v: want 3 players tried, probes started and ended, cards seen", r)
	}
	if r.BoardError != "" || r.BoardCount != r.Ended || r.BestRank < 1 {
		t.Errorf("board: %d entries (%s), best rank %d: want every probe on it", r.BoardCount, r.BoardError, r.BestRank)
	}
}

func TestAttackServer2Flag(t *testing.T) {
	for _, args := range [][]string{
		{"--attack", "daily-probe", "--server", "ws://127.0.0.1:1/ws", "--attack-server2", "ws://127.0.0.1:2/ws"},
		{"--attack", "bulk-challenges", "--server", "ws://127.0.0.1:1/ws", "--attack-server2", "ws://10.0.0.1:2/ws"},
	} {
		if _, _, err := parseFlags(args, io.Discard); err == nil {
			t.Errorf("parseFlags(%q) accepted", args)
		}
	}
	_, ac, err := parseFlags([]string{"--attack", "bulk-challenges", "--server", "ws://127.0.0.1:1/ws", "--attack-server2", "ws://127.0.0.1:2/ws"}, io.Discard)
	if err != nil || ac.Server2 != "ws://127.0.0.1:2/ws" {
		t.Errorf("parseFlags: %+v, %v; want the second server", ac, err)
	}
}
