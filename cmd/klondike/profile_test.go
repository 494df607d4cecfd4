package main

import (
	"encoding/json"
	"net/http/httptest"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

// TestMain points the user's config directory (os.UserConfigDir: on Linux
// $XDG_CONFIG_HOME, on macOS and elsewhere $HOME, on Windows %AppData%) at
// a directory of its own, so that no test of a command that keeps its
// player reads or writes the real one.
func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "klondike-config-")
	if err != nil {
		panic(err)
	}
	for _, v := range []string{"XDG_CONFIG_HOME", "HOME", "AppData", "home"} {
		os.Setenv(v, dir)
	}
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

// configEnv is testPlayEnv with its config directory at dir and $USER set.
func configEnv(dir, user string) playEnv {
	e := testPlayEnv()
	e.getenv = env(map[string]string{"USER": user})
	e.configDir = func() (string, error) { return dir, nil }
	return e
}

// realServerURL serves the real server on loopback for the test and
// returns its WebSocket address.
func realServerURL(t *testing.T) string {
	t.Helper()
	hs := httptest.NewServer(newRealServer(t))
	t.Cleanup(hs.Close)
	return "ws" + strings.TrimPrefix(hs.URL, "http") + "/ws"
}

// whoami runs whoami with args in e and returns the player id it printed
// and its stderr; it fails the test unless whoami succeeds and prints id,
// name and tag.
func whoami(t *testing.T, e playEnv, args ...string) (id, name, stderr string) {
	t.Helper()
	var out, errOut strings.Builder
	if status := whoamiMain(args, e, &out, &errOut); status != exitOK {
		t.Fatalf("whoami %q: exit %d, stderr %q", args, status, errOut.String())
	}
	ls := lines(out.String())
	if len(ls) != 3 || !strings.HasPrefix(ls[0], "id:   ") || !strings.HasPrefix(ls[1], "name: ") || !strings.HasPrefix(ls[2], "tag:  ") {
		t.Fatalf("whoami %q printed:\n%s", args, out.String())
	}
	id, name = strings.TrimPrefix(ls[0], "id:   "), strings.TrimPrefix(ls[1], "name: ")
	if len(id) < 4 {
		t.Fatalf("whoami %q: id %q", args, id)
	}
	if tag := strings.TrimPrefix(ls[2], "tag:  "); tag != "#"+strings.ToUpper(id[:4]) {
		t.Errorf("whoami %q: tag %q for id %q", args, tag, id)
	}
	return id, name, errOut.String()
}

// readProfile returns the credentials of a profile file.
func readProfile(t *testing.T, path string) map[string]credential {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var creds map[string]credential
	if err := json.Unmarshal(data, &creds); err != nil {
		t.Fatalf("%s: %v\n%s", path, err, data)
	}
	return creds
}

// TestWhoamiSamePlayer: two runs of whoami with one config directory are
// one player; another profile, or another config directory, is another
// player. The profile is the user's alone.
func TestWhoamiSamePlayer(t *testing.T) {
	url := realServerURL(t)
	dir := t.TempDir()
	e := configEnv(dir, "tess")

	first, name, errOut := whoami(t, e, "--server", url)
	path := filepath.Join(dir, "klondike", "default.json")
	if name != "tess" || errOut != "klondike whoami: a new player, saved in "+path+"\n" {
		t.Errorf("first run: name %q, stderr %q", name, errOut)
	}
	again, name, errOut := whoami(t, e, "--server", url)
	if again != first || name != "tess" || errOut != "" {
		t.Errorf("second run: id %s name %q stderr %q; want %s, tess and nothing", again, name, errOut, first)
	}
	// The address as typed or completed is one server.
	if id, _, _ := whoami(t, e, "--server", strings.TrimSuffix(url, "/ws")); id != first {
		t.Errorf("the server without /ws: id %s, want %s", id, first)
	}

	work, _, _ := whoami(t, e, "--server", url, "--profile", "work")
	if work == first {
		t.Errorf("profile work is the default profile's player %s", first)
	}
	if id, _, _ := whoami(t, e, "--server", url, "--profile", "work"); id != work {
		t.Errorf("profile work again: %s, want %s", id, work)
	}
	if id, _, _ := whoami(t, configEnv(t.TempDir(), "tess"), "--server", url); id == first {
		t.Errorf("another config directory is the same player %s", id)
	}

	for _, p := range []string{path, filepath.Join(dir, "klondike", "work.json")} {
		st, err := os.Stat(p)
		if err != nil {
			t.Fatal(err)
		}
		if runtime.GOOS != "windows" && st.Mode().Perm() != 0o600 {
			t.Errorf("%s: mode %v, want 0600", p, st.Mode().Perm())
		}
	}
	if st, err := os.Stat(filepath.Join(dir, "klondike")); err != nil || (runtime.GOOS != "windows" && st.Mode().Perm() != 0o700) {
		t.Errorf("the profiles' directory: %v, %v; want mode 0700", st.Mode(), err)
	}
	creds := readProfile(t, path)
	if cr := creds[url]; len(creds) != 1 || cr.PlayerID != first || cr.Name != "tess" || len(cr.Token) < 32 {
		t.Errorf("%s holds %+v", path, creds)
	}
	if entries, _ := os.ReadDir(filepath.Join(dir, "klondike")); len(entries) != 2 {
		t.Errorf("the profiles' directory holds %d files, want 2 (no temporary file left)", len(entries))
	}
}

// TestForgottenPlayer: a saved token the server does not know (expired, or
// its player deleted) makes a new player, said on stderr, and the new
// token replaces it; the other servers' players are kept.
func TestForgottenPlayer(t *testing.T) {
	url := realServerURL(t)
	dir := t.TempDir()
	path := filepath.Join(dir, "klondike", "default.json")
	p := &profile{name: defaultProfile, path: path}
	other := credential{Token: "t2", PlayerID: "p2", Name: "elsewhere"}
	for server, cr := range map[string]credential{
		url:                 {Token: "0123456789abcdef0123456789abcdef0123456789abcdef", PlayerID: "0123456789abcdef", Name: "tess"},
		"ws://elsewhere/ws": other,
	} {
		if err := p.save(server, cr); err != nil {
			t.Fatal(err)
		}
	}
	id, name, errOut := whoami(t, configEnv(dir, "someone"), "--server", url)
	if !strings.Contains(errOut, "the saved player for "+url+" is no longer known; starting a new one\n") ||
		!strings.Contains(errOut, "a new player, saved in "+path) {
		t.Errorf("stderr %q", errOut)
	}
	if id == "0123456789abcdef" || name != "tess" {
		t.Errorf("the new player: %s %q, want a new id, named as the saved one", id, name)
	}
	creds := readProfile(t, path)
	if cr := creds[url]; cr.PlayerID != id || cr.Token == "0123456789abcdef0123456789abcdef0123456789abcdef" || creds["ws://elsewhere/ws"] != other {
		t.Errorf("the profile after: %+v", creds)
	}
	if again, _, errOut := whoami(t, configEnv(dir, "someone"), "--server", url); again != id || errOut != "" {
		t.Errorf("the next run: %s, stderr %q; want %s and nothing", again, errOut, id)
	}
}

// TestPlayForgottenPlayer: play, given a saved token the server refuses,
// says so on stderr and says hello again as a new player of the saved name,
// on the same connection, and saves the new player; --token is never saved.
func TestPlayForgottenPlayer(t *testing.T) {
	fs := newFakeServer(t)
	dir := t.TempDir()
	p := &profile{name: defaultProfile, path: filepath.Join(dir, "klondike", "default.json")}
	if err := p.save(fs.url, credential{Token: "old", PlayerID: "gone", Name: "tess"}); err != nil {
		t.Fatal(err)
	}
	var errOut syncBuffer
	cfg := playSetupOK(t, configEnv(dir, "someone"), "--server", fs.url, "--quick")
	cfg.Stderr = &errOut
	pl := startPlayer(t, "tess", cfg)
	fc := fs.accept()
	hello := fc.next("hello")
	if hello["token"] != "old" || hello["name"] != nil {
		t.Errorf("hello = %v, want the saved token and no name (the player keeps theirs)", hello)
	}
	fc.reply(hello, map[string]any{"type": "error", "code": "unauthorized", "message": "unknown or expired token"})
	hello = fc.next("hello")
	if hello["token"] != nil || hello["name"] != "tess" {
		t.Errorf("hello after the refusal = %v, want no token and the saved name", hello)
	}
	fc.reply(hello, map[string]any{"type": "welcome", "player_id": "new1", "name": "tess", "token": "new"})
	fc.next("quick_match")
	pl.expect("connected to " + fs.url + " as tess\n")
	if got, want := errOut.String(), "klondike play: the saved player for "+fs.url+" is no longer known; starting a new one\n"; got != want {
		t.Errorf("stderr %q, want %q", got, want)
	}
	if out := pl.out.String(); strings.Contains(out, "refused") || strings.Contains(out, "failed") {
		t.Errorf("the refusal shows in the output:\n%s", out)
	}
	if cr := readProfile(t, p.path)[fs.url]; cr != (credential{Token: "new", PlayerID: "new1", Name: "tess"}) {
		t.Errorf("saved %+v, want the new player", cr)
	}
	pl.cancel()

	// --token: its player, whatever the profile holds, and nothing saved.
	cfg = playSetupOK(t, configEnv(dir, "someone"), "--server", fs.url, "--token", "given", "--quick")
	if cfg.Profile != nil || cfg.Token != "given" {
		t.Fatalf("--token: profile %v, token %q", cfg.Profile, cfg.Token)
	}
	pl = startPlayer(t, "tess", cfg)
	fc = fs.accept()
	hello = fc.next("hello")
	if hello["token"] != "given" {
		t.Errorf("hello = %v, want --token's", hello)
	}
	fc.reply(hello, map[string]any{"type": "welcome", "player_id": "g", "name": "tess", "token": "given", "resumed": true})
	fc.next("quick_match")
	pl.cancel()
	<-pl.done
	pl.done <- nil
	if cr := readProfile(t, p.path)[fs.url]; cr.Token != "new" {
		t.Errorf("--token was saved: %+v", cr)
	}
}

// playSetupOK runs play's setup as runPlay does, with its player, and
// returns the configuration.
func playSetupOK(t *testing.T, e playEnv, args ...string) playConfig {
	t.Helper()
	var out, errOut strings.Builder
	cfg, ok, status := playSetup(args, e, &out, &errOut)
	if !ok {
		t.Fatalf("play %q: exit %d, stderr %q", args, status, errOut.String())
	}
	if err := usePlayer(&cfg, e.configDir); err != nil {
		t.Fatal(err)
	}
	return cfg
}

// TestCloseFromLaterRun: a challenge made in one run of play is closed by
// close ID in a later run with the same profile, its creator; quitting the
// game under way says how to resume without a token.
func TestCloseFromLaterRun(t *testing.T) {
	url := realServerURL(t)
	e := configEnv(t.TempDir(), "tess")

	first := startPlayer(t, "alice", playSetupOK(t, e, "--server", url, "--profile", "work", "--name", "alice",
		"--create-challenge", "--draw", "1", "--window", "1h"))
	first.expect("Challenge created.\nChallenge ")
	id := first.expect(" by alice\n")
	first.typeLine("play")
	first.expect("Challenge started.")
	first.typeLine("quit")
	first.expect("Your game goes on until its time runs out; resume with: klondike play --server " + url + " --profile work --challenge " + id + "\n")
	if err := first.end(); err != nil {
		t.Fatalf("first run: %v", err)
	}
	if out := first.out.String(); strings.Contains(out, "--token") {
		t.Errorf("the first run prints a token:\n%s", out)
	}

	// No --name: the saved player keeps hers.
	later := startPlayer(t, "alice", playSetupOK(t, e, "--server", url, "--profile", "work"))
	later.expect("connected to " + url + " as alice, the player saved in this profile\n")
	later.typeLine("close " + id)
	later.expect("Close challenge " + id + " now?")
	later.typeLine("y")
	later.expect("Challenge closed: nobody can start it now.\n")
	if err := later.end(); err != nil {
		t.Fatalf("later run: %v", err)
	}
	if out := later.out.String(); strings.Contains(out, "only the challenge's creator") || strings.Contains(out, "Only its creator") {
		t.Errorf("the later run is not the creator:\n%s", out)
	}
	if first.client.playerID == "" || later.client.playerID != first.client.playerID {
		t.Errorf("the runs are players %q and %q", first.client.playerID, later.client.playerID)
	}
}

// TestProfileFlags: a profile's name is a plain file name, and --token
// goes without a profile; nothing is written for a refused command.
func TestProfileFlags(t *testing.T) {
	dir := t.TempDir()
	e := configEnv(dir, "tess")
	for _, c := range []struct {
		cmd  string
		args []string
		want string
	}{
		{"whoami", []string{"--profile", "../x"}, `--profile "../x": want 1 to 64 letters, digits, - and _`},
		{"whoami", []string{"--profile", ""}, `--profile "": want 1 to 64`},
		{"whoami", []string{"--profile", "a b"}, `--profile "a b": want`},
		{"whoami", []string{"--profile", "work.json"}, `--profile "work.json": want`},
		{"whoami", []string{"--profile", strings.Repeat("x", 65)}, `want 1 to 64`},
		{"whoami", []string{"extra"}, "unexpected arguments"},
		{"play", []string{"--profile", "/etc/x"}, `--profile "/etc/x": want`},
		{"play", []string{"--profile", "work", "--token", "t"}, "give --token or --profile, not both"},
	} {
		args := append([]string{"--server", "ws://127.0.0.1:1/ws"}, c.args...)
		var out, errOut strings.Builder
		var status int
		if c.cmd == "whoami" {
			status = whoamiMain(args, e, &out, &errOut)
		} else {
			status = playMain(args, e, strings.NewReader(""), &out, &errOut)
		}
		if status != exitUsage || !strings.Contains(errOut.String(), c.want) || !strings.Contains(errOut.String(), "--help") {
			t.Errorf("%s %q: exit %d, stderr %q; want %d and %q", c.cmd, args, status, errOut.String(), exitUsage, c.want)
		}
	}
	for _, name := range []string{"default", "work", "Work-2_b", strings.Repeat("x", 64)} {
		if err := checkProfileName(name); err != nil {
			t.Errorf("%q: %v", name, err)
		}
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 0 {
		t.Errorf("the config directory holds %d entries after refused commands", len(entries))
	}
}

// TestBadProfileFile: a profile that does not read is reported, not
// overwritten.
func TestBadProfileFile(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "klondike", "default.json")
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte("not json"), 0o600); err != nil {
		t.Fatal(err)
	}
	var out, errOut strings.Builder
	status := whoamiMain([]string{"--server", "ws://127.0.0.1:1/ws"}, configEnv(dir, "tess"), &out, &errOut)
	if status != exitFailure || !strings.Contains(errOut.String(), path+" is not a profile of saved players") {
		t.Errorf("exit %d, stderr %q", status, errOut.String())
	}
	if data, _ := os.ReadFile(path); string(data) != "not json" {
		t.Errorf("the file became %q", data)
	}
	p := &profile{name: defaultProfile, path: path}
	if err := p.save("ws://h/ws", credential{Token: "t"}); err == nil {
		t.Error("save over a bad profile succeeded")
	}
}
