package lobby

import (
	"context"
	"time"
)

// A Session is a player's identity on this server. The token lets the same
// player reconnect; it is a secret and never logged.
type Session struct {
	PlayerID string `json:"player_id"`
	Name     string `json:"name"`
	Token    string `json:"-"`
}

// Sessions keep the players' sessions where every server node can find
// them, so a player can resume with their token on any node.
// memstore.Sessions serve one process; redisstore.Sessions every node of
// a deployment.
type Sessions interface {
	// Save stores a session under its token, to live idle (positive) long
	// after its last use; a session already under the token is replaced.
	Save(ctx context.Context, s Session, idle time.Duration) error
	// Resume returns the session of a token, its Token set, and restarts
	// its idle clock to idle; match.ErrNotFound when there is none (never
	// made, or expired), an error matching match.ErrUnavailable when the
	// sessions cannot be reached.
	Resume(ctx context.Context, token string, idle time.Duration) (Session, error)
}
