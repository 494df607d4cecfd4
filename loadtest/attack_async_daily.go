package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"net/url"
	"sort"
	"sync"
	"time"

	"klondike/api/protocol"
	"klondike/engine"
)

// daily-probe: throwaway players from one address each start today's
// daily deal, play random legal moves, and resign: how many probes the
// server allows, how much of the deal they see together, and where they
// rank on the daily board.

// probeEntry is one probe's end: its board entry as attempt_over gave it,
// and the points its moves made (the view's score, before any time
// penalty).
type probeEntry struct {
	protocol.BoardEntry
	MovePoints int `json:"move_points"`
}

// dailyProbeResult is what daily-probe saw.
type dailyProbeResult struct {
	Source   string  `json:"source_address"`
	RoundID  string  `json:"round_id"`
	Tried    int     `json:"players_tried"`
	Probes   int     `json:"probes"` // attempts started
	Ended    int     `json:"attempts_ended"`
	ElapsedS float64 `json:"elapsed_s"`
	MovesMax int     `json:"moves_a_probe_at_most"`
	Refused  tally   `json:"refused"`
	Statuses tally   `json:"statuses"`
	// StockSize is the deal's stock at the start; WasteSeen the distinct
	// cards the probes saw in the waste (every one came from the stock),
	// AllStockAt the probe after which they had seen all of it (0: never).
	StockSize  int `json:"stock_size"`
	WasteSeen  int `json:"distinct_waste_cards_seen"`
	AllStockAt int `json:"all_stock_seen_after_probes,omitempty"`
	// CardsSeen are the distinct cards seen face up anywhere.
	CardsSeen int          `json:"distinct_cards_seen"`
	BestRank  int          `json:"best_probe_rank_at_end"`
	Entries   []probeEntry `json:"probe_results"`
	// Board is the daily board's top as GET .../leaderboard gave it at the
	// end: every entry there is a probe's when the server had no other
	// player today.
	Board      []protocol.BoardEntry `json:"board_top"`
	BoardCount int                   `json:"board_entries"`
	BoardError string                `json:"board_error,omitempty"`
}

// dailyProbe runs makerWorkers probes at once for --duration, at most
// --attack-conns players in all, each playing at most --attack-count
// moves; a refused hello waits 1/--attack-rate.
func dailyProbe(ctx context.Context, t *target, ac attackConfig) (attackResult, error) {
	src := attackAddr(5) // an address of its own: the other attacks use the first ones
	r := &dailyProbeResult{Source: src, MovesMax: ac.Count, Refused: tally{}, Statuses: tally{}}
	start := time.Now()
	until := start.Add(ac.Duration)
	pause := time.Duration(float64(time.Second) / max(ac.Rate, 0.01))
	var mu sync.Mutex
	waste, seen := map[engine.Card]bool{}, map[engine.Card]bool{}
	take := func() (int, bool) {
		mu.Lock()
		defer mu.Unlock()
		if r.Tried >= ac.Conns || time.Now().After(until) || ctx.Err() != nil {
			return 0, false
		}
		r.Tried++
		return r.Tried, true
	}
	var wg sync.WaitGroup
	for range makerWorkers {
		wg.Go(func() {
			for {
				n, ok := take()
				if !ok {
					return
				}
				p := probeOnce(ctx, t, src, n, ac.Count, until)
				mu.Lock()
				for _, why := range p.refused {
					r.Refused[why]++
				}
				if p.started {
					r.Probes++
					r.RoundID = p.round
					r.StockSize = max(r.StockSize, p.stock)
					for c := range p.waste {
						waste[c] = true
					}
					for c := range p.seen {
						seen[c] = true
					}
					if r.AllStockAt == 0 && r.StockSize > 0 && len(waste) >= r.StockSize {
						r.AllStockAt = r.Probes
					}
				}
				if p.entry != nil {
					r.Ended++
					r.Statuses[p.entry.Status.String()]++
					r.Entries = append(r.Entries, *p.entry)
				}
				mu.Unlock()
				if !p.started {
					sleepCtx(ctx, min(pause, time.Until(until)))
				}
			}
		})
	}
	wg.Wait()
	r.ElapsedS = time.Since(start).Seconds()
	r.WasteSeen, r.CardsSeen = len(waste), len(seen)
	for _, e := range r.Entries {
		if r.BestRank == 0 || e.Rank < r.BestRank {
			r.BestRank = e.Rank
		}
	}
	if r.RoundID != "" {
		var err error
		r.Board, r.BoardCount, err = t.dailyBoard(ctx, r.RoundID, 5)
		if err != nil {
			r.BoardError = err.Error()
		}
	}
	return r, nil
}

// probe is one throwaway player's probe.
type probe struct {
	started     bool
	round       string
	stock       int
	waste, seen map[engine.Card]bool
	entry       *probeEntry
	refused     []string
}

// probeOnce makes a player from src, starts today's first daily round,
// plays up to moves random legal moves, resigns and reads its board entry.
func probeOnce(ctx context.Context, t *target, src string, n, moves int, until time.Time) *probe {
	p := &probe{waste: map[engine.Card]bool{}, seen: map[engine.Card]bool{}}
	c, _, why := t.newPlayerFrom(ctx, src, "", fmt.Sprintf("probe%d", n))
	if why != "" {
		p.refused = append(p.refused, why)
		return p
	}
	defer c.close()
	raw, err := c.callRaw(&protocol.GetDaily{Type: protocol.TypeGetDaily})
	if err != nil {
		p.refused = append(p.refused, refusal(protocol.TypeGetDaily, err))
		return p
	}
	var d protocol.Daily
	if json.Unmarshal(raw, &d) != nil || len(d.Rounds) == 0 {
		p.refused = append(p.refused, "get_daily: no daily round")
		return p
	}
	p.round = d.Rounds[0].RoundID
	m, err := c.startAttempt(p.round)
	if err != nil {
		p.refused = append(p.refused, refusal(protocol.TypeStartAttempt, err))
		return p
	}
	p.started = true
	attempt, rules, view, seq := m.RoundID, *m.Rules, *m.View, m.LastSeq+1
	p.stock = view.Stock
	p.look(&view)
	var over *protocol.AttemptOver
	// keep notes attempt_over whichever read meets it.
	keep := func(h *frameHead, raw []byte) {
		if h.Type == protocol.TypeAttemptOver && over == nil {
			var ao protocol.AttemptOver
			if json.Unmarshal(raw, &ao) == nil {
				over = &ao
			}
		}
	}
	rng := rand.New(rand.NewPCG(uint64(n), 7))
	buf := make([]engine.Move, 0, 64)
	pc := newPacer(attemptRate)
	for range moves {
		if view.Status != engine.Playing || !pc.wait(ctx, until.Add(time.Minute)) {
			break
		}
		var mv engine.Move
		var ok bool
		if mv, ok, buf = pickMove(&view, rules, rng, buf); !ok {
			break
		}
		id, err := c.send(&protocol.Move{Type: protocol.TypeMove, RoundID: attempt, Seq: seq, Move: mv.String()})
		if err != nil {
			p.refused = append(p.refused, refusal(protocol.TypeMove, err))
			return p
		}
		m, _, err := c.awaitKeeping(id, keep)
		if err != nil {
			p.refused = append(p.refused, refusal(protocol.TypeMove, err))
			return p
		}
		if m.Type == protocol.TypeMoveRejected {
			p.refused = append(p.refused, "move: "+m.Code+": "+m.Reason)
			break
		}
		if m.View != nil {
			view, seq = *m.View, m.Seq+1
			p.look(&view)
		}
	}
	if view.Status == engine.Playing {
		id, err := c.send(&protocol.Resign{Type: protocol.TypeResign, RoundID: attempt})
		if err == nil {
			_, _, err = c.awaitKeeping(id, keep)
		}
		if err != nil {
			p.refused = append(p.refused, refusal(protocol.TypeResign, err))
		}
	}
	// attempt_over not read yet: the round says the same once the end is
	// on the board, or attempt_over comes meanwhile.
	for try := 0; over == nil && try < 3; try++ {
		if ar, err := c.asyncRound(p.round, keep); err == nil && ar.Attempt.Result != nil && over == nil {
			over = &protocol.AttemptOver{Result: *ar.Attempt.Result}
		}
		if over == nil {
			sleepCtx(ctx, 100*time.Millisecond)
		}
	}
	if over != nil {
		p.entry = &probeEntry{BoardEntry: over.Result, MovePoints: view.Score}
	}
	return p
}

// look notes the cards a view shows.
func (p *probe) look(v *engine.View) {
	for _, c := range v.Waste {
		p.waste[c], p.seen[c] = true, true
	}
	for i := 1; i <= v.Piles(); i++ {
		for _, c := range v.Pile(i).Up {
			p.seen[c] = true
		}
	}
}

// frameHead is what every server frame has: its type, the request it
// answers and, for an error, its code and message. Frames whose fields
// inMsg does not read (async_round's round object) decode to it.
type frameHead struct {
	Type    string `json:"type"`
	Re      string `json:"re"`
	Code    string `json:"code"`
	Message string `json:"message"`
}

// awaitKeeping reads until the reply to id, handing every frame read to
// keep first; the reply comes back decoded as inMsg too.
func (c *wsClient) awaitKeeping(id string, keep func(*frameHead, []byte)) (*inMsg, []byte, error) {
	c.ws.SetReadDeadline(time.Now().Add(attackIO))
	defer c.ws.SetReadDeadline(time.Time{})
	for range maxFramesRead {
		_, data, err := c.ws.ReadMessage()
		if err != nil {
			return nil, nil, err
		}
		h := &frameHead{}
		if err := json.Unmarshal(data, h); err != nil {
			return nil, nil, fmt.Errorf("a frame that is not JSON: %w", err)
		}
		if keep != nil {
			keep(h, data)
		}
		if h.Re != id {
			continue
		}
		if h.Type == protocol.TypeError {
			return &inMsg{Type: h.Type, Re: h.Re, Code: h.Code, Message: h.Message}, data, &wireError{Code: h.Code, Message: h.Message}
		}
		m := &inMsg{}
		_ = json.Unmarshal(data, m) // an async_round's round does not fit: its head is enough
		m.Type, m.Re = h.Type, h.Re
		return m, data, nil
	}
	return nil, nil, errors.New("no reply in " + fmt.Sprint(maxFramesRead) + " frames")
}

// callRaw sends msg and returns the raw reply, for replies inMsg does not
// read; keep, when not nil, sees every frame read meanwhile.
func (c *wsClient) callRaw(msg any, keep ...func(*frameHead, []byte)) ([]byte, error) {
	id, err := c.send(msg)
	if err != nil {
		return nil, err
	}
	var k func(*frameHead, []byte)
	if len(keep) > 0 {
		k = keep[0]
	}
	_, raw, err := c.awaitKeeping(id, k)
	return raw, err
}

// asyncRound asks for round id (get_async_round); keep sees the frames
// read meanwhile.
func (c *wsClient) asyncRound(id string, keep func(*frameHead, []byte)) (*protocol.AsyncRound, error) {
	raw, err := c.callRaw(&protocol.RoundRef{Type: protocol.TypeGetAsyncRound, RoundID: id}, keep)
	if err != nil {
		return nil, err
	}
	var ar protocol.AsyncRound
	if err := json.Unmarshal(raw, &ar); err != nil {
		return nil, err
	}
	return &ar, nil
}

// dailyBoard reads the first n entries of an asynchronous round's board
// over HTTP, and how many it has.
func (t *target) dailyBoard(ctx context.Context, round string, n int) ([]protocol.BoardEntry, int, error) {
	u := fmt.Sprintf("%s/api/v1/rounds/%s/leaderboard?limit=%d", t.httpBase, url.PathEscape(round), n)
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
	if err != nil {
		return nil, 0, err
	}
	resp, err := t.http.Do(req)
	if err != nil {
		return nil, 0, err
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, 4<<20))
	if err != nil {
		return nil, 0, err
	}
	if resp.StatusCode != http.StatusOK {
		return nil, 0, fmt.Errorf("GET %s: %s", u, resp.Status)
	}
	var b struct {
		Finished int                   `json:"finished"`
		Entries  []protocol.BoardEntry `json:"entries"`
	}
	if err := json.Unmarshal(body, &b); err != nil {
		return nil, 0, err
	}
	return b.Entries, b.Finished, nil
}

func (r *dailyProbeResult) lines() []string {
	l := []string{
		fmt.Sprintf("probes of %s from %s: %d players tried, %d attempts started (%.0f a minute), %d ended, in %.1f s; up to %d random legal moves each, then resign",
			r.RoundID, r.Source, r.Tried, r.Probes, float64(r.Probes)/max(r.ElapsedS, 0.001)*60, r.Ended, r.ElapsedS, r.MovesMax),
		fmt.Sprintf("refused: %s", r.Refused),
		fmt.Sprintf("ends: %s", r.Statuses),
	}
	all := "not all of it"
	if r.AllStockAt > 0 {
		all = fmt.Sprintf("all of it after %d probes", r.AllStockAt)
	}
	l = append(l, fmt.Sprintf("cards seen together: %d distinct in the waste, of a stock of %d (%s); %d distinct face up anywhere, of 52",
		r.WasteSeen, r.StockSize, all, r.CardsSeen))
	if len(r.Entries) > 0 {
		es := append([]probeEntry(nil), r.Entries...)
		sort.Slice(es, func(i, j int) bool { return es[i].Rank < es[j].Rank })
		penalty := 0
		for _, e := range es {
			penalty += e.MovePoints - e.Score
		}
		b := es[0]
		l = append(l,
			fmt.Sprintf("best probe's rank when it ended: %d (%s, %d cards home, board score %d from %d move points, %.1f s on its clock)",
				b.Rank, b.Status, b.Foundation, b.Score, b.MovePoints, float64(b.ElapsedMs)/1000),
			fmt.Sprintf("time penalty charged a probe on the board, on average: %.1f points (move points less board score)",
				float64(penalty)/float64(len(es))))
	}
	if r.BoardError != "" {
		return append(l, "board: "+r.BoardError)
	}
	l = append(l, fmt.Sprintf("daily board at the end: %d entries; its top:", r.BoardCount))
	for _, e := range r.Board {
		l = append(l, fmt.Sprintf("  %d. %s %s: %d cards home, score %d, %.1f s", e.Rank, e.Name, e.Status, e.Foundation, e.Score, float64(e.ElapsedMs)/1000))
	}
	return l
}
