package engine_test

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"klondike/engine"
)

func TestParseCard(t *testing.T) {
	for i := range engine.NumCards {
		c := engine.CardAt(i)
		got, err := engine.ParseCard(c.String())
		if err != nil || got != c {
			t.Errorf("ParseCard(%q) = %v, %v; want %v", c.String(), got, err, c)
		}
	}
	tests := []struct{ in, want string }{
		{"as", "AS"}, {"10h", "TH"}, {"10H", "TH"}, {"Q♥", "QH"}, {"k♣", "KC"}, {"2♦", "2D"}, {"t♠", "TS"}, {"jd", "JD"},
	}
	for _, tt := range tests {
		c, err := engine.ParseCard(tt.in)
		if err != nil || c.String() != tt.want {
			t.Errorf("ParseCard(%q) = %v, %v; want %s", tt.in, c, err, tt.want)
		}
	}
	for _, bad := range []string{"", "A", "1S", "11H", "ZS", "AX", "AS ", "10", "♥Q", "AHH"} {
		if _, err := engine.ParseCard(bad); !errors.Is(err, engine.ErrBadCard) {
			t.Errorf("ParseCard(%q) = %v, want ErrBadCard", bad, err)
		}
	}
	c := engine.NewCard(12, engine.Hearts)
	if c.Rank() != 12 || c.Suit() != engine.Hearts || !c.Red() || c.String() != "QH" {
		t.Errorf("NewCard(12, Hearts) = %v rank %d suit %v red %v", c, c.Rank(), c.Suit(), c.Red())
	}
	if engine.NewCard(0, engine.Clubs) != engine.NoCard || engine.NewCard(14, engine.Clubs) != engine.NoCard {
		t.Error("NewCard out of range is not NoCard")
	}
}

func TestParseMove(t *testing.T) {
	tests := []struct{ in, want string }{
		{"D", "D"}, {"d", "D"}, {" r ", "R"}, {"U", "U"}, {"Y", "Y"}, {" y", "Y"}, {"w-f", "W-F"}, {"W-T3", "W-T3"},
		{"t7-f", "T7-F"}, {"T7-T1", "T7-T1"}, {"t2:3-t5", "T2:3-T5"}, {"T2:13-T5", "T2:13-T5"},
		{"fh-t4", "FH-T4"}, {"FS-T7", "FS-T7"}, {"\tT1-T2\n", "T1-T2"},
	}
	for _, tt := range tests {
		m, err := engine.ParseMove(tt.in)
		if err != nil || m.String() != tt.want {
			t.Errorf("ParseMove(%q) = %v, %v; want %s", tt.in, m, err, tt.want)
		}
	}
	bad := []string{"", "X", "DD", "W", "W-", "W-T0", "W-T8", "W-X", "T0-F", "T8-T1", "T1-T9", "T1", "T1-",
		"T1:0-T2", "T1:14-T2", "T1:-T2", "T1:3-F", "F-T1", "FX-T1", "FH-T", "FH-T0", "T1--T2", "T1-T2x", "UU", "YY", "Y1", "T1:1234-T2"}
	for _, in := range bad {
		_, err := engine.ParseMove(in)
		var pe *engine.ParseError
		if !errors.Is(err, engine.ErrSyntax) || !errors.As(err, &pe) || pe.Input != in {
			t.Errorf("ParseMove(%q) = %v, want a *ParseError wrapping ErrSyntax", in, err)
		}
	}
	var m engine.Move
	if err := json.Unmarshal([]byte(`"t3:2-t4"`), &m); err != nil || m != engine.PileToPile(3, 4, 2) {
		t.Errorf("json.Unmarshal move = %v, %v", m, err)
	}
	if b, err := json.Marshal(engine.FoundationDown(engine.Spades, 2)); err != nil || string(b) != `"FS-T2"` {
		t.Errorf("json.Marshal move = %s, %v", b, err)
	}
	if _, err := json.Marshal(engine.Move{Kind: 42}); err == nil {
		t.Error("json.Marshal of a malformed move succeeded")
	}
}

func TestDealImportErrors(t *testing.T) {
	good, err := engine.NumberedDeal(1).MarshalJSON()
	if err != nil {
		t.Fatal(err)
	}
	if _, err := engine.ParseDeal(good); err != nil {
		t.Fatalf("ParseDeal(deal #1) = %v", err)
	}
	tests := []struct {
		name, from, to, want string
	}{
		{"duplicate", `"QH"`, `"AS"`, "duplicate card AS (tableau pile 1 card 1 and tableau pile 7 card 7)"},
		{"bad token", `"QH"`, `"QX"`, `bad card token "QX" at tableau pile 1 card 1`},
		{"short pile", `["7H","TS"]`, `["7H"]`, "tableau pile 2 has 1 cards, want 2"},
		{"short stock", `"4H",`, ``, "stock has 23 cards, want 24"},
		{"six piles", `["QH"],`, ``, "tableau has 6 piles, want 7"},
		{"not json", `{"tableau"`, `{tableau`, "invalid character"},
		{"unknown field", `"stock"`, `"stack"`, `unknown field "stack"`},
		{"trailing text", `"6H"]}`, `"6H"]}garbage {`, "text after the layout"},
		{"lower case and 10 accepted", `"TS"`, `"10s"`, ""},
		{"symbols accepted", `"QH"`, `"Q♥"`, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			in := strings.Replace(string(good), tt.from, tt.to, 1)
			d, err := engine.ParseDeal([]byte(in))
			if tt.want == "" {
				if err != nil || d.Tableau[0][0].String() != "QH" {
					t.Fatalf("ParseDeal(%s) = %v", in, err)
				}
				return
			}
			if !errors.Is(err, engine.ErrBadDeal) || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("ParseDeal(%s) = %v, want an ErrBadDeal naming %q", in, err, tt.want)
			}
		})
	}
}

func TestViewOfDeal1(t *testing.T) {
	g, err := engine.NewGame(engine.NumberedDeal(1), engine.DefaultRules())
	if err != nil {
		t.Fatal(err)
	}
	want := `{"tableau":[{"down":0,"up":["QH"]},{"down":1,"up":["TS"]},{"down":2,"up":["5C"]},{"down":3,"up":["4C"]},{"down":4,"up":["3C"]},{"down":5,"up":["AH"]},{"down":6,"up":["AS"]}],"stock":24,"waste":[],"waste_size":0,"foundations":{"C":0,"D":0,"H":0,"S":0},"score":0,"moves":0,"passes_used":0,"passes_left":null,"status":"playing","elapsed_ms":0}`
	if got, err := json.Marshal(g.View(0)); err != nil || string(got) != want {
		t.Errorf("view of deal #1:\n%s\nwant\n%s", got, want)
	}
	play(t, g, "D", "T6-F", "D")
	b, err := json.Marshal(g.View(1500))
	if err != nil {
		t.Fatal(err)
	}
	// Draw 3 turned 4H AC 4D, then 7S 3S TD: the top three are visible.
	want = `{"tableau":[{"down":0,"up":["QH"]},{"down":1,"up":["TS"]},{"down":2,"up":["5C"]},{"down":3,"up":["4C"]},{"down":4,"up":["3C"]},{"down":4,"up":["QD"]},{"down":6,"up":["AS"]}],"stock":18,"waste":["7S","3S","TD"],"waste_size":6,"foundations":{"C":0,"D":0,"H":1,"S":0},"score":15,"moves":3,"passes_used":0,"passes_left":null,"status":"playing","elapsed_ms":1500}`
	if string(b) != want {
		t.Errorf("view after D T6-F D:\n%s\nwant\n%s", b, want)
	}
	one, _ := engine.NewGame(engine.NumberedDeal(1), rules(func(r *engine.Rules) { r.Draw = 1; r.Passes = 3 }))
	play(t, one, "D", "D")
	v := one.View(0)
	if len(v.Waste) != 1 || v.Waste[0].String() != "AC" || v.PassesLeft == nil || *v.PassesLeft != 2 {
		t.Errorf("draw 1 view: waste %v passes_left %v; want [AC] and 2", v.Waste, v.PassesLeft)
	}
}

func TestRulesValidate(t *testing.T) {
	for _, r := range []engine.Rules{{Draw: 2}, {Draw: 3, Passes: 2}, {Draw: 1, Undo: 9}, {Draw: 1, Scoring: 7}, {}} {
		if err := r.Validate(); !errors.Is(err, engine.ErrBadRules) {
			t.Errorf("%+v.Validate() = %v, want ErrBadRules", r, err)
		}
	}
	if engine.DefaultPasses(1, engine.ScoringVegas) != 1 || engine.DefaultPasses(3, engine.ScoringVegas) != 3 || engine.DefaultPasses(3, engine.ScoringStandard) != 0 {
		t.Error("DefaultPasses wrong")
	}
	b, _ := json.Marshal(engine.DefaultRules())
	if string(b) != `{"draw":3,"passes":0,"foundation_to_tableau":true,"undo":"on","scoring":"standard"}` {
		t.Errorf("rules JSON = %s", b)
	}
}
