package api

import (
	"context"
	"net/http"
	"strconv"

	"klondike/api/protocol"
	"klondike/api/ws"
	"klondike/match"
)

// The lobby list of open public matches comes a page at a time, on both
// routes: list_matches over the WebSocket and GET /api/v1/matches. A
// request names the page size (limit: lobby.DefaultOpenPage when absent,
// at most lobby.MaxOpenPage) and where the page starts (cursor: the
// next_cursor of the page before, none for the first page); a reply's
// next_cursor is absent on the last page.

// matchesPage is the reply of GET /api/v1/matches: protocol.Matches'
// page without a message's type and re.
type matchesPage struct {
	Matches    []*match.MatchInfo `json:"matches"`
	NextCursor string             `json:"next_cursor,omitempty"`
}

// listMatches answers list_matches with a page of the open matches.
func (s *Service) listMatches(ctx context.Context, c *ws.Conn, env *Envelope, _ string) error {
	var m protocol.ListMatches
	if err := decode(env, &m); err != nil {
		return err
	}
	page, next, err := s.Lobby.OpenMatches(ctx, m.Cursor, m.Limit)
	if err != nil {
		return err
	}
	c.SendJSON(protocol.Matches{Type: protocol.TypeMatches, Re: env.ID, Matches: wireInfos(page), NextCursor: next})
	return nil
}

// listMatches answers GET /api/v1/matches?limit=N&cursor=C.
func (s *Server) listMatches(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	limit := 0
	if v := q.Get("limit"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil {
			writeJSON(w, http.StatusBadRequest, errorBody(protocol.CodeBadRequest, "limit is a whole number of matches, not "+quote(v)))
			return
		}
		limit = n
	}
	ctx, cancel := context.WithTimeout(r.Context(), commandTimeout)
	defer cancel()
	page, next, err := s.Lobby.OpenMatches(ctx, q.Get("cursor"), limit)
	if err != nil {
		s.routeError(w, err)
		return
	}
	writeJSON(w, http.StatusOK, matchesPage{Matches: page, NextCursor: next})
}
