package rating

import (
	"math"
	"math/rand/v2"
	"testing"
	"time"
)

var start = time.Date(2026, 1, 1, 12, 0, 0, 0, time.UTC)

func near(got, want, tol float64) bool { return math.Abs(got-want) <= tol }

// TestPaperExample is the worked example of Glickman's paper, figure by
// figure. The paper works v and Δ from g and E rounded as it prints them, so
// those two agree with the exact figures only to 0.001.
func TestPaperExample(t *testing.T) {
	self := Rating{Rating: 1500, Deviation: 200, Volatility: 0.06}
	opps := []result{{1400, 30, 1}, {1550, 100, 0}, {1700, 300, 0}}

	s := work(self, opps)
	for _, c := range []struct {
		name      string
		got, want float64
		tol       float64
	}{
		{"μ", s.mu, 0, 0.00005},
		{"φ", s.phi, 1.1513, 0.00005},
		{"g(φ1)", s.g[0], 0.9955, 0.00005},
		{"g(φ2)", s.g[1], 0.9531, 0.00005},
		{"g(φ3)", s.g[2], 0.7242, 0.00005},
		{"E1", s.e[0], 0.639, 0.0005},
		{"E2", s.e[1], 0.432, 0.0005},
		{"E3", s.e[2], 0.303, 0.0005},
		{"v", s.v, 1.7785, 0.001},
		{"Δ", s.delta, -0.4834, 0.001},
		{"σ'", s.sigma1, 0.05999, 0.00001},
		{"φ*", s.phiStar, 1.152862, 0.00001},
		{"φ'", s.phi1, 0.8722, 0.00005},
		{"μ'", s.mu1, -0.2069, 0.00005},
	} {
		if !near(c.got, c.want, c.tol) {
			t.Errorf("work(paper's player): %s = %.7f, want %v", c.name, c.got, c.want)
		}
	}

	r := period(self, opps)
	if !near(r.Rating, 1464.06, 0.01) || !near(r.Deviation, 151.52, 0.01) || !near(r.Volatility, 0.05999, 0.00001) {
		t.Errorf("period(paper's player) = %.2f, %.2f, %.5f; want 1464.06, 151.52, 0.05999",
			r.Rating, r.Deviation, r.Volatility)
	}
	if want := scale*s.mu1 + Initial; !near(r.Rating, want, 1e-9) {
		t.Errorf("period(paper's player).Rating = %v, want step 8's %v", r.Rating, want)
	}
}

// TestVolatility checks step 5 against the root of the paper's f found by
// bisection, over periods that barely move the volatility and, among them,
// some surprising enough to move it.
func TestVolatility(t *testing.T) {
	rng := rand.New(rand.NewPCG(11, 12))
	moved := 0
	for range 2000 {
		phi := (45 + rng.Float64()*305) / scale
		sigma := 0.03 + rng.Float64()*0.1
		v := 0.05 + rng.Float64()*5
		delta := (rng.Float64()*2 - 1) * 8
		a := math.Log(sigma * sigma)
		f := func(x float64) float64 {
			ex := math.Exp(x)
			d := phi*phi + v + ex
			return ex*(delta*delta-phi*phi-v-ex)/(2*d*d) - (x-a)/(Tau*Tau)
		}
		lo, hi := a-100, a+100
		for hi-lo > 1e-12 {
			if mid := (lo + hi) / 2; f(mid) > 0 {
				lo = mid
			} else {
				hi = mid
			}
		}
		got := volatility(phi, sigma, v, delta)
		if want := math.Exp(lo / 2); !near(math.Log(got*got), lo, 1e-5) {
			t.Fatalf("volatility(%v, %v, %v, %v) = %v, want %v", phi, sigma, v, delta, got, want)
		}
		if math.Abs(got-sigma) > 0.001 {
			moved++
		}
	}
	if moved < 20 {
		t.Errorf("only %d of the periods moved the volatility by more than 0.001", moved)
	}
}

// TestUpdateIsPairwise recomputes a round by hand from its ranking: each
// player's period against the others' ratings before the round, scoring 1,
// 0.5 or 0, whatever order the players are given in.
func TestUpdateIsPairwise(t *testing.T) {
	now := start.Add(3 * Period)
	a := Rating{Rating: 1650, Deviation: 70, Volatility: 0.06, Rounds: 40, At: start}
	b := Rating{Rating: 1480, Deviation: 200, Volatility: 0.05, Rounds: 3, At: start.Add(Period)}
	c := New()
	a0, b0, c0 := a.AsOf(now), b.AsOf(now), c
	want := map[string]Rating{
		"a": period(a0, []result{{b0.Rating, b0.Deviation, 1}, {c0.Rating, c0.Deviation, 1}}),
		"b": period(b0, []result{{a0.Rating, a0.Deviation, 0}, {c0.Rating, c0.Deviation, 0.5}}),
		"c": period(c0, []result{{a0.Rating, a0.Deviation, 0}, {b0.Rating, b0.Deviation, 0.5}}),
	}
	for name, r := range want {
		r.Rounds++
		r.At = now
		want[name] = r
	}
	placings := map[string]Placing{"a": {a, 1}, "b": {b, 2}, "c": {c, 2}}
	for _, order := range [][]string{{"a", "b", "c"}, {"c", "a", "b"}, {"b", "c", "a"}} {
		round := make([]Placing, len(order))
		for i, name := range order {
			round[i] = placings[name]
		}
		got := Update(round, now)
		for i, name := range order {
			if got[i] != want[name] {
				t.Errorf("Update(%v)[%d] (%s) = %+v, want %+v", order, i, name, got[i], want[name])
			}
		}
	}
}

// TestAsOf checks time away against the paper's step 6 for a player who does
// not compete: φ' = sqrt(φ² + σ²) a period.
func TestAsOf(t *testing.T) {
	r := Rating{Rating: 1720, Deviation: 80, Volatility: 0.07, Rounds: 12, At: start}
	phi := r.Deviation / scale
	for _, c := range []struct {
		name    string
		elapsed time.Duration
		want    float64
	}{
		{"one period", Period, scale * math.Sqrt(phi*phi+r.Volatility*r.Volatility)},
		{"half a period", Period / 2, scale * math.Sqrt(phi*phi+r.Volatility*r.Volatility/2)},
		{"ten periods", 10 * Period, scale * math.Sqrt(phi*phi+10*r.Volatility*r.Volatility)},
		{"none", 0, r.Deviation},
		{"now before At", -Period, r.Deviation},
		{"years", 20 * 365 * Period, InitialRD},
	} {
		got := r.AsOf(start.Add(c.elapsed))
		if !near(got.Deviation, c.want, 1e-9) {
			t.Errorf("%s: AsOf(At%+v).Deviation = %v, want %v", c.name, c.elapsed, got.Deviation, c.want)
		}
		if got.Rating != r.Rating || got.Volatility != r.Volatility || got.Rounds != r.Rounds || !got.At.Equal(r.At) {
			t.Errorf("%s: AsOf(At%+v) = %+v, want only the deviation changed from %+v", c.name, c.elapsed, got, r)
		}
	}

	never := New()
	never.Deviation = 200
	if got := never.AsOf(start); got != never {
		t.Errorf("AsOf with a zero At = %+v, want %+v unchanged", got, never)
	}
	rng := rand.New(rand.NewPCG(3, 4))
	for range 1000 {
		r := Rating{Rating: 1500, Deviation: 45 + rng.Float64()*305, Volatility: 0.03 + rng.Float64()*0.2, At: start}
		got := r.AsOf(start.Add(time.Duration(rng.Int64N(int64(2000 * Period)))))
		if got.Deviation > InitialRD || got.Deviation < r.Deviation {
			t.Fatalf("%+v.AsOf(…).Deviation = %v, want between %v and InitialRD", r, got.Deviation, r.Deviation)
		}
	}
}

func TestDisplay(t *testing.T) {
	for _, c := range []struct {
		rating float64
		want   int
	}{{1464.06, 1464}, {1499.5, 1500}, {1500.49, 1500}, {Initial, 1500}} {
		if got := (Rating{Rating: c.rating}).Display(); got != c.want {
			t.Errorf("Rating{%v}.Display() = %d, want %d", c.rating, got, c.want)
		}
	}
}

// randomRound is a round of 2 to 8 players with random ratings 800–2400,
// deviations 45–350, volatilities 0.04–0.08, places 1..N (so with ties) and
// last rounds up to a week before now.
func randomRound(rng *rand.Rand, now time.Time) []Placing {
	n := 2 + rng.IntN(7)
	round := make([]Placing, n)
	for i := range round {
		r := Rating{
			Rating:     800 + rng.Float64()*1600,
			Deviation:  45 + rng.Float64()*305,
			Volatility: 0.04 + rng.Float64()*0.04,
			Rounds:     rng.IntN(100),
		}
		if r.Rounds > 0 {
			r.At = now.Add(-time.Duration(rng.Int64N(int64(7 * Period))))
		}
		round[i] = Placing{Rating: r, Place: 1 + rng.IntN(n)}
	}
	return round
}

// alone reports whether i's place is the round's first (or last, when last)
// and shared with no one.
func alone(round []Placing, i int, last bool) bool {
	for j, p := range round {
		if j != i && (p.Place == round[i].Place || (p.Place < round[i].Place) != last) {
			return false
		}
	}
	return true
}

// pointsFrom is each player's share of their rating change from each other
// player of the round: pointsFrom[i][j], with [i][i] zero.
func pointsFrom(round []Placing, now time.Time) [][]float64 {
	before := make([]Rating, len(round))
	for i, p := range round {
		before[i] = p.Rating.AsOf(now)
	}
	pts := make([][]float64, len(round))
	for i := range round {
		s := work(before[i], games(round, before, i))
		pts[i] = make([]float64, len(round))
		for j := range round {
			switch {
			case j < i:
				pts[i][j] = s.points[j]
			case j > i:
				pts[i][j] = s.points[j-1]
			}
		}
	}
	return pts
}

func TestUpdateProperties(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	now := start
	for k := range 5000 {
		now = now.Add(time.Minute)
		round := randomRound(rng, now)
		got := Update(round, now)
		if len(got) != len(round) {
			t.Fatalf("round %d: Update(%d players) gave %d ratings", k, len(round), len(got))
		}
		pts := pointsFrom(round, now)
		for i, p := range round {
			before, after := p.Rating, got[i]
			if after.Rounds != before.Rounds+1 || !after.At.Equal(now) {
				t.Fatalf("round %d: player %d: Rounds %d→%d, At %v; want %d and %v",
					k, i, before.Rounds, after.Rounds, after.At, before.Rounds+1, now)
			}
			if after.Deviation < MinRD || after.Deviation > InitialRD {
				t.Fatalf("round %d: player %d: deviation %v, want within [MinRD, InitialRD]", k, i, after.Deviation)
			}
			if alone(round, i, false) && after.Rating < before.Rating {
				t.Fatalf("round %d: %+v placed first lost rating: %v → %v", k, round, before.Rating, after.Rating)
			}
			if alone(round, i, true) && after.Rating > before.Rating {
				t.Fatalf("round %d: %+v placed last gained rating: %v → %v", k, round, before.Rating, after.Rating)
			}
			var sum float64
			for j, q := range round {
				sum += pts[i][j]
				if p.Place < q.Place && !(pts[i][j] > 0 && pts[j][i] < 0) {
					t.Fatalf("round %d: %d placed %d above %d placed %d, yet their shares from each other are %v and %v",
						k, i, p.Place, j, q.Place, pts[i][j], pts[j][i])
				}
			}
			if !near(after.Rating-before.Rating, sum, 1e-9) {
				t.Fatalf("round %d: player %d's change %v is not the sum of their shares %v", k, i, after.Rating-before.Rating, sum)
			}
		}
	}
}

// TestEqualPlayers: between two players of equal rating and deviation, the
// winner gains what the loser loses and a tie changes neither.
func TestEqualPlayers(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	for range 1000 {
		r := Rating{Rating: 800 + rng.Float64()*1600, Deviation: 45 + rng.Float64()*305, Volatility: 0.04 + rng.Float64()*0.04}
		won := Update([]Placing{{r, 1}, {r, 2}}, start)
		if gain, loss := won[0].Rating-r.Rating, r.Rating-won[1].Rating; gain <= 0 || !near(gain, loss, 1e-9) {
			t.Fatalf("Update(%+v beats its equal): gain %v, loss %v; want equal and positive", r, gain, loss)
		}
		tied := Update([]Placing{{r, 1}, {r, 1}}, start)
		for i := range tied {
			if !near(tied[i].Rating, r.Rating, 1e-9) {
				t.Fatalf("Update(%+v ties its equal)[%d].Rating = %v, want unchanged", r, i, tied[i].Rating)
			}
		}
	}
}

// TestTiedEquals: two tied players of equal rating take nothing from each
// other, whoever else is in the round.
func TestTiedEquals(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	for k := range 1000 {
		round := randomRound(rng, start)
		round[1] = round[0]
		pts := pointsFrom(round, start)
		if pts[0][1] != 0 || pts[1][0] != 0 {
			t.Fatalf("round %d: tied equals take %v and %v from each other, want 0", k, pts[0][1], pts[1][0])
		}
		got := Update(round, start)
		if got[0] != got[1] {
			t.Fatalf("round %d: tied equals rated %+v and %+v, want the same", k, got[0], got[1])
		}
	}
}

// TestSumNearZero: Glicko-2 is not zero-sum, as each player's change is
// weighted by their own new deviation, but among players of equal deviation
// and volatility the changes nearly cancel; the bounds, per player, are the
// measured worst with a margin.
func TestSumNearZero(t *testing.T) {
	for _, c := range []struct {
		name           string
		rdLo, rdHi     float64 // the round's deviation is drawn from here
		spread         float64 // ratings lie within this many points of each other, within 800–2400
		worst, average float64 // bounds on |Σ change| / N
	}{
		{"established, close", MinRD, MinRD, 400, 0.5, 0.05},
		{"established, any", MinRD, MinRD, 1600, 1.5, 0.15},
		{"not provisional, close", MinRD, ProvisionalRD, 400, 6, 0.3},
		{"not provisional, any", MinRD, ProvisionalRD, 1600, 20, 1.2},
		{"any, close", MinRD, InitialRD, 400, 25, 2},
		{"any", MinRD, InitialRD, 1600, 250, 15},
	} {
		rng := rand.New(rand.NewPCG(9, 10))
		var worst, total float64
		const rounds = 3000
		for range rounds {
			n := 2 + rng.IntN(7)
			rd := c.rdLo + rng.Float64()*(c.rdHi-c.rdLo)
			vol := 0.04 + rng.Float64()*0.04
			low := 800 + rng.Float64()*(1600-c.spread)
			round := make([]Placing, n)
			for i := range round {
				round[i] = Placing{Rating{Rating: low + rng.Float64()*c.spread, Deviation: rd, Volatility: vol}, 1 + rng.IntN(n)}
			}
			got := Update(round, start)
			var sum float64
			for i := range got {
				sum += got[i].Rating - round[i].Rating.Rating
			}
			per := math.Abs(sum) / float64(n)
			worst = max(worst, per)
			total += per
		}
		average := total / rounds
		t.Logf("%s: |Σ change| per player: worst %.3f, average %.3f", c.name, worst, average)
		if worst > c.worst || average > c.average {
			t.Errorf("%s: |Σ change| per player: worst %.3f, average %.3f; want at most %v and %v",
				c.name, worst, average, c.worst, c.average)
		}
	}
}

func TestUpdateFewerThanTwo(t *testing.T) {
	r := Rating{Rating: 1612, Deviation: 90, Volatility: 0.06, Rounds: 4, At: start}
	if got := Update(nil, start.Add(Period)); len(got) != 0 {
		t.Errorf("Update(nil) = %v, want none", got)
	}
	got := Update([]Placing{{r, 1}}, start.Add(Period))
	if len(got) != 1 || got[0] != r {
		t.Errorf("Update(one player %+v) = %+v, want it unchanged", r, got)
	}
}

func TestProvisional(t *testing.T) {
	r := New()
	if !r.Provisional() {
		t.Fatalf("New() = %+v is not provisional", r)
	}
	if (Rating{Deviation: ProvisionalRD}).Provisional() {
		t.Errorf("a deviation of ProvisionalRD is provisional")
	}
	now := start
	rounds := 0
	for ; r.Provisional(); rounds++ {
		if rounds == 15 {
			t.Fatalf("still provisional after %d rounds against established players: %+v", rounds, r)
		}
		now = now.Add(10 * time.Minute)
		established := Rating{Rating: 1500, Deviation: 50, Volatility: 0.06, Rounds: 200, At: now}
		place := 1 + rounds%2 // wins and losses in turn
		r = Update([]Placing{{r, place}, {established, 3 - place}}, now)[0]
	}
	if rounds < 5 {
		t.Errorf("established after only %d rounds: %+v", rounds, r)
	}
	t.Logf("established after %d two-player rounds: %+v", rounds, r)
}
