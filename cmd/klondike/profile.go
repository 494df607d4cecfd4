package main

// The credential store: the terminal client keeps the token of each
// server's welcome in the user's config directory, so that a later run is
// the same player (its records, its daily attempts, its challenges). A
// profile (--profile NAME, "default" without it) is one file,
// CONFIG/klondike/NAME.json, mapping server URLs to credentials; several
// profiles keep several players apart on one server.

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// A credential is what a profile keeps of its player on one server: the
// token that resumes it, and who it is, for whoami and for a new player's
// name should the token be forgotten by the server.
type credential struct {
	Token    string `json:"token"`
	PlayerID string `json:"player_id"`
	Name     string `json:"name"`
}

// defaultProfile is the profile without --profile.
const defaultProfile = "default"

// maxProfileName bounds a profile's name, which is a file name.
const maxProfileName = 64

// profileFlagHelp documents --profile for every command that takes it.
const profileFlagHelp = `  --profile NAME  the saved player to be: each profile keeps one player a
                  server, in CONFIG/klondike/NAME.json (CONFIG is the
                  user's config directory, such as ~/.config); NAME is
                  letters, digits, - and _ (default "default")
`

// checkProfileName refuses a profile name that is not a plain file name:
// letters, digits, - and _ only, so that it cannot name another directory.
func checkProfileName(name string) error {
	if name == "" || len(name) > maxProfileName || strings.IndexFunc(name, func(r rune) bool {
		return !('a' <= r && r <= 'z' || 'A' <= r && r <= 'Z' || '0' <= r && r <= '9' || r == '-' || r == '_')
	}) >= 0 {
		return fmt.Errorf("--profile %q: want 1 to %d letters, digits, - and _", name, maxProfileName)
	}
	return nil
}

// A profile is one file of credentials, by server URL.
type profile struct {
	name string // "default" or --profile's
	path string // CONFIG/klondike/NAME.json
}

// openProfile returns the profile named name (checked already) in the
// config directory that configDir gives. Nothing is read yet.
func openProfile(configDir func() (string, error), name string) (*profile, error) {
	dir, err := configDir()
	if err != nil {
		return nil, fmt.Errorf("no config directory to keep the player in (%v); give --token", err)
	}
	return &profile{name: name, path: filepath.Join(dir, "klondike", name+".json")}, nil
}

// flag is the --profile flag that selects p, for the commands the client
// prints: "" for the default profile.
func (p *profile) flag() string {
	if p == nil || p.name == defaultProfile {
		return ""
	}
	return " --profile " + p.name
}

// read returns the profile's credentials; a profile not written yet has
// none. A file that does not read as one is an error, not an empty
// profile, lest a save throw away the players it holds.
func (p *profile) read() (map[string]credential, error) {
	data, err := os.ReadFile(p.path)
	if errors.Is(err, fs.ErrNotExist) {
		return map[string]credential{}, nil
	}
	if err != nil {
		return nil, err
	}
	creds := map[string]credential{}
	if err := json.Unmarshal(data, &creds); err != nil {
		return nil, fmt.Errorf("%s is not a profile of saved players (%v): move it away to start afresh", p.path, err)
	}
	return creds, nil
}

// load returns the credential kept for server, if any.
func (p *profile) load(server string) (credential, bool, error) {
	creds, err := p.read()
	if err != nil {
		return credential{}, false, err
	}
	cr, ok := creds[server]
	return cr, ok && cr.Token != "", err
}

// save keeps cr as server's credential, beside the other servers'. The file
// is readable by the user alone (it holds the secret that is the player),
// and replaced whole by a rename, so that a crash or a concurrent reader
// never sees half of it. Two runs saving at once may lose one's change.
func (p *profile) save(server string, cr credential) error {
	creds, err := p.read()
	if err != nil {
		return err
	}
	creds[server] = cr
	data, err := json.MarshalIndent(creds, "", "  ")
	if err != nil {
		return err
	}
	dir := filepath.Dir(p.path)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return err
	}
	f, err := os.CreateTemp(dir, "."+p.name+".json.*") // mode 0600
	if err != nil {
		return err
	}
	tmp := f.Name()
	_, err = f.Write(append(data, '\n'))
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp, p.path)
	}
	if err != nil {
		os.Remove(tmp)
		return fmt.Errorf("saving the player in %s: %w", p.path, err)
	}
	return nil
}

// forgotten is the note, on stderr, that a profile's token was refused by
// its server (an expired or deleted player) and a new player begins.
func forgotten(server string) string {
	return fmt.Sprintf("the saved player for %s is no longer known; starting a new one", server)
}

// usePlayer completes cfg with the profile's player: unless --token gave
// a session (which is then not saved), cfg keeps the profile, to save each
// welcome in, and resumes the player saved for its server. A saved name is
// the name of a new player should the server have forgotten the token,
// unless --name gives one.
func usePlayer(cfg *playConfig, configDir func() (string, error)) error {
	if cfg.Token != "" {
		return nil
	}
	name := cfg.ProfileName
	if name == "" {
		name = defaultProfile
	}
	p, err := openProfile(configDir, name)
	if err != nil {
		return err
	}
	cr, ok, err := p.load(cfg.URL)
	if err != nil {
		return err
	}
	cfg.Profile = p
	if ok {
		cfg.Token, cfg.Saved = cr.Token, true
		if !cfg.NameGiven && cr.Name != "" {
			cfg.Name = cr.Name
		}
	}
	return nil
}

// keep saves the session of the welcome just taken in the profile, when
// there is one and the session is not the one it holds already. A profile
// that cannot be written is said on Stderr, once: play goes on, and the
// next run is a new player.
func (c *playClient) keep() {
	cr := credential{Token: c.token, PlayerID: c.playerID, Name: c.name}
	if c.cfg.Profile == nil || cr == c.kept {
		return
	}
	c.kept = cr
	if err := c.cfg.Profile.save(c.cfg.URL, cr); err != nil {
		fmt.Fprintf(c.cfg.Stderr, "klondike play: %v\n", err)
	}
}

// newPlayer answers the refusal of the profile's token before any welcome:
// the server no longer knows the player (its session expired, or it was
// deleted), so hello again, on the same connection, as a new player, of
// the saved name; its welcome replaces the credential.
func (c *playClient) newPlayer() {
	fmt.Fprintf(c.cfg.Stderr, "klondike play: %s\n", forgotten(c.cfg.URL))
	c.cfg.Saved = false
	c.token, c.name = "", c.cfg.Name
	c.hello()
}

// resumeCommand is the command that comes back as this player: the
// profile's player is the next run's by itself; a session that --token
// gave needs it again.
func (c *playClient) resumeCommand() string {
	cmd := c.program() + " play --server " + c.cfg.URL
	if c.cfg.Profile == nil {
		return cmd + " --token " + clean(c.token)
	}
	return cmd + c.cfg.Profile.flag()
}
