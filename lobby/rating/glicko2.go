package rating

import "math"

// scale converts between the Glicko and Glicko-2 scales (step 2 of the paper).
const scale = 173.7178

// epsilon is the volatility iteration's convergence tolerance (step 5).
const epsilon = 0.000001

// A result is one game of a period from one player's side: the opponent's
// rating and deviation before the period, and the player's score.
type result struct {
	rating, deviation, score float64
}

// A step is one player's period worked through the paper's steps, on the
// Glicko-2 scale, kept whole so tests can check each figure the paper prints.
type step struct {
	mu, phi, sigma float64   // step 2
	g, e           []float64 // step 3: g(φj) and E(μ, μj, φj) for each opponent
	v              float64   // step 3
	delta          float64   // step 4
	sigma1         float64   // step 5: σ'
	phiStar        float64   // step 6, at most InitialRD
	phi1, mu1      float64   // step 7: φ', μ'
	points         []float64 // each opponent's share of the rating change, in rating points
}

// g is the paper's g(φ), which discounts a game by the opponent's uncertainty.
func g(phi float64) float64 { return 1 / math.Sqrt(1+3*phi*phi/(math.Pi*math.Pi)) }

// expect is the paper's E(μ, μj, φj), the expected score against one opponent.
func expect(mu, muj, phij float64) float64 { return 1 / (1 + math.Exp(-g(phij)*(mu-muj))) }

// work runs steps 2 to 7 of Glickman's paper for self over opps (not empty).
func work(self Rating, opps []result) step {
	s := step{
		mu:    (self.Rating - Initial) / scale,
		phi:   min(self.Deviation, InitialRD) / scale,
		sigma: self.Volatility,
	}
	s.g = make([]float64, len(opps))
	s.e = make([]float64, len(opps))
	var inv, sum float64
	for j, o := range opps {
		phij := min(o.deviation, InitialRD) / scale
		s.g[j] = g(phij)
		s.e[j] = expect(s.mu, (o.rating-Initial)/scale, phij)
		inv += s.g[j] * s.g[j] * s.e[j] * (1 - s.e[j])
		sum += s.g[j] * (o.score - s.e[j])
	}
	s.v = 1 / inv
	s.delta = s.v * sum
	s.sigma1 = volatility(s.phi, s.sigma, s.v, s.delta)
	s.phiStar = min(math.Sqrt(s.phi*s.phi+s.sigma1*s.sigma1), InitialRD/scale)
	s.phi1 = 1 / math.Sqrt(1/(s.phiStar*s.phiStar)+1/s.v)
	s.mu1 = s.mu + s.phi1*s.phi1*sum
	s.points = make([]float64, len(opps))
	for j, o := range opps {
		s.points[j] = scale * s.phi1 * s.phi1 * s.g[j] * (o.score - s.e[j])
	}
	return s
}

// volatility is step 5: the new σ by the Illinois algorithm.
func volatility(phi, sigma, v, delta float64) float64 {
	a := math.Log(sigma * sigma)
	f := func(x float64) float64 {
		ex := math.Exp(x)
		d := phi*phi + v + ex
		return ex*(delta*delta-phi*phi-v-ex)/(2*d*d) - (x-a)/(Tau*Tau)
	}
	A := a
	var B float64
	if delta*delta > phi*phi+v {
		B = math.Log(delta*delta - phi*phi - v)
	} else {
		k := 1.0
		for f(a-k*Tau) < 0 {
			k++
		}
		B = a - k*Tau
	}
	fA, fB := f(A), f(B)
	for math.Abs(B-A) > epsilon {
		C := A + (A-B)*fA/(fB-fA)
		fC := f(C)
		if fC*fB <= 0 {
			A, fA = B, fB
		} else {
			fA /= 2
		}
		B, fB = C, fC
	}
	return math.Exp(A / 2)
}

// period rates self after one rating period against opps (step 8), with
// MinRD as a floor. The rating moves by the sum of the opponents' points
// rather than by converting μ' back, so a period that should change nothing
// changes nothing, to the last bit. Rounds and At are left to the caller.
func period(self Rating, opps []result) Rating {
	if len(opps) == 0 {
		return self
	}
	s := work(self, opps)
	for _, p := range s.points {
		self.Rating += p
	}
	self.Deviation = max(scale*s.phi1, MinRD)
	self.Volatility = s.sigma1
	return self
}
