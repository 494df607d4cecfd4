package main

// When the tool's output goes to a terminal, and whether it is painted.

import (
	"fmt"
	"io/fs"
)

// A statter is what isTerminal needs of a file: *os.File is one, and a test
// can stand in for a terminal with its own.
type statter interface {
	Stat() (fs.FileInfo, error)
}

// isTerminal reports whether v, a standard stream, is a character device
// such as a terminal. Anything that is not a file is not one.
func isTerminal(v any) bool {
	f, ok := v.(statter)
	if !ok {
		return false
	}
	st, err := f.Stat()
	return err == nil && st.Mode()&fs.ModeCharDevice != 0
}

// A colorMode is the value of play's --color flag: when the board is
// painted (red suits red, card backs dim).
type colorMode int

const (
	colorAuto   colorMode = iota // on a terminal, unless NO_COLOR is set or TERM is dumb
	colorAlways                  // always, even into a pipe or with NO_COLOR
	colorNever                   // never
)

var colorModeNames = [...]string{colorAuto: "auto", colorAlways: "always", colorNever: "never"}

func (m *colorMode) String() string {
	if m == nil || int(*m) >= len(colorModeNames) {
		return colorModeNames[colorAuto]
	}
	return colorModeNames[*m]
}

// Set takes auto, always or never; "true" (--color alone) means always and
// "false" never.
func (m *colorMode) Set(s string) error {
	switch s {
	case "auto":
		*m = colorAuto
	case "always", "true":
		*m = colorAlways
	case "never", "false":
		*m = colorNever
	default:
		return fmt.Errorf("want auto, always or never, as in --color=never")
	}
	return nil
}

// IsBoolFlag lets --color stand alone, meaning --color=always.
func (m *colorMode) IsBoolFlag() bool { return true }

// useColor decides whether to paint: always and never are obeyed; auto
// paints a terminal, unless NO_COLOR is set to anything but "" (see
// https://no-color.org) or TERM is "dumb". getenv reads the environment.
func useColor(m colorMode, terminal bool, getenv func(string) string) bool {
	switch m {
	case colorAlways:
		return true
	case colorNever:
		return false
	}
	return terminal && getenv("NO_COLOR") == "" && getenv("TERM") != "dumb"
}
