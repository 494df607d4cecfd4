package main

// How the user ran the tool, so that the commands it prints for others to
// paste (the share line, the resume line) start the way theirs did.

import (
	"path/filepath"
	"strings"
)

// goRunFromRoot and goRunFromModule are the commands that build and run
// this tool with 'go run': from the module's root, as the README runs it,
// and from any other directory of the module.
const (
	goRunFromRoot   = "go run ./cmd/klondike"
	goRunFromModule = "go run klondike/cmd/klondike"
)

// invokedAs returns the command that started the tool, from arg0 (os.Args[0]):
//
//   - a binary that 'go run' built (see builtByGoRun) gives
//     "go run ./cmd/klondike" when the working directory holds cmd/klondike
//     (isDir tells), otherwise "go run klondike/cmd/klondike";
//   - a bare name was found on PATH by the shell: it stays as it is;
//   - a path stays the path given, or becomes its base name when lookPath
//     finds that name on PATH as the same file.
//
// A result that a shell would split is quoted.
func invokedAs(arg0 string, lookPath func(string) (string, error), isDir func(string) bool) string {
	if arg0 == "" {
		return "klondike"
	}
	if builtByGoRun(arg0) {
		if isDir(filepath.Join("cmd", "klondike")) {
			return goRunFromRoot
		}
		return goRunFromModule
	}
	if !strings.ContainsAny(arg0, `/\`) {
		return shellQuote(arg0)
	}
	base := filepath.Base(arg0)
	if p, err := lookPath(base); err == nil && samePath(p, arg0) {
		return shellQuote(base)
	}
	return shellQuote(arg0)
}

// builtByGoRun reports whether path is a binary that 'go run' built. The go
// command links it as $WORK/b001/exe/NAME, $WORK being a go-build directory
// under $GOTMPDIR or the system's temporary directory, and (since Go 1.24)
// keeps it in the build cache as $GOCACHE/xx/xx…-d/NAME, named by its
// hash, hex digits whose first two name the directory above.
func builtByGoRun(path string) bool {
	dir := filepath.Dir(path)
	if filepath.Base(dir) == "exe" {
		for _, part := range strings.Split(filepath.ToSlash(dir), "/") {
			if strings.HasPrefix(part, "go-build") {
				return true
			}
		}
		return false
	}
	hash, ok := strings.CutSuffix(filepath.Base(dir), "-d")
	prefix := filepath.Base(filepath.Dir(dir))
	return ok && len(hash) >= 32 && isHex(hash) && len(prefix) == 2 && strings.HasPrefix(hash, prefix)
}

func isHex(s string) bool {
	return strings.IndexFunc(s, func(r rune) bool {
		return !('0' <= r && r <= '9' || 'a' <= r && r <= 'f')
	}) < 0
}

// samePath reports whether a and b name the same file, as absolute paths.
func samePath(a, b string) bool {
	a, errA := filepath.Abs(a)
	b, errB := filepath.Abs(b)
	return errA == nil && errB == nil && a == b
}

// shellQuote quotes s for a POSIX shell when it holds anything but letters,
// digits and -_./:+@%,=.
func shellQuote(s string) string {
	plain := s != "" && strings.IndexFunc(s, func(r rune) bool {
		switch {
		case 'a' <= r && r <= 'z', 'A' <= r && r <= 'Z', '0' <= r && r <= '9':
			return false
		}
		return !strings.ContainsRune("-_./:+@%,=", r)
	}) < 0
	if plain {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}
