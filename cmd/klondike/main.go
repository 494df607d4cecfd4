// Command klondike is the command-line tool of the Klondike solitaire server:
// it prints numbered deals, replays games move by move and lists the legal
// moves of a position, so that anyone can check a round's result, in every
// game the server plays (--game: Klondike, Thumb and Pouch, Whitehead,
// Double Klondike); it solves deals of the games the solver plays and
// measures the share of winnable ones.
//
// Usage:
//
//	klondike COMMAND [flags] [args]
//
// Run "klondike help" for the list of commands and "klondike COMMAND --help"
// for a command's flags and examples.
package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
)

func main() {
	os.Exit(run(os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
}

// Exit statuses shared by the commands.
const (
	exitOK      = 0 // success
	exitFailure = 1 // a move was refused (or the output could not be written)
	exitUsage   = 2 // bad usage, a bad flag value or a bad input file
)

// A command is one subcommand of the tool. Its run gets the arguments after
// the command's name; given --help it prints its usage to stdout and returns 0.
type command struct {
	name    string
	summary string
	run     func(args []string, stdin io.Reader, stdout, stderr io.Writer) int
}

// commands is the dispatch table, in the order the usage lists them.
var commands = []command{
	{"deal", "print the layout of a numbered deal as JSON", runDeal},
	{"replay", "replay moves on a deal and report each move as a JSON line", runReplay},
	{"moves", "replay moves on a deal, then list the legal moves", runMoves},
	{"play", "play matches on a server from the terminal", runPlay},
	{"whoami", "print the player saved for a server: its id, name and tag", runWhoami},
	{"solve", "decide whether a deal can be won and print a winning line", runSolve},
	{"winnability", "solve a range of numbered deals and print the winnable share", runWinnability},
}

func lookup(name string) (command, bool) {
	for _, c := range commands {
		if c.name == name {
			return c, true
		}
	}
	return command{}, false
}

// run is the whole tool: it runs the command that args name and returns the
// exit status.
func run(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	if len(args) == 0 {
		usage(stderr)
		return exitUsage
	}
	name, rest := args[0], args[1:]
	switch name {
	case "-h", "-help", "--help":
		usage(stdout)
		return exitOK
	case "help":
		if len(rest) == 0 {
			usage(stdout)
			return exitOK
		}
		c, ok := lookup(rest[0])
		if !ok || len(rest) > 1 {
			fmt.Fprintf(stderr, "klondike help: unknown command %q\n\n", rest[0])
			usage(stderr)
			return exitUsage
		}
		return c.run([]string{"--help"}, stdin, stdout, stderr)
	}
	c, ok := lookup(name)
	if !ok {
		fmt.Fprintf(stderr, "klondike: unknown command %q\n\n", name)
		usage(stderr)
		return exitUsage
	}
	return c.run(rest, stdin, stdout, stderr)
}

func usage(w io.Writer) {
	fmt.Fprint(w, `Usage: klondike COMMAND [flags] [args]

The command-line tool of the Klondike solitaire server.

Commands:
`)
	for _, c := range commands {
		fmt.Fprintf(w, "  %-11s %s\n", c.name, c.summary)
	}
	fmt.Fprint(w, `  help        print this help, or a command's help: klondike help COMMAND

Run 'klondike COMMAND --help' for a command's flags and examples.

Examples:
  klondike deal --seed 1
  klondike deal 1 --game double_klondike
  echo "T6-F T7-F D" | klondike replay --seed 1
  klondike replay --deal layout.json --draw 1 game.txt
  klondike moves --seed 1 game.txt
  klondike whoami --server ws://127.0.0.1:8080/ws
  klondike solve --seed 1 --json
  klondike solve --seed 1 --game thumb_and_pouch
  klondike winnability --from 1 --count 100
  klondike winnability --all-rules --from 1 --count 100 --nodes 1000000 --budget 0
`)
}

// newFlagSet returns a flag set for a command that reports nothing itself:
// parseFlags prints the errors and the usage.
func newFlagSet(name string) *flag.FlagSet {
	fs := flag.NewFlagSet("klondike "+name, flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	fs.Usage = func() {}
	return fs
}

// parseFlags parses a command's flags. On --help it prints the usage to
// stdout; on an error, the error and a hint to stderr. It returns ok when the
// command should go on, and otherwise the exit status.
func parseFlags(fs *flag.FlagSet, args []string, usage func(io.Writer), stdout, stderr io.Writer) (ok bool, status int) {
	err := fs.Parse(args)
	switch {
	case err == nil:
		return true, exitOK
	case errors.Is(err, flag.ErrHelp):
		usage(stdout)
		return false, exitOK
	}
	return false, usageError(stderr, fs.Name(), err)
}

// usageError reports a usage error of the command and returns exitUsage.
func usageError(stderr io.Writer, cmd string, err error) int {
	fmt.Fprintf(stderr, "%s: %v\nRun '%s --help' for usage.\n", cmd, err, cmd)
	return exitUsage
}

// inputError reports a bad input (such as a deal file) and returns exitUsage.
func inputError(stderr io.Writer, cmd string, err error) int {
	fmt.Fprintf(stderr, "%s: %v\n", cmd, err)
	return exitUsage
}
