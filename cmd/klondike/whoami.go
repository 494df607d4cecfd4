package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"

	"klondike/api/client"
	"klondike/api/protocol"
)

// whoamiUsage prints whoami's help.
func whoamiUsage(w io.Writer) {
	fmt.Fprint(w, `Usage: klondike whoami --server ws://HOST:PORT/ws [--profile NAME]

Whoami connects to a klondiked server as the player saved for it in the
profile, says hello, and prints who that is: the player's id, name and tag
(# and the id's first four characters, shown beside the name to tell two
players of one name apart). With no player saved yet (or one the server no
longer knows, which it says on stderr), it makes a new player, named $USER
(or "player"), and saves it: play is then that player too.

Flags:
  --server URL    the server's WebSocket address, ws://HOST:PORT/ws (or
                  wss://…); a URL without a path gets /ws
`+profileFlagHelp+`
Output, one field a line:
  id:   3f2a9c0e5b7d1a48
  name: alice
  tag:  #3F2A

Exit status: 0 when it printed the player, 1 when the connection failed, the
server would not sign the player in or the player could not be saved (the
player is printed all the same), 2 for bad usage.

Examples:
  klondike whoami --server ws://127.0.0.1:8080/ws
  klondike whoami --server ws://127.0.0.1:8080/ws --profile work
`)
}

// runWhoami is the whoami command.
func runWhoami(args []string, _ io.Reader, stdout, stderr io.Writer) int {
	return whoamiMain(args, osPlayEnv(), stdout, stderr)
}

// whoamiMain is runWhoami in the surroundings env.
func whoamiMain(args []string, env playEnv, stdout, stderr io.Writer) int {
	fs := newFlagSet("whoami")
	var server, profileName string
	fs.StringVar(&server, "server", "", "server WebSocket `URL`")
	fs.StringVar(&profileName, "profile", defaultProfile, "the saved player's profile `NAME`")
	if ok, status := parseFlags(fs, args, whoamiUsage, stdout, stderr); !ok {
		return status
	}
	if fs.NArg() > 0 {
		return usageError(stderr, fs.Name(), fmt.Errorf("unexpected arguments %q", fs.Args()))
	}
	url, err := serverURL(server)
	if err == nil {
		err = checkProfileName(profileName)
	}
	if err != nil {
		return usageError(stderr, fs.Name(), err)
	}
	fail := func(err error) int {
		fmt.Fprintf(stderr, "%s: %v\n", fs.Name(), err)
		return exitFailure
	}
	p, err := openProfile(env.configDir, profileName)
	if err != nil {
		return fail(err)
	}
	saved, ok, err := p.load(url)
	if err != nil {
		return fail(err)
	}
	name := saved.Name
	if name == "" {
		name = env.getenv("USER")
	}
	if name == "" {
		name = "player"
	}

	ctx, cancel := context.WithTimeout(context.Background(), defaultDialTimeout+defaultReplyWait)
	defer cancel()
	conn, resp, err := client.Dial(ctx, url, client.Options{ReadTimeout: defaultReplyWait, WriteWait: defaultWriteWait})
	if err != nil {
		if resp != nil {
			return fail(fmt.Errorf("connecting to %s: %v (HTTP %s)", url, err, resp.Status))
		}
		return fail(fmt.Errorf("connecting to %s: %v", url, err))
	}
	defer conn.Close()
	defer conn.CloseNormal("bye", defaultWriteWait)
	// A saved player keeps its name; a new one, made when there is none or
	// the server forgot it, takes the saved name or $USER.
	hello := protocol.Hello{Type: protocol.TypeHello, Token: saved.Token}
	if !ok {
		hello = protocol.Hello{Type: protocol.TypeHello, Name: name}
	}
	w, refused, err := sayHello(conn, hello)
	if refused != nil && refused.Code == protocol.CodeUnauthorized && ok {
		fmt.Fprintf(stderr, "%s: %s\n", fs.Name(), forgotten(url))
		w, refused, err = sayHello(conn, protocol.Hello{Type: protocol.TypeHello, Name: name})
	}
	switch {
	case err != nil:
		return fail(err)
	case refused != nil:
		return fail(fmt.Errorf("could not sign you in: %s (%s)", clean(refused.Message), clean(refused.Code)))
	}
	status := exitOK
	if cr := (credential{Token: w.Token, PlayerID: w.PlayerID, Name: w.Name}); cr != saved {
		if err := p.save(url, cr); err != nil {
			status = fail(err)
		} else if !w.Resumed {
			fmt.Fprintf(stderr, "%s: a new player, saved in %s\n", fs.Name(), p.path)
		}
	}
	fmt.Fprintf(stdout, "id:   %s\nname: %s\ntag:  %s\n", clean(w.PlayerID), clean(w.Name), clean(w.tag()))
	return status
}

// whoamiWelcome is a welcome with the player's tag, which newer servers
// send; tag falls back on the id for older ones.
type whoamiWelcome struct {
	protocol.Welcome
	Tag string `json:"tag"`
}

// tag is the welcome's tag: the server's, or "#" and the id's first four
// characters in upper case, as the server makes it.
func (w *whoamiWelcome) tag() string {
	if w.Tag != "" {
		return w.Tag
	}
	id := w.PlayerID
	if len(id) > 4 {
		id = id[:4]
	}
	return "#" + strings.ToUpper(id)
}

// sayHello sends hello on conn and reads up to its reply: a welcome, or the
// server's refusal. Pushes that come first are skipped.
func sayHello(conn *client.Conn, hello protocol.Hello) (*whoamiWelcome, *protocol.Error, error) {
	id, err := conn.Request(&hello)
	if err != nil {
		return nil, nil, fmt.Errorf("saying hello: %v", err)
	}
	for {
		data, err := conn.Read()
		if err != nil {
			return nil, nil, fmt.Errorf("waiting for the welcome: %v", err)
		}
		var h protocol.Header
		if err := json.Unmarshal(data, &h); err != nil || h.Re != id {
			continue
		}
		switch h.Type {
		case protocol.TypeWelcome:
			var w whoamiWelcome
			if err := json.Unmarshal(data, &w); err != nil {
				return nil, nil, fmt.Errorf("cannot read the server's welcome: %v", err)
			}
			return &w, nil, nil
		case protocol.TypeError:
			var e protocol.Error
			if err := json.Unmarshal(data, &e); err != nil {
				return nil, nil, fmt.Errorf("cannot read the server's error: %v", err)
			}
			return nil, &e, nil
		}
		return nil, nil, errors.New("the server answered hello with " + strconv.Quote(truncate(h.Type, 40)))
	}
}
