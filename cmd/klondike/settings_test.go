package main

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"klondike/api/protocol"
)

// settingsJSON is the settings object as the client would send it.
func settingsJSON(t *testing.T, s protocol.PartialSettings) string {
	t.Helper()
	b, err := json.Marshal(s)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// TestPlaySettingsFlags: --create takes every field of the settings object
// by a flag of its name, sends those given and nothing else (the server's
// defaults), and refuses a value out of range or a flag that the action
// does not take, in the flag's words.
func TestPlaySettingsFlags(t *testing.T) {
	setup := func(args string) (playConfig, bool, string) {
		var out, errOut strings.Builder
		cfg, ok, _ := playSetup(append([]string{"--server", "ws://h/ws"}, strings.Fields(args)...), testPlayEnv(), &out, &errOut)
		return cfg, ok, errOut.String()
	}
	for _, c := range []struct{ args, want string }{
		{"--create", `{}`},
		{"--create --draw 1 --passes 3 --scoring vegas --undo off --foundation-to-tableau=false --mode score " +
			"--rounds 3 --max-players 2 --time-limit 10m --countdown 5 --deals winnable",
			`{"draw":1,"passes":3,"scoring":"vegas","undo":"off","foundation_to_tableau":false,"mode":"score",` +
				`"rounds":3,"max_players":2,"time_limit_s":600,"countdown_s":5,"deals":"winnable"}`},
		{"--create --time-limit 90", `{"time_limit_s":90}`},
		{"--create --time-limit 1h30m --countdown 0s", `{"time_limit_s":5400,"countdown_s":0}`},
		{"--create --seed 5", `{"seed":"5"}`},
		{"--create --seed 005 --game double_klondike", `{"seed":"5","game":"double_klondike"}`},
		{"--create --game klondike --undo on", `{"undo":"on"}`},
		{"--quick --draw 1 --passes 1 --scoring none", `{"draw":1,"passes":1,"scoring":"none"}`},
		{"--create-challenge --mode score --time-limit 5m --undo off --seed 9", `{"undo":"off","mode":"score","time_limit_s":300,"seed":"9"}`},
		{"--rounds 2 --rated", `{"rounds":2}`}, // for the lobby's create
	} {
		cfg, ok, errOut := setup(c.args)
		if !ok {
			t.Errorf("play %s: refused: %s", c.args, errOut)
			continue
		}
		if got := settingsJSON(t, cfg.Settings); got != c.want {
			t.Errorf("play %s: settings %s, want %s", c.args, got, c.want)
		}
	}
	for _, c := range []struct{ args, want string }{
		{"--create --passes 2", "--passes 2: want 0 (unlimited), 1 or 3"},
		{"--create --scoring golf", `--scoring "golf": want standard, vegas or none`},
		{"--create --undo maybe", `--undo "maybe": want on, off or no_reveal`},
		{"--create --mode fast", `--mode "fast": want race or score`},
		{"--create --rounds 21", "--rounds 21: want 1 to 20"},
		{"--create --max-players 0", "--max-players 0: want 1 to 64"},
		{"--create --time-limit 1s", `--time-limit "1s": want whole seconds or a duration from 2s to 3h, such as 10m`},
		{"--create --time-limit 4h", `--time-limit "4h": want whole seconds or a duration from 2s to 3h`},
		{"--create --time-limit 1.5s", `--time-limit "1.5s": want whole seconds`},
		{"--create --countdown 31", `--countdown "31": want whole seconds or a duration from 0s to 30s, such as 5s`},
		{"--create --deals some", `--deals "some": want any or winnable`},
		{"--create --seed -1", `--seed "-1": want a deal number`},
		{"--create --seed 5 --rated", "--rated with --seed: anyone can study a known deal beforehand, so it rates nobody"},
		{"--create --seed 5 --deals winnable", "--deals winnable with --seed: the seed already says which deal"},
		{"--create --game whitehead --passes 0", "--game whitehead --passes 0: bad rules: passes 0: whitehead has no redeal (passes 1)"},
		{"--quick --undo off", "--undo goes with --create and --create-challenge: a quick match seats you by game, draw, passes and scoring"},
		{"--quick --rounds 2", "--rounds goes with --create: a quick match seats you by game, draw, passes and scoring"},
		{"--create-challenge --max-players 2", "--max-players goes with --create: a challenge is one game"},
		{"--code K7QX2M --time-limit 5m", "--time-limit goes with --create, --quick and --create-challenge"},
		{"--daily 3 --scoring vegas", "--scoring goes with --create, --quick and --create-challenge"},
	} {
		if _, ok, errOut := setup(c.args); ok || !strings.Contains(errOut, c.want) {
			t.Errorf("play %s: ok %v, stderr %q; want %q", c.args, ok, errOut, c.want)
		}
	}
	out, _, _ := runCmd(t, "", "play", "--help")
	for _, want := range []string{"--passes 0|1|3", "--scoring standard|vegas|none", "--undo on|off|no_reveal",
		"--foundation-to-tableau=false", "--mode race|score", "--time-limit D", "--rounds N", "--max-players N",
		"--countdown D", "--deals any|winnable", "--seed N", "--public", "--rated", "create ... --FLAG VALUE",
		"Ties: the earlier to reach the result ranks first."} {
		if !strings.Contains(out, want) {
			t.Errorf("play --help has no %q", want)
		}
	}
	if !strings.Contains(playHelp, "create ... --draw 1 --rounds 3 --time-limit 10m") {
		t.Errorf("the help command does not say that create takes settings:\n%s", playHelp)
	}
}

// TestPlayLobbyCreateSettings: the lobby's create takes the settings'
// flags after its words, over those play was started with; quick keeps of
// them what it seats players by, and challenge create what a challenge
// takes.
func TestPlayLobbyCreateSettings(t *testing.T) {
	fs := newFakeServer(t)
	rounds, undo := 2, "off"
	p := startPlayer(t, "bob", playConfig{URL: fs.url, Settings: protocol.PartialSettings{Rounds: &rounds, Undo: &undo}})
	fc := fs.accept()
	welcome(fc, "bob")
	fc.reply(fc.next("list_matches"), map[string]any{"type": "matches", "matches": []any{}})
	for _, c := range []struct{ line, typ, want string }{
		{"create public --draw 1 --rounds 3 --time-limit 10m", "create_match",
			`{"draw":1,"undo":"off","rounds":3,"time_limit_s":600,"public":true}`},
		{"create --seed 7", "create_match", `{"undo":"off","rounds":2,"seed":"7"}`},
		{"quick", "quick_match", `{}`},
		{"challenge create 2h --draw 1 --mode score", "create_challenge", `{"draw":1,"undo":"off","mode":"score"}`},
	} {
		p.typeLine(c.line)
		req := fc.next(c.typ)
		got, _ := json.Marshal(req["settings"])
		var want map[string]any
		json.Unmarshal([]byte(c.want), &want)
		wantJSON, _ := json.Marshal(want) // keys sorted as got's
		if string(got) != string(wantJSON) {
			t.Errorf("%s: %s settings %s, want %s", c.line, c.typ, got, wantJSON)
		}
		if c.typ == "create_challenge" && req["window_s"] != float64(7200) {
			t.Errorf("%s: window_s %v, want 7200", c.line, req["window_s"])
		}
		fc.reply(req, map[string]any{"type": "error", "code": "bad_request", "message": "no"})
	}
	p.expect("Could not create the challenge: no\n")
}

// TestPlayCreateSeedEndToEnd: --seed N --create makes a match on deal
// number N, a known deal, with the other settings given, on the real
// server; the summary and the round say so, and the deal checks out.
func TestPlayCreateSeedEndToEnd(t *testing.T) {
	url := realServerURL(t)
	e := configEnv(t.TempDir(), "sam")
	p := startPlayer(t, "sam", playSetupOK(t, e, "--server", strings.TrimPrefix(url, "ws://"), "--create", "--seed", "5",
		"--draw", "1", "--scoring", "vegas", "--undo", "off", "--mode", "score", "--rounds", "2",
		"--time-limit", "30s", "--countdown", "0", "--max-players", "2"))
	p.expect("  draw 1, 1 pass, vegas scoring, undo off, score, 2 rounds of 0:30, deal #5\n  Players (1/2): sam")
	p.typeLine("start")
	p.expect("Round 1 starts in ")
	p.expect("  Known deal #5: no commitment.\n")
	p.expect("Round 1 started")
	p.typeLine("resign")
	p.typeLine("y")
	p.expect("Round 1 results:")
	p.expect("Deal: #5 (a known deal)\n")
	p.expect("deal: known deal #5 (no commitment to check)")
	p.expect("layout checked: deal #5, as dealt to you")
	p.typeLine("quit")
	if err := p.end(); err != nil {
		t.Fatalf("run: %v", err)
	}
	if out := p.out.String(); strings.Contains(out, "WARNING") {
		t.Errorf("warning in the output:\n%s", out)
	}
}

func TestParseSeconds(t *testing.T) {
	for _, c := range []struct {
		in   string
		want int
		ok   bool
	}{
		{"90", 90, true}, {"10m", 600, true}, {"1h30m", 5400, true}, {"2s", 2, true}, {"3h", 10800, true},
		{"1s", 0, false}, {"3h1s", 0, false}, {"1.5s", 0, false}, {"-5", 0, false}, {"soon", 0, false}, {"", 0, false},
	} {
		got, err := parseSeconds(c.in, minTimeLimit, maxTimeLimit)
		if (err == nil) != c.ok || got != c.want {
			t.Errorf("parseSeconds(%q) = %d, %v; want %d, ok %v", c.in, got, err, c.want, c.ok)
		}
	}
	if _, err := parseSeconds("0", 0, maxCountdown); err != nil {
		t.Errorf("a countdown of 0: %v", err)
	}
	if got := shortDuration(30 * time.Second); got != "30s" {
		t.Errorf("shortDuration(30s) = %q", got)
	}
}
