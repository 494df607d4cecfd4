package api

import (
	"context"

	"klondike/lobby"
	"klondike/lobby/challenge"
	"klondike/match"
)

// A deleted player's games stay published, so that boards and replays can
// still be verified from the seed and the move logs, but under
// lobby.DeletedName: the published views (replays, leaderboards, boards,
// a challenge's maker, ladders, rated rounds' records) ask the players'
// store which of their players are deleted as they are served. Pushes
// during a live round are not: a player deleted mid-round leaves the round
// first (lobby.DeletePlayer).

// named is a published value with a player's id and name.
type named interface {
	match.Entry | match.BoardEntry | match.PlayerReplay | ladderEntry | lobby.RatedPlayer
}

// anonymize renames the deleted players among vs. On a store error the
// names stay: the error is the one the route reports.
func anonymize[T named](ctx context.Context, l *lobby.Lobby, vs []T) error {
	if len(vs) == 0 {
		return nil
	}
	ids := make([]string, len(vs))
	for i := range vs {
		ids[i] = idOf(&vs[i])
	}
	gone, err := l.Deleted(ctx, ids)
	if err != nil {
		return err
	}
	for i := range vs {
		if gone[ids[i]] {
			setName(&vs[i], lobby.DeletedName)
		}
	}
	return nil
}

func idOf[T named](v *T) string {
	switch v := any(v).(type) {
	case *match.Entry:
		return v.PlayerID
	case *match.BoardEntry:
		return v.PlayerID
	case *match.PlayerReplay:
		return v.PlayerID
	case *ladderEntry:
		return v.PlayerID
	case *lobby.RatedPlayer:
		return v.PlayerID
	}
	return ""
}

func setName[T named](v *T, name string) {
	switch v := any(v).(type) {
	case *match.Entry:
		v.Name = name
	case *match.BoardEntry:
		v.Name = name
	case *match.PlayerReplay:
		v.Name = name
	case *ladderEntry:
		v.Name = name
	case *lobby.RatedPlayer:
		v.Name = name
	}
}

// anonymizePage renames the deleted players of a board page.
func anonymizePage(ctx context.Context, l *lobby.Lobby, p *challenge.BoardPage) error {
	if err := anonymize(ctx, l, p.Top); err != nil {
		return err
	}
	return anonymize(ctx, l, p.Around)
}
