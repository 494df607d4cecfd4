package engine

import (
	"bytes"
	"encoding/json"
	"errors"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

const goldenDoubleDeals = "testdata/double_deals.golden.json"

// TestNumberedDoubleOracle checks NumberedDouble against layouts of
// testdata/pysol_deals.py, which follows PySolFC's own dealing of Double
// Klondike (see docs/deals.md), hard-coded here.
func TestNumberedDoubleOracle(t *testing.T) {
	for _, tc := range []struct {
		seed uint64
		want string
	}{
		{1, `{"tableau":[["6H"],["3D","TH"],["5H","8D","8C"],["JC","JD","8D","2S"],["KH","AS","4C","2H","3S"],["5S","8C","JS","TD","2H","9C"],["5H","6C","QC","8S","AD","7D","7D"],["KC","6H","4H","AC","9H","9S","JH","4S"],["KC","TC","KD","7C","8S","8H","4D","2D","8H"]],"stock":["TH","AH","JC","4H","7H","QS","QC","7C","3S","QH","9S","2S","QH","3C","AS","4S","KS","6D","TD","9C","9D","JS","4D","5C","6C","AD","JH","6S","3C","JD","TC","AH","QS","2C","9H","3H","7S","5C","9D","KS","5D","TS","QD","7S","6D","TS","KD","QD","7H","3D","2C","KH","5D","3H","2D","4C","5S","6S","AC"]}`},
		{32000, `{"tableau":[["KC"],["KH","AS"],["9H","JS","7D"],["TD","6C","TH","JH"],["6D","3C","7S","JD","5H"],["3D","KD","9D","KD","5C","JD"],["9C","4H","QD","7C","TS","7H","4S"],["TH","AC","4C","KC","TC","QC","AH","8C"],["JS","7S","7C","4C","2H","4D","AS","8D","3S"]],"stock":["5S","2C","AC","5C","5S","3H","QS","9S","3D","AD","AD","AH","9H","6C","8S","6H","KS","TC","KH","9D","2C","6H","QD","TS","5H","4S","3C","8D","3H","2D","9C","QC","JH","7D","8C","9S","QH","2S","KS","6D","2S","2H","8S","JC","QS","6S","2D","7H","3S","TD","8H","JC","5D","6S","QH","4D","4H","8H","5D"]}`},
	} {
		got, err := json.Marshal(NumberedDouble(tc.seed))
		if err != nil {
			t.Fatal(err)
		}
		if string(got) != tc.want {
			t.Errorf("NumberedDouble(%d) =\n%s\nwant\n%s", tc.seed, got, tc.want)
		}
	}
}

// formatDoubleGolden writes the golden file of Double Klondike deals in the
// form of testdata/deals.golden.json.
func formatDoubleGolden(seeds []uint64) []byte {
	var b bytes.Buffer
	b.WriteString("[\n")
	for i, s := range seeds {
		layout, _ := json.Marshal(NumberedDouble(s))
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

// TestNumberedDoubleGolden compares NumberedDouble with
// testdata/double_deals.golden.json, whose layouts were checked against
// testdata/pysol_deals.py (TestPySolDealsScript); run with -update to
// rewrite the file.
func TestNumberedDoubleGolden(t *testing.T) {
	path := filepath.FromSlash(goldenDoubleDeals)
	if *update {
		if err := os.WriteFile(path, formatDoubleGolden(goldenSeeds), 0o644); err != nil {
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
			t.Fatalf("%s: bad seed %q", path, g.Seed)
		}
		want, err := ParseDeal(g.Layout)
		if err != nil {
			t.Fatalf("%s: seed %s: %v", path, g.Seed, err)
		}
		wantJSON, _ := json.Marshal(want)
		gotJSON, _ := json.Marshal(NumberedDouble(seed))
		if !bytes.Equal(gotJSON, wantJSON) {
			t.Errorf("NumberedDouble(%s) =\n%s\nwant\n%s", g.Seed, gotJSON, wantJSON)
		}
	}
	if !bytes.Equal(data, formatDoubleGolden(goldenSeeds)) {
		t.Errorf("%s is not in canonical form (run with -update)", path)
	}
}

// TestPySolDealsScript runs testdata/pysol_deals.py, when python3 is there,
// and compares its layouts with NumberedDeal's and NumberedDouble's for the
// golden seeds and a few random ones.
func TestPySolDealsScript(t *testing.T) {
	py, err := exec.LookPath("python3")
	if err != nil {
		t.Skip("no python3")
	}
	seeds := append([]uint64(nil), goldenSeeds...)
	rng := rand.New(rand.NewPCG(3, 4))
	for range 10 {
		seeds = append(seeds, rng.Uint64N(32000), rng.Uint64())
	}
	args := []string{filepath.FromSlash("testdata/pysol_deals.py"), ""}
	for _, s := range seeds {
		args = append(args, strconv.FormatUint(s, 10))
	}
	for _, game := range []string{"klondike", "double_klondike"} {
		args[1] = game
		out, err := exec.Command(py, args...).Output()
		if err != nil {
			t.Fatalf("%s: %v", game, err)
		}
		lines := strings.Split(strings.TrimSpace(string(out)), "\n")
		if len(lines) != len(seeds) {
			t.Fatalf("%s: %d layouts for %d seeds", game, len(lines), len(seeds))
		}
		for i, s := range seeds {
			d := NumberedDeal(s)
			if game == "double_klondike" {
				d = NumberedDouble(s)
			}
			got, _ := json.Marshal(d)
			if string(got) != lines[i] {
				t.Errorf("%s %d: engine\n%s\nscript\n%s", game, s, got, lines[i])
			}
		}
	}
}

// TestNumberedDealFor checks that the 52-card games share Klondike's deals,
// as in PySolFC, that Whitehead's foundations start with the stock's first
// card, and that Double Klondike's deals are valid 104-card layouts.
func TestNumberedDealFor(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	for range 300 {
		n := rng.Uint64()
		if rng.IntN(2) == 0 {
			n %= 32000
		}
		k, _ := json.Marshal(NumberedDeal(n))
		for _, v := range []Variant{Klondike, ThumbAndPouch, Whitehead} {
			if d, _ := json.Marshal(NumberedDealFor(v, n)); !bytes.Equal(d, k) {
				t.Fatalf("NumberedDealFor(%v, %d) is not NumberedDeal(%d)", v, n, n)
			}
		}
		d := NumberedDealFor(DoubleKlondike, n)
		if err := d.Validate(); err != nil || d.Decks() != 2 || len(d.Stock) != 59 {
			t.Fatalf("NumberedDealFor(double_klondike, %d): %v, %d decks, stock %d", n, err, d.Decks(), len(d.Stock))
		}
		for i, p := range append(d.Tableau[:], d.MorePiles...) {
			if cap(p) != len(p) || len(p) != i+1 {
				t.Fatalf("deal %d pile %d: len %d cap %d", n, i+1, len(p), cap(p))
			}
		}
		g, err := NewGame(NumberedDeal(n), DefaultRulesFor(Whitehead))
		if err != nil {
			t.Fatal(err)
		}
		base := NumberedDeal(n).Stock[0]
		if g.FoundationBase() != base.Rank() || g.Foundation(base.Suit()) != 1 || g.StockSize() != 23 || !g.AllFaceUp() {
			t.Fatalf("whitehead deal %d: base %d, foundation %d, stock %d", n, g.FoundationBase(), g.Foundation(base.Suit()), g.StockSize())
		}
	}
	// A deal of the wrong size for the game is refused.
	if _, err := NewGame(NumberedDeal(1), DefaultRulesFor(DoubleKlondike)); !errors.Is(err, ErrBadDeal) {
		t.Errorf("a 52-card deal for double_klondike: %v", err)
	}
	if _, err := NewGame(NumberedDouble(1), DefaultRules()); !errors.Is(err, ErrBadDeal) {
		t.Errorf("a 104-card deal for klondike: %v", err)
	}
}
