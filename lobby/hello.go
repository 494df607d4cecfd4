package lobby

import (
	"context"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"klondike/match"
)

// MaxNameLen is the longest name, in characters.
const MaxNameLen = 24

// CleanName refuses a name with a control character, trims it, collapses
// its runs of spaces into one, and checks it: 1 to MaxNameLen characters, each a letter, a mark, a
// digit, a space or one of - _ . ', at least one a letter. Control and
// format characters (the bidirectional overrides among them, which could
// make a name read as another) are refused, not removed, so that a player
// sees the name others will see.
func CleanName(name string) (string, error) {
	if !utf8.ValidString(name) || strings.ContainsFunc(name, unicode.IsControl) {
		return "", ErrBadName
	}
	name = strings.Join(strings.Fields(name), " ")
	n, letters := 0, 0
	for _, r := range name {
		n++
		switch {
		case unicode.IsLetter(r):
			letters++
		case unicode.IsMark(r), unicode.IsDigit(r), r == ' ', strings.ContainsRune("-_.'", r):
		default:
			return "", ErrBadName
		}
	}
	if n == 0 || n > MaxNameLen || letters == 0 {
		return "", ErrBadName
	}
	return name, nil
}

// Hello is HelloFrom for a caller without a network address (a tool, a
// benchmark): the limits per address do not apply to its players.
func (l *Lobby) Hello(ctx context.Context, name, token string) (s Session, resumed bool, err error) {
	return l.HelloFrom(ctx, "", name, token)
}

// HelloFrom makes a new player named name, or with a token resumes the
// player of that device credential (made on this node or another), for a
// connection from addr (an IP address; "" for none). A resumed player
// keeps its name: the name is the player's, changed by Rename, not by
// whichever device said hello last. The player's open matches count
// against addr (Config.MaxOpenPerIP). It fails with ErrUnknownToken for a
// token it does not know (never made, revoked, expired or deleted), with
// ErrTooManyNewSessions when addr made too many players lately (resuming
// is never limited), and with an error matching match.ErrUnavailable when
// the players' store or the allowances cannot be reached.
func (l *Lobby) HelloFrom(ctx context.Context, addr, name, token string) (s Session, resumed bool, err error) {
	addr = addrKey(addr)
	l.mu.Lock()
	closed := l.closed
	l.mu.Unlock()
	if closed {
		return Session{}, false, ErrShuttingDown
	}
	var p Player
	if token != "" {
		p, err = l.Authenticate(ctx, token)
		if err != nil {
			return Session{}, false, err
		}
		resumed = true
	} else {
		n, err := CleanName(name)
		if err != nil {
			return Session{}, false, err
		}
		if err := l.allowNew(ctx, addr); err != nil {
			return Session{}, false, err
		}
		p = Player{ID: randomHex(8), Name: n, Created: time.Now().UTC().Truncate(time.Second)}
		token = newToken()
		if err := l.store.Create(ctx, p, digest(token), l.cfg.PlayerIdle); err != nil {
			return Session{}, false, err
		}
	}
	l.mu.Lock()
	l.players[p.ID] = &known{Player: match.Player{ID: p.ID, Name: p.Name}, seen: time.Now(), addr: addr}
	l.mu.Unlock()
	return Session{PlayerID: p.ID, Name: p.Name, Tag: p.Tag(), Token: token}, resumed, nil
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
