package main

import (
	"encoding/json"
	"strings"
	"testing"

	"klondike/api/protocol"
	"klondike/engine"
)

// TestVerifyDeal checks the end-of-round check of the deal: each way the
// revealed seed, salt, layout or dealt board can disagree with what was
// announced gives a WARNING line, and a fair deal none.
func TestVerifyDeal(t *testing.T) {
	layout := func(seed uint64) json.RawMessage {
		b, _ := json.Marshal(engine.NumberedDeal(seed))
		return b
	}
	open1 := deal1View(t, engine.DefaultRules(), 0)
	open2g, _ := engine.NewGame(engine.NumberedDeal(2), engine.DefaultRules())
	open2 := open2g.View(0)
	good := protocol.DealReveal{Seed: "1", Salt: "ab12", Commitment: commitment("ab12", "1"), Layout: layout(1)}
	for _, c := range []struct {
		name      string
		announced string
		known     string
		deal      protocol.DealReveal
		opening   *engine.View
		want      []string
	}{
		{"good", good.Commitment, "", good, &open1,
			[]string{"deal verified: commitment matches", "layout checked: deal #1, as dealt to you"}},
		{"no opening seen", good.Commitment, "", good, nil, []string{"deal verified: commitment matches"}},
		{"commitment missed", "", "", good, nil, []string{"note: the commitment was not seen", "deal verified"}},
		{"other salt", good.Commitment, "", protocol.DealReveal{Seed: "1", Salt: "ab13", Layout: layout(1)}, nil,
			[]string{"WARNING: DEAL NOT VERIFIED", "WARNING:   committed:            " + good.Commitment}},
		{"other seed", good.Commitment, "", protocol.DealReveal{Seed: "2", Salt: "ab12", Layout: layout(2)}, nil,
			[]string{"WARNING: DEAL NOT VERIFIED"}},
		{"layout not the seed's", good.Commitment, "", protocol.DealReveal{Seed: "1", Salt: "ab12", Layout: layout(2)}, nil,
			[]string{"deal verified", "WARNING: the revealed layout is not deal #1's"}},
		{"dealt another board", good.Commitment, "", good, &open2,
			[]string{"deal verified", "WARNING: the board you were dealt is not deal #1's: pile 1 differs"}},
		{"bad layout", good.Commitment, "", protocol.DealReveal{Seed: "1", Salt: "ab12", Layout: json.RawMessage(`{}`)}, nil,
			[]string{"WARNING: the revealed layout cannot be read"}},
		{"bad seed", good.Commitment, "", protocol.DealReveal{Seed: "x"}, nil, []string{"WARNING: the deal number"}},
		{"known deal", "", "1", protocol.DealReveal{Seed: "1", KnownDeal: true, Layout: layout(1)}, &open1,
			[]string{"deal: known deal #1 (no commitment to check)", "layout checked"}},
		{"known deal switched", "", "7", protocol.DealReveal{Seed: "1", KnownDeal: true, Layout: layout(1)}, nil,
			[]string{"WARNING: DEAL NOT VERIFIED: deal #7 was announced, #1 revealed"}},
	} {
		got := verifyDeal(c.announced, c.known, c.deal, engine.DefaultRules(), c.opening)
		text := strings.Join(got, "\n")
		for _, w := range c.want {
			if !strings.Contains(text, w) {
				t.Errorf("%s: no %q in\n%s", c.name, w, text)
			}
		}
		if warn := strings.Contains(text, "WARNING"); warn != strings.Contains(strings.Join(c.want, "\n"), "WARNING") {
			t.Errorf("%s: warning = %v in\n%s", c.name, warn, text)
		}
	}
}
