package ws

import "time"

// rateVerdict is what a token bucket says of one message.
type rateVerdict int

const (
	rateOK      rateVerdict = iota // within the budget
	rateLimited                    // over it: refuse this message
	rateFlood                      // far over it: close the connection
)

// tokenBucket is a connection's message budget. It is used by the
// connection's read goroutine only, and takes the time as an argument so
// that it can be tested without a clock.
type tokenBucket struct {
	rate   float64 // tokens a second
	burst  float64 // most tokens held
	tokens float64 // may go down to -burst: the debt of refused messages
	last   time.Time
}

func newTokenBucket(rate float64, burst int, now time.Time) *tokenBucket {
	return &tokenBucket{rate: rate, burst: float64(burst), tokens: float64(burst), last: now}
}

// take spends a token for one message received at now.
func (b *tokenBucket) take(now time.Time) rateVerdict {
	if b == nil {
		return rateOK
	}
	if dt := now.Sub(b.last); dt > 0 {
		b.tokens = min(b.burst, b.tokens+dt.Seconds()*b.rate)
		b.last = now
	}
	b.tokens--
	switch {
	case b.tokens >= 0:
		return rateOK
	case b.tokens > -b.burst:
		return rateLimited
	default:
		return rateFlood
	}
}
