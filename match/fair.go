package match

import (
	"crypto/rand"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"io"
	"strconv"
)

// A FairDeal is a round's deal with what proves it was fixed before play:
// the commitment is the hex SHA-256 of "<salt>:<seed>", published at
// round_starting; seed and salt are revealed at round_over.
type FairDeal struct {
	Seed       uint64
	Salt       string // hex of 16 random bytes; empty for a known deal
	Commitment string // empty for a known deal
	Known      bool   // the match chose the deal: no secret, no commitment
	// Winnable: the seed came from the solver's pool of deals proved
	// winnable under the round's rules.
	Winnable bool `json:",omitempty"`
}

// saltBytes is how many random bytes a salt has.
const saltBytes = 16

// NewFairDeal draws an unpredictable seed and salt from rnd (crypto/rand's
// Reader in production) and commits to them.
func NewFairDeal(rnd io.Reader) (FairDeal, error) {
	var b [8 + saltBytes]byte
	if _, err := io.ReadFull(rnd, b[:]); err != nil {
		return FairDeal{}, fmt.Errorf("drawing a seed: %w", err)
	}
	d := FairDeal{Seed: binary.LittleEndian.Uint64(b[:8]), Salt: hex.EncodeToString(b[8:])}
	d.Commitment = Commitment(d.Salt, d.Seed)
	return d, nil
}

// NewFairDealFor commits to a seed chosen elsewhere (a deal proved
// winnable, drawn at random by the pool) with a fresh salt from rnd.
func NewFairDealFor(seed uint64, rnd io.Reader) (FairDeal, error) {
	var b [saltBytes]byte
	if _, err := io.ReadFull(rnd, b[:]); err != nil {
		return FairDeal{}, fmt.Errorf("drawing a salt: %w", err)
	}
	d := FairDeal{Seed: seed, Salt: hex.EncodeToString(b[:])}
	d.Commitment = Commitment(d.Salt, d.Seed)
	return d, nil
}

// KnownDeal returns the deal of a match made on a chosen deal number.
func KnownDeal(seed uint64) FairDeal { return FairDeal{Seed: seed, Known: true} }

// Commitment returns the hex SHA-256 of the text "<salt>:<seed>", the seed
// in decimal. Anyone can check it: printf '%s:%s' "$salt" "$seed" | sha256sum.
func Commitment(salt string, seed uint64) string {
	sum := sha256.Sum256([]byte(salt + ":" + strconv.FormatUint(seed, 10)))
	return hex.EncodeToString(sum[:])
}

// randomReader is the source of seeds, salts, ids and tokens.
var randomReader io.Reader = rand.Reader
