package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"math"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/gorilla/websocket"

	"klondike/api/protocol"
	"klondike/engine"
)

// The matchmaking measurement (--matchmaking) asks whether rated quick
// matches rank players by their skill, and what the matchmaking costs
// them: bots of known skill play rated quick matches against each other
// over and over, and the run reports the waits for a round, the spread of
// ratings within a match, how many pairs the daily limit kept apart, how
// well the ratings' order follows the skills' (Spearman's rank
// correlation, also part way through, to show it converging) and how
// often the better bot of a pair places ahead of the other by the gap
// between their skills: the limit the game's luck puts on any rating.

// mmConfig is the measurement's own settings; the target, the draw, the
// passes, the time limit, the countdown and the seed are the run's.
type mmConfig struct {
	Bots    int // players, each a connection
	Rounds  int // rounds each bot plays
	Players int // max_players of the quick matches
	Levels  int // distinct skills, spread evenly over the bots
	// Think is the best bot's time between a move's answer and its next
	// move; the worst bot thinks twice as long, the others in between.
	Think time.Duration
	// Duration, when set, stops the bots asking for new rounds after it;
	// zero: they play all their rounds.
	Duration time.Duration
}

// check reports settings the measurement cannot run with.
func (mm *mmConfig) check(cfg *config) error {
	switch {
	case mm.Bots < 2 || mm.Bots > 2000:
		return fmt.Errorf("--mm-bots %d: want 2..2000", mm.Bots)
	case mm.Rounds < 1 || mm.Rounds > 10000:
		return fmt.Errorf("--mm-rounds %d: want 1..10000", mm.Rounds)
	case mm.Players < 2 || mm.Players > 64 || mm.Players > mm.Bots:
		return fmt.Errorf("--mm-players %d: want 2..64, and no more than --mm-bots", mm.Players)
	case mm.Levels < 2 || mm.Levels > mm.Bots:
		return fmt.Errorf("--mm-levels %d: want 2..--mm-bots (a correlation with one skill means nothing)", mm.Levels)
	case mm.Think < 0 || mm.Think > time.Minute:
		return fmt.Errorf("--mm-think %v: want 0..1m", mm.Think)
	case mm.Duration < 0 || mm.Duration > 24*time.Hour:
		return fmt.Errorf("--duration %v: want up to 24h", mm.Duration)
	case cfg.Draw != 1 && cfg.Draw != 3:
		return fmt.Errorf("--draw %d: want 1 or 3", cfg.Draw)
	case cfg.Passes != 0 && cfg.Passes != 1 && cfg.Passes != 3:
		return fmt.Errorf("--passes %d: want 0, 1 or 3", cfg.Passes)
	case cfg.TimeLimitS < 2 || cfg.TimeLimitS > 3600:
		return fmt.Errorf("--time-limit %d: want 2..3600 seconds", cfg.TimeLimitS)
	case cfg.CountdownS < 0 || cfg.CountdownS > 30:
		return fmt.Errorf("--countdown %d: want 0..30", cfg.CountdownS)
	case cfg.Server != "" && (cfg.Embedded || cfg.Redis != ""):
		return errors.New("--server runs against an external server: --embedded and --redis do not apply")
	}
	if cfg.Server != "" {
		if err := checkLoopbackURL(cfg.Server, "ws"); err != nil {
			return fmt.Errorf("--server: %w", err)
		}
	}
	return nil
}

// mmRun holds what the bots of one measurement share.
type mmRun struct {
	cfg      config
	mm       mmConfig
	wsURL    string
	httpBase string
	dialer   *websocket.Dialer
	http     *http.Client
	col      *mmCollector
	active   atomic.Int32 // bots still looking for rounds
	stopAt   time.Time    // when bots stop asking for rounds; zero: never
}

// stopping reports whether the bots should ask for no further round.
func (h *mmRun) stopping() bool { return !h.stopAt.IsZero() && !time.Now().Before(h.stopAt) }

// level is bot idx's skill level: consecutive bots differ, so that bots
// of every level start at once.
func (h *mmRun) level(idx int) int { return idx % h.mm.Levels }

// skillOf is bot idx's skill, from 0 (random moves) to 1 (always the
// heuristic's move).
func (h *mmRun) skillOf(idx int) float64 {
	return float64(h.level(idx)) / float64(h.mm.Levels-1)
}

// settings are the quick match's: rated, as quick matches are by default.
func (h *mmRun) settings() protocol.PartialSettings {
	c := &h.cfg
	return protocol.PartialSettings{
		Draw: new(c.Draw), Passes: new(c.Passes), MaxPlayers: new(h.mm.Players),
		TimeLimitS: new(c.TimeLimitS), CountdownS: new(c.CountdownS),
	}
}

// mmTimeLimitS is the rounds' time limit unless --time-limit says: with
// the default think times it ends most games before the bots run out of
// useful moves, so that a bot's speed and its accuracy both count.
const mmTimeLimitS = 10

// mmStagger spaces the bots' first connections.
const mmStagger = 20 * time.Millisecond

// runMatchmaking runs the measurement and prints its report; it returns
// the exit status.
func runMatchmaking(ctx context.Context, cfg config, stdout, stderr io.Writer) int {
	rep, err := executeMM(ctx, cfg, stderr)
	if err != nil {
		fmt.Fprintln(stderr, "loadtest:", err)
		return 2
	}
	if cfg.JSON {
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		_ = enc.Encode(rep)
	} else {
		rep.writeText(stdout)
	}
	if !rep.OK {
		return 1
	}
	return 0
}

// executeMM starts the target, runs the bots until they have played their
// rounds (or --duration), and tallies the report.
func executeMM(ctx context.Context, cfg config, logw io.Writer) (*mmReport, error) {
	mm := cfg.MM
	h := &mmRun{cfg: cfg, mm: mm, col: newMMCollector()}
	h.http = &http.Client{Timeout: httpTimeout, Transport: &http.Transport{DialContext: loopbackDial, MaxIdleConnsPerHost: verifyWorkers, Proxy: nil}}
	h.dialer = &websocket.Dialer{NetDialContext: loopbackDial, HandshakeTimeout: dialTimeout}
	stop := func() {}
	if cfg.Server != "" {
		if err := checkLoopbackURL(cfg.Server, "ws"); err != nil {
			return nil, err
		}
		h.wsURL = cfg.Server
	} else {
		var err error
		if h.wsURL, _, stop, err = startEmbedded(&cfg); err != nil {
			return nil, err
		}
	}
	stop = sync.OnceFunc(stop)
	defer stop()
	h.httpBase = "http" + strings.TrimSuffix(strings.TrimPrefix(h.wsURL, "ws"), "/ws")

	// Every step of a bot is bounded; this bounds the whole run besides.
	perRound := time.Duration(cfg.TimeLimitS+cfg.CountdownS)*time.Second + mmSeatWait + mmOverWait + mmRatingsWait + mmReadResults
	hard := time.Duration(mm.Rounds)*perRound + 2*time.Minute
	if mm.Duration > 0 {
		hard = min(hard, mm.Duration+perRound+2*time.Minute)
	}
	rctx, cancel := context.WithTimeout(ctx, hard)
	defer cancel()

	t0 := time.Now()
	if mm.Duration > 0 {
		h.stopAt = t0.Add(mm.Duration)
	}
	fmt.Fprintf(logw, "loadtest: matchmaking: %d bots, %d rounds each, %d a match, against %s\n", mm.Bots, mm.Rounds, mm.Players, h.wsURL)
	h.active.Store(int32(mm.Bots))
	var wg sync.WaitGroup
	for i := range mm.Bots {
		wg.Go(func() {
			if !sleepUntil(rctx, t0.Add(time.Duration(i)*mmStagger)) {
				h.active.Add(-1)
				return
			}
			newMMBot(h, i).run(rctx)
		})
	}
	done := make(chan struct{})
	go func() { wg.Wait(); close(done) }()
	progress := time.NewTicker(30 * time.Second)
	defer progress.Stop()
wait:
	for {
		select {
		case <-done:
			break wait
		case <-progress.C:
			fmt.Fprintf(logw, "loadtest: matchmaking: %s: %d rounds over, %d bots still playing\n",
				time.Since(t0).Round(time.Second), h.col.roundsOver(), h.active.Load())
		}
	}
	elapsed := time.Since(t0)
	if rctx.Err() != nil && ctx.Err() == nil {
		h.col.fail("deadline", fmt.Sprintf("the run took longer than its bound %v", hard))
	}

	fctx, fcancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer fcancel()
	profiles := h.fetchProfiles(fctx)
	records := h.fetchRecords(fctx)
	h.http.CloseIdleConnections()
	stop()
	return h.tally(elapsed, profiles, records), nil
}

// mmSeen is one bot's account of one round.
type mmSeen struct {
	roundID, matchID, playerID string
	mode                       string
	wait                       time.Duration
	seating                    []protocol.MemberInfo
	over                       *protocol.RoundOver
	ratings                    *protocol.RoundRatings
	stats                      mmPlayStats
}

// mmRound is what the bots saw of one round, together.
type mmRound struct {
	id, matchID, mode string
	seating           []protocol.MemberInfo
	results           []protocol.Entry
	ratings           *protocol.RoundRatings
}

// mmCollector gathers the bots' accounts.
type mmCollector struct {
	mu       sync.Mutex
	players  map[string]int // player id: bot
	rounds   map[string]*mmRound
	order    []string // rounds in the order they were seen over
	rated    []string // rated rounds in the order their ratings came
	waits    []time.Duration
	moves    []mmPlayStats // by bot and round
	counts   map[string]int
	failures map[string]int
	samples  []string
}

func newMMCollector() *mmCollector {
	return &mmCollector{players: map[string]int{}, rounds: map[string]*mmRound{}, counts: map[string]int{}, failures: map[string]int{}}
}

// fail counts something that should not happen.
func (c *mmCollector) fail(kind, detail string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.failures[kind]++
	if len(c.samples) < 10 {
		c.samples = append(c.samples, kind+": "+detail)
	}
}

// count counts something notable but expected.
func (c *mmCollector) count(kind string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.counts[kind]++
}

func (c *mmCollector) addPlayer(id string, idx int) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.players[id] = idx
}

func (c *mmCollector) roundsOver() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.order)
}

// addRound merges a bot's account of a round into the others'.
func (c *mmCollector) addRound(s mmSeen) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.waits = append(c.waits, s.wait)
	c.moves = append(c.moves, s.stats)
	r := c.rounds[s.roundID]
	if r == nil {
		r = &mmRound{id: s.roundID, matchID: s.matchID, mode: s.mode}
		c.rounds[s.roundID] = r
		c.order = append(c.order, s.roundID)
	}
	if len(s.seating) > len(r.seating) {
		r.seating = s.seating
	}
	if s.over != nil && len(s.over.Results) > len(r.results) {
		r.results = s.over.Results
	}
	if s.ratings != nil && r.ratings == nil {
		r.ratings = s.ratings
		if len(s.ratings.Changes) > 0 {
			c.rated = append(c.rated, s.roundID)
		}
	}
}

// mmProfile is what the measurement reads of GET /api/v1/players/{id}.
type mmProfile struct {
	Ratings []struct {
		Game        string  `json:"game"`
		Draw        int     `json:"draw"`
		Rating      float64 `json:"rating"`
		Deviation   float64 `json:"deviation"`
		Provisional bool    `json:"provisional"`
		Rounds      int     `json:"rounds"`
	} `json:"ratings"`
}

// mmRecord is what the measurement reads of GET /api/v1/rounds/{id}/ratings.
type mmRecord struct {
	RoundID string      `json:"round_id"`
	Apart   [][2]string `json:"apart"`
}

// getJSON reads a JSON answer into v; found is false for a 404.
func (h *mmRun) getJSON(ctx context.Context, path string, v any) (found bool, err error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, h.httpBase+path, nil)
	if err != nil {
		return false, err
	}
	resp, err := h.http.Do(req)
	if err != nil {
		return false, err
	}
	defer resp.Body.Close()
	if resp.StatusCode == http.StatusNotFound {
		_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, 1<<16))
		return false, nil
	}
	if resp.StatusCode != http.StatusOK {
		return false, fmt.Errorf("GET %s: %s", path, resp.Status)
	}
	return true, json.NewDecoder(io.LimitReader(resp.Body, 1<<22)).Decode(v)
}

// eachLimited runs f on every key, a few at a time, until ctx ends.
func eachLimited(ctx context.Context, keys []string, f func(string)) {
	sem := make(chan struct{}, verifyWorkers)
	var wg sync.WaitGroup
	for _, k := range keys {
		select {
		case sem <- struct{}{}:
		case <-ctx.Done():
		}
		if ctx.Err() != nil {
			break
		}
		wg.Go(func() {
			defer func() { <-sem }()
			f(k)
		})
	}
	wg.Wait()
}

// fetchProfiles reads every bot's rating in the game played from its
// public profile, by player id; a player without one is left out.
func (h *mmRun) fetchProfiles(ctx context.Context) map[string]mmFinal {
	h.col.mu.Lock()
	ids := make([]string, 0, len(h.col.players))
	for id := range h.col.players {
		ids = append(ids, id)
	}
	h.col.mu.Unlock()
	var mu sync.Mutex
	out := map[string]mmFinal{}
	eachLimited(ctx, ids, func(id string) {
		var p mmProfile
		found, err := h.getJSON(ctx, "/api/v1/players/"+url.PathEscape(id), &p)
		if err != nil || !found {
			if err != nil {
				h.col.fail("profile", err.Error())
			}
			return
		}
		for _, r := range p.Ratings {
			if (r.Game == "klondike" || r.Game == "") && r.Draw == h.cfg.Draw {
				mu.Lock()
				out[id] = mmFinal{Rating: r.Rating, Deviation: r.Deviation, Rounds: r.Rounds}
				mu.Unlock()
			}
		}
	})
	return out
}

// fetchRecords reads the record of every round rated, for the pairs the
// daily limit kept apart; nil when the server has no such route.
func (h *mmRun) fetchRecords(ctx context.Context) map[string]mmRecord {
	h.col.mu.Lock()
	ids := slices.Clone(h.col.rated)
	h.col.mu.Unlock()
	var mu sync.Mutex
	out := map[string]mmRecord{}
	var missing atomic.Int64
	eachLimited(ctx, ids, func(id string) {
		var rec mmRecord
		found, err := h.getJSON(ctx, "/api/v1/rounds/"+url.PathEscape(id)+"/ratings", &rec)
		switch {
		case err != nil:
			h.col.fail("round record", err.Error())
		case !found:
			missing.Add(1)
		default:
			mu.Lock()
			out[id] = rec
			mu.Unlock()
		}
	})
	if len(out) == 0 {
		return nil // a rated round with no record: the route is not there
	}
	if n := missing.Load(); n > 0 {
		h.col.fail("round record", fmt.Sprintf("%d rated rounds have no record", n))
	}
	return out
}

// mmFinal is a bot's rating at the end.
type mmFinal struct {
	Rating    float64 `json:"rating"`
	Deviation float64 `json:"deviation,omitempty"`
	Rounds    int     `json:"rounds"`
}

// mmReport is the measurement's result.
type mmReport struct {
	Target        string  `json:"target"`
	Bots          int     `json:"bots"`
	RoundsPerBot  int     `json:"rounds_per_bot"`
	PerMatch      int     `json:"per_match"`
	Levels        int     `json:"levels"`
	Draw          int     `json:"draw"`
	Passes        int     `json:"passes"`
	TimeLimitS    int     `json:"time_limit_s"`
	ThinkMs       float64 `json:"think_ms"` // the best bot's; the worst's is twice it
	ElapsedS      float64 `json:"elapsed_s"`
	RoundsPlayed  int     `json:"rounds_played"`
	RoundsRated   int     `json:"rounds_rated"`
	RoundsUnrated int     `json:"rounds_unrated"`
	// NoRatings counts rounds over whose ratings no bot saw.
	NoRatings int            `json:"no_ratings"`
	Unrated   map[string]int `json:"unrated,omitempty"` // by the server's reason
	// PairGames counts pairs of players who both moved in a round;
	// PairsApart those the daily limit kept from being rated against each
	// other; ApartSource says how they were counted.
	PairGames   int           `json:"pair_games"`
	PairsApart  int           `json:"pairs_apart"`
	ApartSource string        `json:"apart_source"`
	WaitS       sampleSummary `json:"wait_s"`       // quick_match to round_starting, each bot and round
	Spread      sampleSummary `json:"spread"`       // highest less lowest rating at seating, each round
	Spearman    []mmPoint     `json:"spearman"`     // final ratings against skill, part way and at the end
	RatingsFrom string        `json:"ratings_from"` // profiles or pushes
	// PushMismatch counts bots whose last rating in a push differs from
	// their profile's.
	PushMismatch int            `json:"push_mismatch"`
	ByLevel      []mmLevelRow   `json:"by_level"`
	WinRate      []mmGapRow     `json:"win_rate"`
	MovesMean    float64        `json:"moves_mean"`   // a bot's moves in a round
	GreedyShare  float64        `json:"greedy_share"` // of the moves, those the heuristic chose
	Ends         map[string]int `json:"ends"`         // how the bots' play in a round ended
	Events       map[string]int `json:"events,omitempty"`
	Failures     map[string]int `json:"failures,omitempty"`
	Samples      []string       `json:"samples,omitempty"`
	OK           bool           `json:"ok"`
}

// mmPoint is Spearman's correlation after a share of the rated rounds.
type mmPoint struct {
	Share  float64  `json:"share"`
	Rounds int      `json:"rounds"`
	Rho    *float64 `json:"rho"` // nil while the ratings are all equal
}

// newMMPoint makes a point of the correlation rho, which is NaN while
// either side is constant.
func newMMPoint(share float64, rounds int, rho float64) mmPoint {
	pt := mmPoint{Share: share, Rounds: rounds}
	if !math.IsNaN(rho) {
		pt.Rho = &rho
	}
	return pt
}

// mmLevelRow is one skill level's bots at the end.
type mmLevelRow struct {
	Skill      float64 `json:"skill"`
	Bots       int     `json:"bots"`
	MeanRating float64 `json:"mean_rating"`
	MinRating  float64 `json:"min_rating"`
	MaxRating  float64 `json:"max_rating"`
	MeanRD     float64 `json:"mean_rd,omitempty"`
	MeanRounds float64 `json:"mean_rounds"`
}

// mmGapRow is how the better bot of a pair fared by the gap in skill; of
// pairs of equal skill only the ties are counted.
type mmGapRow struct {
	Gap    float64 `json:"gap"`
	Pairs  int     `json:"pairs"`
	Wins   int     `json:"wins"` // the better bot placed ahead
	Ties   int     `json:"ties"`
	Losses int     `json:"losses"`
	Score  float64 `json:"score"` // (wins + ties/2) / pairs
}

// tally makes the report.
func (h *mmRun) tally(elapsed time.Duration, profiles map[string]mmFinal, records map[string]mmRecord) *mmReport {
	c := h.col
	c.mu.Lock()
	defer c.mu.Unlock()
	mm := &h.mm
	rep := &mmReport{
		Target: h.wsURL, Bots: mm.Bots, RoundsPerBot: mm.Rounds, PerMatch: mm.Players, Levels: mm.Levels,
		Draw: h.cfg.Draw, Passes: h.cfg.Passes, TimeLimitS: h.cfg.TimeLimitS, ThinkMs: float64(mm.Think) / 1e6,
		ElapsedS: elapsed.Seconds(), RoundsPlayed: len(c.order), Unrated: map[string]int{},
		Events: c.counts, Failures: c.failures, Samples: c.samples,
	}
	idOf := make([]string, mm.Bots)
	for id, i := range c.players {
		idOf[i] = id
	}
	skill := make([]float64, mm.Bots)
	for i := range skill {
		skill[i] = h.skillOf(i)
	}

	// Rounds, ratings and the pairs kept apart.
	rep.ApartSource = "pushes (a round whose ratings change nobody though two moved)"
	if records != nil {
		rep.ApartSource = "GET /api/v1/rounds/{id}/ratings, and pushes for the rounds it has no record of"
	}
	var spreads []float64
	gaps := make([]mmGapRow, mm.Levels)
	for i := range gaps {
		gaps[i].Gap = float64(i) / float64(mm.Levels-1)
	}
	for _, id := range c.order {
		r := c.rounds[id]
		if len(r.seating) >= 2 {
			lo, hi := math.Inf(1), math.Inf(-1)
			for _, p := range r.seating {
				v := float64(p.Rating)
				if p.Rating == 0 {
					v = mmInitial
				}
				lo, hi = min(lo, v), max(hi, v)
			}
			spreads = append(spreads, hi-lo)
		}
		movers := 0
		for _, e := range r.results {
			if e.Moves > 0 && !e.Helped {
				movers++
			}
		}
		pairs := movers * (movers - 1) / 2
		rep.PairGames += pairs
		switch {
		case r.ratings == nil:
			rep.NoRatings++
		case len(r.ratings.Changes) > 0:
			rep.RoundsRated++
			if rec, ok := records[id]; ok {
				rep.PairsApart += len(rec.Apart)
			} else {
				rep.PairsApart += pairsLeftOut(r)
			}
		default:
			rep.RoundsUnrated++
			rep.Unrated[r.ratings.Unrated]++
			if movers >= 2 && strings.Contains(r.ratings.Unrated, "against each other") {
				rep.PairsApart += pairs
			}
		}
		h.scorePairs(r, gaps)
	}
	for i := 1; i < len(gaps); i++ {
		if g := &gaps[i]; g.Pairs > 0 {
			g.Score = (float64(g.Wins) + float64(g.Ties)/2) / float64(g.Pairs)
		}
	}
	rep.WinRate = gaps
	rep.WaitS = summarizeSample(inSeconds(c.waits))
	rep.Spread = summarizeSample(spreads)

	// Ratings as the pushes told them, part way and at the end.
	pushed := map[string]float64{}
	ratedRounds := map[string]int{}
	at := func(n int) []float64 {
		clear(pushed)
		for _, id := range c.rated[:n] {
			for _, ch := range c.rounds[id].ratings.Changes {
				pushed[ch.PlayerID] = float64(ch.After)
			}
		}
		out := make([]float64, mm.Bots)
		for i, id := range idOf {
			out[i] = mmInitial
			if v, ok := pushed[id]; ok {
				out[i] = v
			}
		}
		return out
	}
	for _, share := range []float64{0.25, 0.5, 0.75} {
		n := int(share * float64(len(c.rated)))
		rep.Spearman = append(rep.Spearman, newMMPoint(share, n, spearman(at(n), skill)))
	}
	final := at(len(c.rated))
	for _, id := range c.rated {
		for _, ch := range c.rounds[id].ratings.Changes {
			ratedRounds[ch.PlayerID]++
		}
	}
	rep.RatingsFrom = "pushes"
	deviation := make([]float64, mm.Bots)
	if len(profiles) > 0 {
		rep.RatingsFrom = "profiles (GET /api/v1/players/{id})"
		for i, id := range idOf {
			p, ok := profiles[id]
			if !ok {
				continue
			}
			if math.Round(p.Rating) != final[i] {
				rep.PushMismatch++
			}
			final[i], deviation[i] = p.Rating, p.Deviation
		}
	}
	rep.Spearman = append(rep.Spearman, newMMPoint(1, len(c.rated), spearman(final, skill)))

	rep.ByLevel = make([]mmLevelRow, mm.Levels)
	for lv := range rep.ByLevel {
		row := &rep.ByLevel[lv]
		row.Skill = h.skillOf(lv)
		row.MinRating, row.MaxRating = math.Inf(1), math.Inf(-1)
		for i := range mm.Bots {
			if h.level(i) != lv {
				continue
			}
			row.Bots++
			row.MeanRating += final[i]
			row.MeanRD += deviation[i]
			row.MeanRounds += float64(ratedRounds[idOf[i]])
			row.MinRating, row.MaxRating = min(row.MinRating, final[i]), max(row.MaxRating, final[i])
		}
		if row.Bots > 0 {
			n := float64(row.Bots)
			row.MeanRating, row.MeanRD, row.MeanRounds = row.MeanRating/n, row.MeanRD/n, row.MeanRounds/n
		}
	}

	var moves, greedy int
	rep.Ends = map[string]int{}
	for _, s := range c.moves {
		moves += s.Moves
		greedy += s.Greedy
		rep.Ends[s.End]++
	}
	if len(c.moves) > 0 {
		rep.MovesMean = float64(moves) / float64(len(c.moves))
	}
	if moves > 0 {
		rep.GreedyShare = float64(greedy) / float64(moves)
	}
	rep.OK = len(c.failures) == 0 && rep.RoundsPlayed > 0 && rep.RoundsRated > 0
	return rep
}

// mmInitial is a new player's rating, which the wire leaves out.
const mmInitial = 1500

// pairsLeftOut counts the pairs of a rated round's movers among whom one
// was left out of the changes: every pair of theirs was kept apart. It
// sees only players kept apart from everyone, so it undercounts rounds of
// more than two.
func pairsLeftOut(r *mmRound) int {
	in := map[string]bool{}
	for _, ch := range r.ratings.Changes {
		in[ch.PlayerID] = true
	}
	movers, out := 0, 0
	for _, e := range r.results {
		if e.Moves > 0 && !e.Helped {
			movers++
			if !in[e.PlayerID] {
				out++
			}
		}
	}
	// Each player left out was kept apart from every other mover; count
	// the pairs among the left out once.
	return out*(movers-out) + out*(out-1)/2
}

// scorePairs adds a round's pairs of movers to the win rate by skill gap:
// whether the better bot placed ahead, as the ratings place players.
func (h *mmRun) scorePairs(r *mmRound, gaps []mmGapRow) {
	places := mmPlaces(r.mode, r.results)
	for i, a := range r.results {
		for j := i + 1; j < len(r.results); j++ {
			b := r.results[j]
			if a.Moves == 0 || b.Moves == 0 {
				continue
			}
			ia, oka := h.col.players[a.PlayerID]
			ib, okb := h.col.players[b.PlayerID]
			if !oka || !okb {
				continue
			}
			pa, pb := places[i], places[j]
			la, lb := h.level(ia), h.level(ib)
			if la < lb {
				la, lb, pa, pb = lb, la, pb, pa
			}
			g := &gaps[la-lb]
			g.Pairs++
			switch {
			case la == lb:
				// Neither is the better: only a tie says anything.
				if pa == pb {
					g.Ties++
				}
			case pa < pb:
				g.Wins++
			case pa == pb:
				g.Ties++
			default:
				g.Losses++
			}
		}
	}
}

// mmPlaces gives each of a round's results (in their ranked order) its
// place as the server's ratings do (docs/ratings.md): the rank, players
// equal but for the time they reached their result sharing a place, and
// whoever resigned last, together.
func mmPlaces(mode string, results []protocol.Entry) []int {
	places := make([]int, len(results))
	var stayed []int
	for i, e := range results {
		if e.Status != engine.Resigned {
			stayed = append(stayed, i)
		}
	}
	same := func(a, b *protocol.Entry) bool {
		if mode != "race" {
			return a.Score == b.Score
		}
		aw, bw := a.Status == engine.Won, b.Status == engine.Won
		if aw != bw {
			return false
		}
		if aw {
			return a.FinishedMs != nil && b.FinishedMs != nil && *a.FinishedMs == *b.FinishedMs
		}
		return a.Foundation == b.Foundation && a.Score == b.Score
	}
	for k, i := range stayed {
		if k > 0 && same(&results[stayed[k-1]], &results[i]) {
			places[i] = places[stayed[k-1]]
		} else {
			places[i] = k + 1
		}
	}
	for i, e := range results {
		if e.Status == engine.Resigned {
			places[i] = len(stayed) + 1
		}
	}
	return places
}

// writeText prints the report for people.
func (rep *mmReport) writeText(w io.Writer) {
	p := func(format string, a ...any) { fmt.Fprintf(w, format+"\n", a...) }
	p("klondike matchmaking: %d bots of %d skill levels, %d rounds each, rated quick matches of %d, against %s",
		rep.Bots, rep.Levels, rep.RoundsPerBot, rep.PerMatch, rep.Target)
	p("  draw %d, passes %d, time limit %d s, think %.0f ms (best bot) to %.0f ms (worst); %.0f s",
		rep.Draw, rep.Passes, rep.TimeLimitS, rep.ThinkMs, 2*rep.ThinkMs, rep.ElapsedS)
	p("rounds: played %d, rated %d, unrated %d, without a ratings push %d", rep.RoundsPlayed, rep.RoundsRated, rep.RoundsUnrated, rep.NoRatings)
	for _, k := range slices.Sorted(maps.Keys(rep.Unrated)) {
		p("  unrated %d: %q", rep.Unrated[k], k)
	}
	share := 0.0
	if rep.PairGames > 0 {
		share = 100 * float64(rep.PairsApart) / float64(rep.PairGames)
	}
	p("pair-games: %d, kept apart by the daily limit %d (%.1f%%), from %s", rep.PairGames, rep.PairsApart, share, rep.ApartSource)
	p("wait quick_match to round_starting (s): p50 %.2f  p99 %.2f  max %.2f  mean %.2f  (n=%d)",
		rep.WaitS.P50, rep.WaitS.P99, rep.WaitS.Max, rep.WaitS.Mean, rep.WaitS.N)
	p("rating spread at seating (highest less lowest): mean %.1f  p50 %.0f  p99 %.0f  max %.0f  (n=%d)",
		rep.Spread.Mean, rep.Spread.P50, rep.Spread.P99, rep.Spread.Max, rep.Spread.N)
	p("Spearman's rho, ratings against skill (ratings at the end from %s):", rep.RatingsFrom)
	for _, pt := range rep.Spearman {
		rho := "undefined (the ratings are all equal)"
		if pt.Rho != nil {
			rho = fmt.Sprintf("%.3f", *pt.Rho)
		}
		p("  after %3.0f%% of the rated rounds (%4d): %s", 100*pt.Share, pt.Rounds, rho)
	}
	if rep.PushMismatch > 0 {
		p("  %d bots' profile rating differs from their last push", rep.PushMismatch)
	}
	p("by skill: skill  bots  mean rating  min   max   mean RD  rated rounds a bot")
	for _, r := range rep.ByLevel {
		p("          %.2f  %4d  %7.0f  %6.0f %5.0f  %6.0f  %6.1f", r.Skill, r.Bots, r.MeanRating, r.MinRating, r.MaxRating, r.MeanRD, r.MeanRounds)
	}
	if g := rep.WinRate[0]; g.Pairs > 0 {
		p("pairs of equal skill: %d, tied %d", g.Pairs, g.Ties)
	}
	p("better bot of a pair by skill gap: gap   pairs  ahead  tied  behind  score")
	for _, g := range rep.WinRate[1:] {
		if g.Pairs == 0 {
			continue
		}
		p("                                   %.2f  %5d  %5d  %4d  %6d  %.3f", g.Gap, g.Pairs, g.Wins, g.Ties, g.Losses, g.Score)
	}
	p("play: %.0f moves a bot a round, %.0f%% chosen by the heuristic", rep.MovesMean, 100*rep.GreedyShare)
	for _, k := range slices.Sorted(maps.Keys(rep.Ends)) {
		p("  play ended: %s %d", k, rep.Ends[k])
	}
	for _, k := range slices.Sorted(maps.Keys(rep.Events)) {
		p("  %s: %d", k, rep.Events[k])
	}
	if len(rep.Failures) > 0 {
		for _, k := range slices.Sorted(maps.Keys(rep.Failures)) {
			p("failure %s: %d", k, rep.Failures[k])
		}
		for _, s := range rep.Samples {
			p("  %s", s)
		}
	}
	if rep.OK {
		p("result: OK")
	} else {
		p("result: FAILED")
	}
}
