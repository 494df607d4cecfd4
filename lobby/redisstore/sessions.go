package redisstore

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"time"

	"github.com/redis/go-redis/v9"

	"klondike/lobby"
	"klondike/match"
)

// Sessions keep the players' sessions in Redis (lobby.Sessions), so a
// player can resume on any node. A session is a small JSON value under a
// key made from the SHA-256 of its token (the token itself is not
// stored), living idle long after its last use.
type Sessions struct {
	c      redis.UniversalClient
	prefix string
}

var _ lobby.Sessions = (*Sessions)(nil)

// NewSessions returns the sessions of the deployment with the key prefix
// (DefaultPrefix when empty).
func NewSessions(c redis.UniversalClient, prefix string) *Sessions {
	if prefix == "" {
		prefix = DefaultPrefix
	}
	return &Sessions{c: c, prefix: prefix}
}

func (s *Sessions) key(token string) string {
	sum := sha256.Sum256([]byte(token))
	return s.prefix + "session:" + hex.EncodeToString(sum[:])
}

// Save stores ses under its token for idle (a SET PX).
func (s *Sessions) Save(ctx context.Context, ses lobby.Session, idle time.Duration) error {
	b, err := json.Marshal(ses)
	if err != nil {
		return err
	}
	return mapErr(s.c.Set(ctx, s.key(ses.Token), b, idle).Err())
}

// Resume returns the session of token and gives it idle again (a GETEX);
// match.ErrNotFound when there is none, or none that reads as a session.
func (s *Sessions) Resume(ctx context.Context, token string, idle time.Duration) (lobby.Session, error) {
	b, err := s.c.GetEx(ctx, s.key(token), idle).Bytes()
	if errors.Is(err, redis.Nil) {
		return lobby.Session{}, match.ErrNotFound
	}
	if err != nil {
		return lobby.Session{}, mapErr(err)
	}
	var ses lobby.Session
	if err := json.Unmarshal(b, &ses); err != nil || ses.PlayerID == "" {
		return lobby.Session{}, match.ErrNotFound
	}
	ses.Token = token
	return ses, nil
}
