package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"time"

	"klondike/api/protocol"
)

// The lobby attacks: identities made in bulk (new-sessions) and open
// matches left behind (abandoned-matches); slow-reader uses the same
// matches to make list_matches large.

// Bounds of the lobby attacks.
const (
	maxRefusedInRow = 20   // refusals in a row that end a creation
	makerWorkers    = 4    // sessions creating matches at once
	maxListPages    = 1000 // pages of GET /api/v1/matches read for one count
)

// madeMatches are the public open matches a creation made, and what
// refused the rest.
type madeMatches struct {
	Tried   int      `json:"tried"`
	Seats   int      `json:"seats"` // players a match, the creator included
	Players int      `json:"players_seated"`
	IDs     []string `json:"-"`
	Refused tally    `json:"refused"`
	// tokens are the sessions said hello to, for connections that resume
	// them (a resumed session is not a new one).
	tokens []string
}

// createMatches creates up to n public open matches for seats players,
// each seated by a new session (a hello without a token) on a connection
// of its own that then leaves: the matches stay with every member
// disconnected. Several sessions work at once; it stops after
// maxRefusedInRow refusals in a row.
func createMatches(ctx context.Context, t *target, n, seats int, name string) *madeMatches {
	mm := &madeMatches{Seats: seats, Refused: tally{}}
	var mu sync.Mutex
	inRow := 0
	take := func() bool {
		mu.Lock()
		defer mu.Unlock()
		if mm.Tried >= n || inRow >= maxRefusedInRow || ctx.Err() != nil {
			return false
		}
		mm.Tried++
		return true
	}
	// seated records one session's step; it reports whether to go on.
	seated := func(id, token, refused string, first bool) bool {
		mu.Lock()
		defer mu.Unlock()
		if token != "" {
			mm.tokens = append(mm.tokens, token)
		}
		if refused != "" {
			mm.Refused[refused]++
			inRow++
			return false
		}
		inRow = 0
		mm.Players++
		if first {
			mm.IDs = append(mm.IDs, id)
		}
		return inRow < maxRefusedInRow
	}
	settings := protocol.PartialSettings{Public: new(true), MaxPlayers: new(seats)}
	var wg sync.WaitGroup
	for range makerWorkers {
		wg.Go(func() {
			for take() {
				id, token, refused := seatOne(ctx, t, name, &protocol.CreateMatch{Type: protocol.TypeCreateMatch, Settings: settings})
				if !seated(id, token, refused, true) {
					continue
				}
				for range seats - 1 {
					_, token, refused := seatOne(ctx, t, name, &protocol.MatchRef{Type: protocol.TypeJoinMatch, MatchID: id})
					if !seated(id, token, refused, false) {
						break
					}
				}
			}
		})
	}
	wg.Wait()
	return mm
}

// seatOne makes one session and seats it with seat (a create_match or a
// join_match); it returns the match's id, the session's token (when hello
// succeeded) or what refused.
func seatOne(ctx context.Context, t *target, name string, seat any) (id, token, refused string) {
	_, cmd := clientFields(seat)
	c, err := t.dialWS(ctx, 0)
	if err != nil {
		return "", "", refusal("connect", err)
	}
	defer c.close()
	_, raw, err := c.call(&protocol.Hello{Type: protocol.TypeHello, Name: name})
	if err != nil {
		return "", "", refusal(protocol.TypeHello, err)
	}
	var w protocol.Welcome
	_ = json.Unmarshal(raw, &w)
	m, _, err := c.call(seat)
	if err != nil {
		return "", w.Token, refusal(cmd, err)
	}
	if m.Match == nil || m.Match.ID == "" {
		return "", w.Token, cmd + ": a reply without a match"
	}
	return m.Match.ID, w.Token, ""
}

// listedMatches counts how many of ids GET /api/v1/matches lists, reading
// every page (limit and cursor; a server without pages answers all at
// once), and the bytes of its first page.
func (t *target) listedMatches(ctx context.Context, ids map[string]bool) (listed, firstBytes int, err error) {
	cursor := ""
	for page := range maxListPages {
		u := t.httpBase + "/api/v1/matches?limit=" + strconv.Itoa(protocol.MaxOpenPage)
		if cursor != "" {
			u += "&cursor=" + url.QueryEscape(cursor)
		}
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
		if err != nil {
			return listed, firstBytes, err
		}
		resp, err := t.http.Do(req)
		if err != nil {
			return listed, firstBytes, err
		}
		body, err := io.ReadAll(io.LimitReader(resp.Body, 64<<20))
		resp.Body.Close()
		if err != nil {
			return listed, firstBytes, err
		}
		if resp.StatusCode != http.StatusOK {
			return listed, firstBytes, fmt.Errorf("GET /api/v1/matches: %s", resp.Status)
		}
		if page == 0 {
			firstBytes = len(body)
		}
		var p protocol.Matches // the page has list_matches's matches and next_cursor
		if err := json.Unmarshal(body, &p); err != nil {
			return listed, firstBytes, fmt.Errorf("GET /api/v1/matches: %w", err)
		}
		for _, m := range p.Matches {
			if ids[m.ID] {
				listed++
			}
		}
		if p.NextCursor == "" || p.NextCursor == cursor {
			return listed, firstBytes, nil
		}
		cursor = p.NextCursor
	}
	return listed, firstBytes, nil
}

// abandonedResult is what abandoned-matches saw.
type abandonedResult struct {
	Matches *madeMatches `json:"matches"`
	Created int          `json:"created"`
	// Listed is how many of the matches the list showed, over time.
	Listed []listedAt `json:"listed"`
	WaitS  float64    `json:"wait_s"`
}

type listedAt struct {
	AfterS float64 `json:"after_s"`
	Listed int     `json:"listed"`
	Error  string  `json:"error,omitempty"`
}

// abandonedMatches creates matches whose creators all leave, then polls
// the public list for --attack-wait to see whether they go.
func abandonedMatches(ctx context.Context, t *target, ac attackConfig) (attackResult, error) {
	name := "abandoned"
	mm := createMatches(ctx, t, ac.Matches, 1, name)
	r := &abandonedResult{Matches: mm, Created: len(mm.IDs), WaitS: ac.Wait.Seconds()}
	ids := map[string]bool{}
	for _, id := range mm.IDs {
		ids[id] = true
	}
	t.logf("abandoned-matches: %d matches created, every creator gone; polling the list for %v", len(ids), ac.Wait)
	poll := min(max(ac.Wait/12, time.Second), 15*time.Second)
	start := time.Now()
	for {
		n, _, err := t.listedMatches(ctx, ids)
		la := listedAt{AfterS: time.Since(start).Seconds(), Listed: n}
		if err != nil {
			la.Error = err.Error()
		}
		r.Listed = append(r.Listed, la)
		if (err == nil && n == 0) || time.Since(start) >= ac.Wait || len(r.Listed) > 1000 {
			return r, nil
		}
		select {
		case <-ctx.Done():
			return r, nil
		case <-time.After(min(poll, ac.Wait-time.Since(start))):
		}
	}
}

func (r *abandonedResult) lines() []string {
	l := []string{
		fmt.Sprintf("matches: %d created of %d tried (public, open, each by a new session that then disconnected); refused: %s",
			r.Created, r.Matches.Tried, r.Matches.Refused),
	}
	var pts []string
	for _, la := range r.Listed {
		s := fmt.Sprintf("%.0f s: %d", la.AfterS, la.Listed)
		if la.Error != "" {
			s += " (" + la.Error + ")"
		}
		pts = append(pts, s)
	}
	l = append(l, "still listed by GET /api/v1/matches after: "+strings.Join(pts, ", "))
	if n := len(r.Listed); n > 0 {
		last := r.Listed[n-1]
		if last.Listed == 0 && last.Error == "" {
			l = append(l, fmt.Sprintf("every one gone from the list %.0f s after the last creator left (or sooner: the list is polled)", last.AfterS))
		} else {
			l = append(l, fmt.Sprintf("%d of %d still listed after %.0f s", last.Listed, r.Created, last.AfterS))
		}
	}
	return l
}

// sessionsResult is what new-sessions saw.
type sessionsResult struct {
	Tried   int `json:"tried"`
	Granted int `json:"granted"`
	// GrantedFirst are the sessions granted before the first refusal.
	GrantedFirst  int     `json:"granted_before_refusal"`
	FirstRefusal  string  `json:"first_refusal,omitempty"`
	FirstRefusedS float64 `json:"first_refusal_after_s,omitempty"`
	Refused       tally   `json:"refused"`
	ElapsedS      float64 `json:"elapsed_s"`
	WindowS       float64 `json:"window_s"`
	Rate          float64 `json:"rate_after_refusal"`
}

// newSessions says hello without a token, one connection each, as fast
// as it can until the first refusal and then --attack-rate a second, for
// at most --attack-conns hellos within --attack-wait.
func newSessions(ctx context.Context, t *target, ac attackConfig) (attackResult, error) {
	r := &sessionsResult{Refused: tally{}, WindowS: ac.Wait.Seconds(), Rate: ac.Rate}
	start := time.Now()
	deadline := start.Add(ac.Wait)
	pause := time.Duration(float64(time.Second) / max(ac.Rate, 0.01))
	for r.Tried < ac.Conns && time.Now().Before(deadline) && ctx.Err() == nil {
		r.Tried++
		refused := ""
		c, err := t.dialWS(ctx, 0)
		if err != nil {
			refused = refusal("connect", err)
		} else {
			if err := c.hello(fmt.Sprintf("s%d", r.Tried)); err != nil {
				refused = refusal(protocol.TypeHello, err)
			}
			c.close()
		}
		if refused == "" {
			r.Granted++
			if r.FirstRefusal == "" {
				r.GrantedFirst++
			}
			continue
		}
		r.Refused[refused]++
		if r.FirstRefusal == "" {
			r.FirstRefusal, r.FirstRefusedS = refused, time.Since(start).Seconds()
		}
		select {
		case <-ctx.Done():
		case <-time.After(min(pause, time.Until(deadline))):
		}
	}
	r.ElapsedS = time.Since(start).Seconds()
	return r, nil
}

func (r *sessionsResult) lines() []string {
	l := []string{fmt.Sprintf("hellos without a token, one connection each: %d tried in %.1f s, %d sessions granted (%.0f a minute at this pace)",
		r.Tried, r.ElapsedS, r.Granted, float64(r.Granted)/max(r.ElapsedS, 0.001)*60)}
	if r.FirstRefusal == "" {
		return append(l, "none refused")
	}
	return append(l,
		fmt.Sprintf("first refusal after %d granted, at %.1f s: %s", r.GrantedFirst, r.FirstRefusedS, r.FirstRefusal),
		fmt.Sprintf("then %.0f a second until the end of the %.0f s window; refused: %s", r.Rate, r.WindowS, r.Refused))
}
