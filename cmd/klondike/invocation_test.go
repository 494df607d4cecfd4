package main

import (
	"errors"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// testPlayEnv is a made-up surrounding for play: no environment, the tool
// run as "klondike" from PATH, no directories, no config directory
// (configEnv gives one).
func testPlayEnv() playEnv {
	return playEnv{
		getenv:    env(nil),
		arg0:      "klondike",
		lookPath:  func(string) (string, error) { return "", exec.ErrNotFound },
		isDir:     func(string) bool { return false },
		configDir: func() (string, error) { return "", errors.New("no config directory in this test") },
	}
}

func TestInvokedAs(t *testing.T) {
	goBuild := filepath.Join("/tmp", "go-build1234567890", "b001", "exe", "klondike")
	goTmp := filepath.Join("/home", "me", "gotmp", "go-build42", "b001", "exe", "klondike")
	const cachedHash = "6fa7744905464b0982076555f10dc960d29f723222bff4f5fafd6b9e190c78cf"
	cached := "/root/.cache/go-build/6f/" + cachedHash + "-d/klondike"
	onPath := map[string]string{"klondike": "/usr/local/bin/klondike"}
	for _, c := range []struct {
		name   string
		arg0   string
		inRoot bool // the working directory holds cmd/klondike
		want   string
	}{
		{"go run from the module's root", goBuild, true, "go run ./cmd/klondike"},
		{"go run elsewhere in the module", goBuild, false, "go run klondike/cmd/klondike"},
		{"go run with GOTMPDIR", goTmp, true, "go run ./cmd/klondike"},
		{"go run from the build cache", cached, true, "go run ./cmd/klondike"},
		{"go run from a GOCACHE elsewhere", "/var/cache/gc/" + cachedHash[:2] + "/" + cachedHash + "-d/klondike", false, "go run klondike/cmd/klondike"},
		{"a -d directory not the cache's", "/opt/" + cachedHash + "-d/klondike", false, "/opt/" + cachedHash + "-d/klondike"},
		{"a cache-like directory of another prefix", "/opt/ab/" + cachedHash + "-d/klondike", false, "/opt/ab/" + cachedHash + "-d/klondike"},
		{"a name found on PATH", "klondike", false, "klondike"},
		{"a path that PATH also finds", "/usr/local/bin/klondike", false, "klondike"},
		{"a relative path", "./klondike", true, "./klondike"},
		{"a path PATH does not find", "/opt/kl/bin/klondike", false, "/opt/kl/bin/klondike"},
		{"a renamed binary", "/usr/local/bin/kl", false, "/usr/local/bin/kl"},
		{"an exe directory not go run's", "/opt/exe/klondike", false, "/opt/exe/klondike"},
		{"a test binary", filepath.Join("/tmp", "go-build1", "b001", "klondike.test"), true, "/tmp/go-build1/b001/klondike.test"},
		{"a path with a space", "/home/me/my tools/klondike", false, `'/home/me/my tools/klondike'`},
		{"no name", "", false, "klondike"},
	} {
		lookPath := func(name string) (string, error) {
			if p, ok := onPath[name]; ok {
				return p, nil
			}
			return "", exec.ErrNotFound
		}
		var asked []string
		isDir := func(p string) bool {
			asked = append(asked, p)
			return c.inRoot
		}
		if got := invokedAs(c.arg0, lookPath, isDir); got != c.want {
			t.Errorf("%s: invokedAs(%q) = %q, want %q", c.name, c.arg0, got, c.want)
		}
		if strings.HasPrefix(c.want, "go run") && (len(asked) != 1 || asked[0] != filepath.Join("cmd", "klondike")) {
			t.Errorf("%s: isDir asked about %q, want cmd/klondike", c.name, asked)
		}
	}
}

func TestShellQuote(t *testing.T) {
	for in, want := range map[string]string{
		"klondike":           "klondike",
		"./bin/klondike-1.2": "./bin/klondike-1.2",
		"a b":                "'a b'",
		"it's":               `'it'\''s'`,
		"$HOME/k":            `'$HOME/k'`,
		"":                   "''",
	} {
		if got := shellQuote(in); got != want {
			t.Errorf("shellQuote(%q) = %q, want %q", in, got, want)
		}
	}
}

// TestPlaySetup checks play's flags: the action, --public, and the program
// named in the lines to share.
func TestPlaySetup(t *testing.T) {
	goRun := testPlayEnv()
	goRun.arg0 = filepath.Join("/tmp", "go-build99", "b001", "exe", "klondike")
	goRun.isDir = func(string) bool { return true }
	for _, c := range []struct {
		args    []string
		env     playEnv
		action  string
		public  bool
		program string
	}{
		{[]string{"--create"}, testPlayEnv(), "create", false, "klondike"},
		{[]string{"--create", "--public"}, testPlayEnv(), "create", true, "klondike"},
		{[]string{"--public", "--create", "--draw", "1"}, goRun, "create", true, "go run ./cmd/klondike"},
		{[]string{"--code", "K7QX2M"}, goRun, "join", false, "go run ./cmd/klondike"},
		{nil, testPlayEnv(), "", false, "klondike"},
	} {
		var out, errOut strings.Builder
		cfg, ok, status := playSetup(append([]string{"--server", "ws://h/ws"}, c.args...), c.env, &out, &errOut)
		if !ok {
			t.Errorf("play %q: exit %d, stderr %q", c.args, status, errOut.String())
			continue
		}
		if cfg.Action != c.action || cfg.Public != c.public || cfg.Program != c.program {
			t.Errorf("play %q: action %q, public %v, program %q; want %q, %v, %q",
				c.args, cfg.Action, cfg.Public, cfg.Program, c.action, c.public, c.program)
		}
	}
	for _, args := range [][]string{{"--public"}, {"--quick", "--public"}, {"--code", "X", "--public"}} {
		var out, errOut strings.Builder
		_, ok, status := playSetup(append([]string{"--server", "ws://h/ws"}, args...), testPlayEnv(), &out, &errOut)
		if ok || status != exitUsage || !strings.Contains(errOut.String(), "--public goes with --create") {
			t.Errorf("play %q: ok %v, exit %d, stderr %q; want a usage error", args, ok, status, errOut.String())
		}
	}
}
