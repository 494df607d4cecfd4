package main

import (
	"bufio"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"strconv"
	"strings"
	"time"

	"klondike/api/client"
	"klondike/api/protocol"
	"klondike/engine"
)

// roundCheck is the first line of a round replay: the deal's proof.
type roundCheck struct {
	Round        string `json:"round"`
	Seed         string `json:"seed"`
	KnownDeal    bool   `json:"known_deal"`
	CommitmentOK *bool  `json:"commitment_ok"` // null for a known deal
	LayoutOK     bool   `json:"layout_ok"`
}

// playerCheck is the line of one player of a round replay.
type playerCheck struct {
	PlayerID   string                  `json:"player_id"`
	Name       string                  `json:"name"`
	Won        bool                    `json:"won"`
	Status     string                  `json:"status"`
	Points     int                     `json:"points"`
	Moves      int                     `json:"moves"`
	Foundation engine.FoundationCounts `json:"foundation"`
	// Foundation2 and FoundationBase are as in replaySummary: Double
	// Klondike's second foundations, Whitehead's base rank.
	Foundation2    *engine.FoundationCounts `json:"foundation2,omitempty"`
	FoundationBase int                      `json:"foundation_base,omitempty"`
	Illegal        int                      `json:"illegal"`
	TimedScore     int                      `json:"timed_score"`
	RecordedScore  int                      `json:"recorded_score"`
	Verified       bool                     `json:"verified"`
}

// loadRound reads a round's replay, as the server publishes it
// (GET /api/v1/rounds/{id}/replay), from a file, stdin ("-") or an
// http(s) URL.
func loadRound(src string, stdin io.Reader) (*protocol.Replay, error) {
	var rep *protocol.Replay
	var err error
	switch {
	case src == "-":
		rep, err = client.ReadReplay(stdin)
	case strings.HasPrefix(src, "http://") || strings.HasPrefix(src, "https://"):
		rep, err = client.GetReplay(context.Background(), &http.Client{Timeout: 30 * time.Second}, src)
		var se *client.StatusError
		if errors.As(err, &se) {
			return nil, badInput{fmt.Errorf("%s: %s (a replay is published when its round ends)", src, se.Status)}
		}
		var ue *url.Error
		if errors.As(err, &ue) {
			return nil, badInput{err}
		}
	default:
		f, ferr := os.Open(src)
		if ferr != nil {
			return nil, badInput{ferr}
		}
		defer f.Close()
		rep, err = client.ReadReplay(f)
	}
	if err != nil {
		return nil, badInput{fmt.Errorf("round replay %s: %w", src, err)}
	}
	if err := rep.Rules.Validate(); err != nil {
		return nil, badInput{fmt.Errorf("round replay %s: %w", src, err)}
	}
	return rep, nil
}

// replayRound verifies a server's round replay: the commitment against the
// revealed seed and salt, the layout against the seed, and every player's
// moves through the engine to the recorded round score. The game is the
// one the replay's rules name (Klondike when they name none); game, when
// not nil, is the one --game asked for, which must be the same. It prints
// one line for the deal, then one a player.
func replayRound(src string, game *engine.Variant, stdin io.Reader, stdout, stderr io.Writer) int {
	rep, err := loadRound(src, stdin)
	if err != nil {
		return inputError(stderr, "replay", err)
	}
	if game != nil && *game != rep.Rules.Game {
		return inputError(stderr, "replay", badInput{fmt.Errorf("round replay: a round of %v, not of %v (--game)", rep.Rules.Game, *game)})
	}
	seed, err := strconv.ParseUint(rep.Seed, 10, 64)
	if err != nil {
		return inputError(stderr, "replay", badInput{fmt.Errorf("round replay: seed %q is not a deal number", rep.Seed)})
	}
	deal := engine.NumberedDealFor(rep.Rules.Game, seed)
	a, _ := json.Marshal(deal)
	b, _ := json.Marshal(rep.Layout)
	check := roundCheck{Round: rep.RoundID, Seed: rep.Seed, KnownDeal: rep.KnownDeal, LayoutOK: string(a) == string(b)}
	ok := check.LayoutOK
	if !rep.KnownDeal {
		sum := sha256.Sum256([]byte(rep.Salt + ":" + rep.Seed))
		c := hex.EncodeToString(sum[:]) == rep.Commitment
		check.CommitmentOK = &c
		ok = ok && c
	}
	w := bufio.NewWriter(stdout)
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	enc.Encode(check)
	for _, p := range rep.Players {
		g, err := engine.NewGame(deal, rep.Rules)
		if err != nil {
			return inputError(stderr, "replay", badInput{err})
		}
		pc := playerCheck{PlayerID: p.PlayerID, Name: p.Name, RecordedScore: p.Score}
		for _, e := range p.Moves {
			m, err := rep.Rules.Game.ParseMove(e.Move)
			if err == nil {
				_, err = g.Apply(m)
			}
			if err != nil {
				pc.Illegal++
			}
		}
		won := g.Status() == engine.Won
		pc.Won, pc.Status, pc.Points, pc.Moves = won, g.Status().String(), g.Score(), g.Moves()
		if !won && g.Status() == engine.Playing && p.Status != "" {
			pc.Status = p.Status // resigned or timed out: the log ends there
		}
		pc.Foundation = foundationCounts(g)
		pc.Foundation2, pc.FoundationBase = gameFoundations(g)
		pc.TimedScore = engine.TimedScore(rep.Rules.Scoring, g.Score(), time.Duration(p.Elapsed)*time.Millisecond, won)
		pc.Verified = pc.Illegal == 0 && pc.TimedScore == p.Score && pc.Status == p.Status
		ok = ok && pc.Verified
		enc.Encode(pc)
	}
	status := exitOK
	if !ok {
		status = exitFailure
	}
	return flush(w, stderr, "replay", status)
}

var errRoundWithMoves = errors.New("--round replays the moves in the round file: give no moves file and no --seed or --deal")
