package engine

import (
	"bytes"
	"encoding/json"
	"flag"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"testing"
)

var update = flag.Bool("update", false, "rewrite testdata/deals.golden.json from NumberedDeal")

const goldenDeals = "testdata/deals.golden.json"

// goldenSeeds are the deal numbers in testdata/deals.golden.json: both sides
// of the switch from the LCG to the Mersenne Twister at 32000, the edges of
// one- and two-word Mersenne Twister keys, and the top of uint64.
var goldenSeeds = []uint64{
	0, 1, 2, 100, 617, 11982, 24266, 31999,
	32000, 32001, 123456, 1000000,
	4294967295, 4294967296, 4294967297,
	9007199254740993, 1 << 63, 12345678901234567890,
	18446744073709551614, 18446744073709551615,
}

// TestNumberedDealOracle checks NumberedDeal against layouts taken from
// PySolFC's Klondike, hard-coded here so that they do not depend on the golden
// file.
func TestNumberedDealOracle(t *testing.T) {
	for _, tc := range []struct {
		seed uint64
		want string
	}{
		{1, `{"tableau":[["QH"],["7H","TS"],["5D","9S","5C"],["JC","KC","KH","4C"],["9H","KD","QC","KS","3C"],["2D","5H","AD","2S","QD","AH"],["JD","7C","5S","3H","9D","JS","AS"]],` +
			`"stock":["4H","AC","4D","7S","3S","TD","4S","TH","8H","2C","JH","7D","6D","8S","8D","QS","6C","3D","8C","TC","6S","9C","2H","6H"]}`},
		{123456, `{"tableau":[["3C"],["6H","KD"],["AC","8S","JD"],["9C","TC","2S","TS"],["2C","6C","TH","4H","9H"],["2D","KC","9D","AS","QH","3S"],["3D","4C","8C","JS","AH","7H","8H"]],` +
			`"stock":["6D","QS","6S","4S","QC","TD","KH","5D","KS","7D","5H","7S","8D","2H","5S","9S","JH","JC","3H","AD","4D","5C","7C","QD"]}`},
	} {
		d := NumberedDeal(tc.seed)
		got, err := json.Marshal(d)
		if err != nil {
			t.Fatal(err)
		}
		if string(got) != tc.want {
			t.Errorf("NumberedDeal(%d) =\n%s\nwant\n%s", tc.seed, got, tc.want)
		}
	}
}

type goldenDeal struct {
	Seed   string          `json:"seed"`
	Layout json.RawMessage `json:"layout"`
}

// formatGolden writes the golden file: a JSON list, one deal a line, tab
// indented, with a final newline.
func formatGolden(seeds []uint64) []byte {
	var b bytes.Buffer
	b.WriteString("[\n")
	for i, s := range seeds {
		layout, _ := json.Marshal(NumberedDeal(s))
		b.WriteString("\t{\"seed\": \"")
		b.WriteString(strconv.FormatUint(s, 10))
		b.WriteString("\", \"layout\": ")
		b.Write(layout)
		b.WriteString("}")
		if i < len(seeds)-1 {
			b.WriteByte(',')
		}
		b.WriteByte('\n')
	}
	b.WriteString("]\n")
	return b.Bytes()
}

// TestNumberedDealGolden compares NumberedDeal with testdata/deals.golden.json.
// The layouts there for seeds of 32000 and up were cross-checked against
// CPython 3.11's random.Random(n), shuffling with int(r.random()*(k+1)), and
// those below 32000 against an independent Python rendering of the LCG; run
// with -update to rewrite the file.
func TestNumberedDealGolden(t *testing.T) {
	path := filepath.FromSlash(goldenDeals)
	if *update {
		if err := os.WriteFile(path, formatGolden(goldenSeeds), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var golden []goldenDeal
	if err := json.Unmarshal(data, &golden); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	if len(golden) != len(goldenSeeds) {
		t.Errorf("%s has %d deals, want %d (run with -update)", path, len(golden), len(goldenSeeds))
	}
	for _, g := range golden {
		seed, err := strconv.ParseUint(g.Seed, 10, 64)
		if err != nil {
			t.Errorf("%s: bad seed %q: %v", path, g.Seed, err)
			continue
		}
		want, err := ParseDeal(g.Layout)
		if err != nil {
			t.Errorf("%s: seed %s: %v", path, g.Seed, err)
			continue
		}
		wantJSON, _ := json.Marshal(want)
		gotJSON, _ := json.Marshal(NumberedDeal(seed))
		if !bytes.Equal(gotJSON, wantJSON) {
			t.Errorf("NumberedDeal(%s) =\n%s\nwant\n%s", g.Seed, gotJSON, wantJSON)
		}
	}
	if !bytes.Equal(data, formatGolden(goldenSeeds)) {
		t.Errorf("%s is not in canonical form (run with -update)", path)
	}
}

func TestNumberedDealValid(t *testing.T) {
	check := func(n uint64) {
		t.Helper()
		d := NumberedDeal(n)
		if err := d.Validate(); err != nil {
			t.Fatalf("NumberedDeal(%d): %v", n, err)
		}
	}
	for n := range uint64(2001) {
		check(n)
	}
	for n := uint64(31900); n < 32100; n++ {
		check(n)
	}
	rng := rand.New(rand.NewPCG(1, 2))
	for range 2000 {
		check(rng.Uint64())
		check(uint64(rng.Uint32()))
	}
	for _, n := range goldenSeeds {
		check(n)
	}
}

// TestNumberedDealSlices checks that the piles and the stock do not share
// capacity, so appending to one cannot overwrite another.
func TestNumberedDealSlices(t *testing.T) {
	d := NumberedDeal(7)
	for i, p := range d.Tableau {
		if cap(p) != len(p) {
			t.Errorf("pile %d: cap %d, len %d", i+1, cap(p), len(p))
		}
	}
	if cap(d.Stock) != len(d.Stock) {
		t.Errorf("stock: cap %d, len %d", cap(d.Stock), len(d.Stock))
	}
}

// TestNumberedDealPure checks that the same number always gives the same deal.
func TestNumberedDealPure(t *testing.T) {
	for _, n := range []uint64{5, 40000, 1 << 40} {
		a, _ := json.Marshal(NumberedDeal(n))
		NumberedDeal(n + 1)
		b, _ := json.Marshal(NumberedDeal(n))
		if !bytes.Equal(a, b) {
			t.Errorf("NumberedDeal(%d) changed between calls", n)
		}
	}
}

// TestMT19937 checks the generator against CPython 3.11's random.Random(n):
// its first three getrandbits(32) values, the 701st (past the first full
// regeneration of the state), and the first random().
func TestMT19937(t *testing.T) {
	for _, tc := range []struct {
		seed   uint64
		first  [3]uint32
		at700  uint32
		random float64
	}{
		{0, [3]uint32{3626764237, 1654615998, 3255389356}, 2140787315, 0.8444218515250481},
		{32000, [3]uint32{1598467916, 3084624151, 3613492840}, 477818259, 0.3721723162993418},
		{4294967296, [3]uint32{485306839, 1508871100, 1794561286}, 3189475354, 0.11299430095636409},
		{18446744073709551615, [3]uint32{93740670, 1068495656, 1452108352}, 192472331, 0.021825695401270107},
	} {
		var r mt19937
		r.seed(tc.seed)
		for i, want := range tc.first {
			if got := r.next(); got != want {
				t.Errorf("seed %d: output %d = %d, want %d", tc.seed, i, got, want)
			}
		}
		for range 700 - 3 {
			r.next()
		}
		if got := r.next(); got != tc.at700 {
			t.Errorf("seed %d: output 700 = %d, want %d", tc.seed, got, tc.at700)
		}
		r.seed(tc.seed)
		if got := r.random(); got != tc.random {
			t.Errorf("seed %d: random() = %v, want %v", tc.seed, got, tc.random)
		}
	}
}

var sinkDeal Deal

func BenchmarkNumberedDeal(b *testing.B) {
	for _, bc := range []struct {
		name string
		seed uint64
	}{
		{"small", 617},
		{"large", 18446744073709551615},
	} {
		b.Run(bc.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				sinkDeal = NumberedDeal(bc.seed)
			}
		})
	}
}
