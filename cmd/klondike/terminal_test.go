package main

import (
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// charDevice is the file information of a terminal.
type charDevice struct{ fs.FileInfo }

func (charDevice) Mode() fs.FileMode { return fs.ModeDevice | fs.ModeCharDevice }

// termWriter is an output that isTerminal takes for a terminal.
type termWriter struct{ strings.Builder }

func (*termWriter) Stat() (fs.FileInfo, error) { return charDevice{}, nil }

// termReader is an input that isTerminal takes for a terminal.
type termReader struct{ *strings.Reader }

func (termReader) Stat() (fs.FileInfo, error) { return charDevice{}, nil }

// env returns a getenv that reads vars.
func env(vars map[string]string) func(string) string {
	return func(k string) string { return vars[k] }
}

func TestIsTerminal(t *testing.T) {
	file, err := os.Create(filepath.Join(t.TempDir(), "out"))
	if err != nil {
		t.Fatal(err)
	}
	defer file.Close()
	for _, c := range []struct {
		name string
		v    any
		want bool
	}{
		{"a character device", &termWriter{}, true},
		{"a terminal as input", termReader{strings.NewReader("")}, true},
		{"a regular file", file, false},
		{"a buffer", &strings.Builder{}, false},
		{"nil", nil, false},
	} {
		if got := isTerminal(c.v); got != c.want {
			t.Errorf("isTerminal(%s) = %v, want %v", c.name, got, c.want)
		}
	}
}

func TestUseColor(t *testing.T) {
	for _, c := range []struct {
		mode     colorMode
		terminal bool
		env      map[string]string
		want     bool
	}{
		{colorAuto, true, nil, true},
		{colorAuto, false, nil, false},
		{colorAuto, true, map[string]string{"NO_COLOR": "1"}, false},
		{colorAuto, true, map[string]string{"NO_COLOR": "0"}, false}, // any value but "" counts
		{colorAuto, true, map[string]string{"NO_COLOR": ""}, true},
		{colorAuto, true, map[string]string{"TERM": "dumb"}, false},
		{colorAuto, true, map[string]string{"TERM": "xterm-256color"}, true},
		{colorAlways, false, nil, true},
		{colorAlways, true, map[string]string{"NO_COLOR": "1"}, true}, // a flag overrides NO_COLOR
		{colorNever, true, nil, false},
	} {
		if got := useColor(c.mode, c.terminal, env(c.env)); got != c.want {
			t.Errorf("useColor(%v, terminal %v, env %v) = %v, want %v", c.mode.String(), c.terminal, c.env, got, c.want)
		}
	}
}

// TestPlayColorFlag checks --color through play's flag parsing: the
// terminal and the environment are made up.
func TestPlayColorFlag(t *testing.T) {
	noColor := map[string]string{"NO_COLOR": "1"}
	for _, c := range []struct {
		args     []string
		terminal bool
		env      map[string]string
		want     bool
	}{
		{nil, true, nil, true},
		{nil, false, nil, false},
		{nil, true, noColor, false},
		{[]string{"--color"}, false, nil, true},
		{[]string{"--color"}, true, noColor, true},
		{[]string{"--color=always"}, false, noColor, true},
		{[]string{"--color=true"}, false, nil, true},
		{[]string{"--color=auto"}, true, nil, true},
		{[]string{"--color=auto"}, true, noColor, false},
		{[]string{"--color=never"}, true, nil, false},
		{[]string{"--color=false"}, true, nil, false},
	} {
		args := append([]string{"--server", "ws://h/ws"}, c.args...)
		var out io.Writer = &strings.Builder{}
		if c.terminal {
			out = &termWriter{}
		}
		var errOut strings.Builder
		e := testPlayEnv()
		e.getenv = env(c.env)
		cfg, ok, status := playSetup(args, e, out, &errOut)
		if !ok {
			t.Errorf("play %q: exit %d, stderr %q", c.args, status, errOut.String())
			continue
		}
		if cfg.Color != c.want {
			t.Errorf("play %q on a terminal %v with %v: colour %v, want %v", c.args, c.terminal, c.env, cfg.Color, c.want)
		}
	}
	for args, want := range map[string]string{
		"--color never":  `write --color=never`,
		"--color=bogus":  `want auto, always or never`,
		"--color=sorted": `want auto, always or never`,
	} {
		var out, errOut strings.Builder
		_, ok, status := playSetup(append([]string{"--server", "ws://h/ws"}, strings.Fields(args)...), testPlayEnv(), &out, &errOut)
		if ok || status != exitUsage || !strings.Contains(errOut.String(), want) {
			t.Errorf("play %s: ok %v, exit %d, stderr %q; want exit %d and %q", args, ok, status, errOut.String(), exitUsage, want)
		}
	}
}

// TestNoteTerminalInput checks that the commands that read moves say so
// when they read a terminal, and only then.
func TestNoteTerminalInput(t *testing.T) {
	const note = "reading moves from the terminal"
	for _, c := range []struct {
		args     []string
		terminal bool
		want     bool
	}{
		{[]string{"moves", "--seed", "1"}, true, true},
		{[]string{"moves", "--seed", "1", "-"}, true, true},
		{[]string{"moves", "--seed", "1"}, false, false},
		{[]string{"replay", "--seed", "1"}, true, true},
		{[]string{"replay", "--seed", "1", "-"}, false, false},
		{[]string{"solve", "--seed", "1", "--nodes", "1"}, true, false}, // solve reads no moves by default
		{[]string{"solve", "--seed", "1", "--nodes", "1", "-"}, true, true},
	} {
		var stdin io.Reader = strings.NewReader("")
		if c.terminal {
			stdin = termReader{strings.NewReader("")}
		}
		var out, errOut strings.Builder
		run(c.args, stdin, &out, &errOut)
		if got := strings.Contains(errOut.String(), note); got != c.want {
			t.Errorf("%q with stdin a terminal %v: note %v, want %v; stderr %q", c.args, c.terminal, got, c.want, errOut.String())
		}
	}
}
