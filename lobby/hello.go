package lobby

import (
	"context"
	"errors"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"klondike/match"
)

// CleanName trims a player's name and checks it: 1 to 24 printable characters.
func CleanName(name string) (string, error) {
	name = strings.TrimSpace(name)
	if name == "" || !utf8.ValidString(name) || utf8.RuneCountInString(name) > 24 {
		return "", ErrBadName
	}
	for _, r := range name {
		if !unicode.IsPrint(r) {
			return "", ErrBadName
		}
	}
	return name, nil
}

// Hello is HelloFrom for a caller without a network address (a tool, a
// benchmark): the limits per address do not apply to its players.
func (l *Lobby) Hello(ctx context.Context, name, token string) (s Session, resumed bool, err error) {
	return l.HelloFrom(ctx, "", name, token)
}

// HelloFrom starts a session, or with a token resumes one (made on this
// node or another), for a player connecting from addr (an IP address; ""
// for none); the name of a resumed session is updated when a valid one is
// given. The player's open matches count against addr (Config.MaxOpenPerIP).
// It fails with ErrUnknownToken for a token it does not know, with
// ErrTooManyNewSessions when addr started too many sessions lately
// (resuming is never limited), and with an error matching
// match.ErrUnavailable when the sessions' store cannot be reached.
func (l *Lobby) HelloFrom(ctx context.Context, addr, name, token string) (s Session, resumed bool, err error) {
	addr = addrKey(addr)
	l.mu.Lock()
	closed := l.closed
	l.mu.Unlock()
	if closed {
		return Session{}, false, ErrShuttingDown
	}
	if token != "" {
		s, err = l.sessions.Resume(ctx, token, l.cfg.SessionIdle)
		if errors.Is(err, match.ErrNotFound) {
			return Session{}, false, ErrUnknownToken
		}
		if err != nil {
			return Session{}, false, err
		}
		s.Token = token
		if n, err := CleanName(name); err == nil && n != s.Name {
			s.Name = n
			if err := l.sessions.Save(ctx, s, l.cfg.SessionIdle); err != nil {
				return Session{}, false, err
			}
		}
		resumed = true
	} else {
		n, err := CleanName(name)
		if err != nil {
			return Session{}, false, err
		}
		if addr != "" && !l.newSessions.Take(addr, time.Now()) {
			return Session{}, false, ErrTooManyNewSessions
		}
		s = Session{PlayerID: randomHex(8), Name: n, Token: randomHex(24)}
		if err := l.sessions.Save(ctx, s, l.cfg.SessionIdle); err != nil {
			return Session{}, false, err
		}
	}
	l.mu.Lock()
	l.players[s.PlayerID] = &known{Player: match.Player{ID: s.PlayerID, Name: s.Name}, seen: time.Now(), addr: addr}
	l.mu.Unlock()
	return s, resumed, nil
}

// known is a player who said hello on this node, when, and from where
// (addrKey of the address; "" for none).
type known struct {
	match.Player
	seen time.Time
	addr string
}

// Player returns a player who said hello on this node, and notes that
// they were seen now; ErrUnknownToken for anyone else.
func (l *Lobby) Player(id string) (match.Player, error) {
	pl, _, err := l.playerFrom(id)
	return pl, err
}

// playerFrom is player with the address of the player's last hello.
func (l *Lobby) playerFrom(id string) (pl match.Player, addr string, err error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	k, ok := l.players[id]
	if !ok {
		return match.Player{}, "", ErrUnknownToken
	}
	k.seen = time.Now()
	return k.Player, k.addr, nil
}

// Connected tells the player's current match that they connected or
// dropped, and on connect resends what they need to resume.
func (l *Lobby) Connected(ctx context.Context, playerID string, up bool) {
	m, err := l.Match(ctx, l.Current(ctx, playerID))
	if err != nil {
		return
	}
	_ = m.SetConnected(ctx, playerID, up)
	if up {
		_ = m.Resume(ctx, playerID)
	}
}
