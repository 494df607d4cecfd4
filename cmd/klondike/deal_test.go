package main

import (
	"strconv"
	"strings"
	"testing"

	"klondike/engine"
)

// deal1 is the layout of deal #1 (PySolFC Klondike game 1).
const deal1 = `{"tableau":[["QH"],["7H","TS"],["5D","9S","5C"],["JC","KC","KH","4C"],["9H","KD","QC","KS","3C"],["2D","5H","AD","2S","QD","AH"],["JD","7C","5S","3H","9D","JS","AS"]],"stock":["4H","AC","4D","7S","3S","TD","4S","TH","8H","2C","JH","7D","6D","8S","8D","QS","6C","3D","8C","TC","6S","9C","2H","6H"]}`

func TestDealSeed1(t *testing.T) {
	out, errOut, status := runCmd(t, "", "deal", "--seed", "1")
	if status != 0 || errOut != "" {
		t.Fatalf("exit %d, stderr %q", status, errOut)
	}
	if out != deal1+"\n" {
		t.Errorf("deal --seed 1 =\n%s\nwant\n%s", out, deal1)
	}
	// The single-dash form works too.
	if out2, _, _ := runCmd(t, "", "deal", "-seed=1"); out2 != out {
		t.Errorf("deal -seed=1 = %q, want %q", out2, out)
	}
}

func TestDealRoundTrips(t *testing.T) {
	for _, n := range []uint64{0, 2, 31999, 32000, 123456, 1 << 63, 18446744073709551615} {
		s := strconv.FormatUint(n, 10)
		out, errOut, status := runCmd(t, "", "deal", "--seed", s)
		if status != 0 {
			t.Fatalf("deal --seed %s: exit %d, stderr %q", s, status, errOut)
		}
		if strings.Count(out, "\n") != 1 || !strings.HasSuffix(out, "\n") {
			t.Errorf("deal --seed %s: want one line, got %q", s, out)
		}
		d, err := engine.ParseDeal([]byte(out))
		if err != nil {
			t.Fatalf("deal --seed %s: output does not parse: %v", s, err)
		}
		want, _ := engine.NumberedDeal(n).MarshalJSON()
		got, _ := d.MarshalJSON()
		if string(got) != string(want) || strings.TrimSpace(out) != string(want) {
			t.Errorf("deal --seed %s = %s, want %s", s, out, want)
		}
	}
}

func TestDealBadUsage(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"deal"}, "no deal"},
		{[]string{"deal", "--seed"}, "flag needs an argument"},
		{[]string{"deal", "--seed", ""}, `--seed ""`},
		{[]string{"deal", "--seed", "-1"}, `--seed "-1"`},
		{[]string{"deal", "--seed", "+1"}, `--seed "+1"`},
		{[]string{"deal", "--seed", "0x10"}, `--seed "0x10"`},
		{[]string{"deal", "--seed", "1.5"}, `--seed "1.5"`},
		{[]string{"deal", "--seed", "abc"}, `--seed "abc"`},
		{[]string{"deal", "--seed", "18446744073709551616"}, `--seed "18446744073709551616"`},
		{[]string{"deal", "--seed", "1", "2"}, "unexpected arguments"},
		{[]string{"deal", "--draw", "1"}, "flag provided but not defined: -draw"},
	} {
		out, errOut, status := runCmd(t, "", tc.args...)
		if status != 2 {
			t.Errorf("%q: exit %d, want 2", tc.args, status)
		}
		if out != "" {
			t.Errorf("%q: stdout %q, want nothing", tc.args, out)
		}
		if !strings.Contains(errOut, tc.want) || !strings.Contains(errOut, "klondike deal --help") {
			t.Errorf("%q: stderr %q, want it to name %q and point to the help", tc.args, errOut, tc.want)
		}
	}
}
