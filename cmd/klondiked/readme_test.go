package main

import (
	"bytes"
	"os"
	"regexp"
	"strings"
	"testing"
)

// helpFlag is one flag as `klondiked --help` prints it.
type helpFlag struct {
	name, env, def string
}

// helpFlags reads every flag, its environment variable and its default
// from the --help text.
func helpFlags(t *testing.T) map[string]helpFlag {
	t.Helper()
	var out bytes.Buffer
	if _, err := parseOptions([]string{"--help"}, env(nil), &out); err == nil {
		t.Fatal("--help: no flag.ErrHelp")
	}
	flagLine := regexp.MustCompile(`^  -([a-z0-9-]+)`)
	envRe := regexp.MustCompile(`\(env (KLONDIKE_[A-Z0-9_]+)`)
	defRe := regexp.MustCompile(`\(default "?([^")]*)"?\)$`)
	flags := map[string]helpFlag{}
	var cur *helpFlag
	for _, line := range strings.Split(out.String(), "\n") {
		if m := flagLine.FindStringSubmatch(line); m != nil {
			flags[m[1]] = helpFlag{name: m[1]}
			f := flags[m[1]]
			cur = &f
			continue
		}
		if cur == nil || strings.TrimSpace(line) == "" {
			continue
		}
		if m := envRe.FindStringSubmatch(line); m != nil {
			cur.env = m[1]
		}
		if m := defRe.FindStringSubmatch(line); m != nil {
			cur.def = m[1]
		}
		flags[cur.name] = *cur
	}
	if len(flags) < 10 {
		t.Fatalf("read %d flags from --help:\n%s", len(flags), out.String())
	}
	return flags
}

// TestReadmeFlagsTable: the README's table of the server's flags has one
// row for each flag of `klondiked --help`, with its environment variable,
// and no row for a flag that does not exist.
func TestReadmeFlagsTable(t *testing.T) {
	readme, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	rowRe := regexp.MustCompile("^\\| `--([a-z0-9-]+)` \\| `(KLONDIKE_[A-Z0-9_]+)[^`]*` \\| ([^|]*) \\|")
	rows := map[string][2]string{}
	inTable := false
	for _, line := range strings.Split(string(readme), "\n") {
		if strings.HasPrefix(line, "| flag | environment | default | meaning |") {
			inTable = true
			continue
		}
		if !inTable {
			continue
		}
		if !strings.HasPrefix(line, "|") {
			break
		}
		if m := rowRe.FindStringSubmatch(line); m != nil {
			rows[m[1]] = [2]string{m[2], strings.TrimSpace(m[3])}
		}
	}
	for name, f := range helpFlags(t) {
		row, ok := rows[name]
		if !ok {
			t.Errorf("README's flags table has no row for --%s (env %s)", name, f.env)
			continue
		}
		if row[0] != f.env {
			t.Errorf("README: --%s's environment variable is %s, --help says %s", name, row[0], f.env)
		}
		if def := strings.Trim(row[1], "`"); f.def != "" && def != f.def {
			t.Errorf("README: --%s's default is %q, --help says %q", name, def, f.def)
		}
		delete(rows, name)
	}
	for name := range rows {
		t.Errorf("README's flags table has a row for --%s, which klondiked does not have", name)
	}
}
