package main

import (
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// runCmd runs the tool with args and stdin and returns what it wrote and its
// exit status.
func runCmd(t *testing.T, stdin string, args ...string) (stdout, stderr string, status int) {
	t.Helper()
	var out, errOut strings.Builder
	status = run(args, strings.NewReader(stdin), &out, &errOut)
	return out.String(), errOut.String(), status
}

// writeFile writes content to a file in a fresh temporary directory and
// returns its path.
func writeFile(t *testing.T, name, content string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// lines splits output into its lines, without the final newline.
func lines(s string) []string {
	s = strings.TrimSuffix(s, "\n")
	if s == "" {
		return nil
	}
	return strings.Split(s, "\n")
}

// failReader fails the test if anything reads it.
type failReader struct{ t *testing.T }

func (r failReader) Read([]byte) (int, error) {
	r.t.Error("stdin was read")
	return 0, io.EOF
}

func TestHelp(t *testing.T) {
	for _, args := range [][]string{
		{"--help"}, {"-h"}, {"-help"}, {"help"},
		{"help", "deal"}, {"help", "replay"}, {"help", "moves"},
		{"deal", "--help"}, {"deal", "-h"},
		{"replay", "--help"}, {"replay", "-h"},
		{"moves", "--help"}, {"moves", "-h"},
		{"help", "whoami"}, {"whoami", "--help"},
		// --help wins over other flags, even bad ones that come after it.
		{"replay", "--seed", "1", "--help", "--draw", "7"},
	} {
		out, errOut, status := runCmd(t, "", args...)
		if status != 0 {
			t.Errorf("%q: exit %d, want 0; stderr %q", args, status, errOut)
		}
		if errOut != "" {
			t.Errorf("%q: stderr %q, want nothing", args, errOut)
		}
		if !strings.HasPrefix(out, "Usage: klondike") || !strings.Contains(out, "Examples:") {
			t.Errorf("%q: stdout is not a usage with examples:\n%s", args, out)
		}
	}
}

func TestCommandHelpNamesFlags(t *testing.T) {
	for cmd, flags := range map[string][]string{
		"deal":   {"--seed"},
		"replay": {"--seed", "--deal", "--draw", "--passes", "--scoring", "--undo", "--no-foundation-to-tableau", "--elapsed", "vegas"},
		"moves":  {"--seed", "--deal", "--draw", "--passes", "--scoring", "--undo", "--no-foundation-to-tableau"},
		"whoami": {"--server", "--profile", "id:", "name:", "tag:"},
		"play":   {"--profile", "--token", "whoami"},
	} {
		out, _, _ := runCmd(t, "", cmd, "--help")
		for _, f := range flags {
			if !strings.Contains(out, f) {
				t.Errorf("klondike %s --help does not mention %s", cmd, f)
			}
		}
	}
	out, _, _ := runCmd(t, "", "help")
	for _, c := range commands {
		if !strings.Contains(out, "  "+c.name+" ") {
			t.Errorf("klondike help does not list %s", c.name)
		}
	}
}

func TestUnknownCommand(t *testing.T) {
	for _, args := range [][]string{{}, {"bogus"}, {"--seed", "1"}, {"help", "bogus"}} {
		out, errOut, status := runCmd(t, "", args...)
		if status != 2 {
			t.Errorf("%q: exit %d, want 2", args, status)
		}
		if out != "" {
			t.Errorf("%q: stdout %q, want nothing", args, out)
		}
		if !strings.Contains(errOut, "Usage: klondike") {
			t.Errorf("%q: stderr has no usage: %q", args, errOut)
		}
	}
}
