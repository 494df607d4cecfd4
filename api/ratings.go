package api

import (
	"context"
	"errors"
	"math"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"time"

	"klondike/api/protocol"
	"klondike/engine"
	"klondike/lobby"
	"klondike/lobby/rating"
	"klondike/match"
)

// The ratings' routes: a game and draw's ladder (GET
// /api/v1/ladder/{game}/{draw}), a rated round's record (GET
// /api/v1/rounds/{id}/ratings) and a player's ratings on their profile
// (ratingsOf). They read the lobby's ratings store; a server that keeps
// none has no ladders and no rated rounds.

// The bounds of a ladder's page.
const (
	// ladderPage is a page's size when none is asked for, and the most.
	ladderPage = 100
	// ladderAround is how many entries around= shows on each side of the
	// player.
	ladderAround = 5
	// maxLadderFrom bounds from: far past any ladder, low enough that
	// from plus a page never overflows.
	maxLadderFrom = 1_000_000_000
)

// noRatings is the answer of the ratings' routes on a server that keeps
// none.
const noRatings = "this server keeps no ratings"

// ladderReply is the answer of GET /api/v1/ladder/{game}/{draw}.
type ladderReply struct {
	Game     string        `json:"game"`
	Draw     int           `json:"draw"`
	Players  int           `json:"players"` // on the whole ladder
	Entries  []ladderEntry `json:"entries"`
	NextFrom int           `json:"next_from,omitempty"`
	Place    int           `json:"place,omitempty"`
	Around   []ladderEntry `json:"around,omitempty"`
}

// ladderEntry is one line of a ladder, as shown: whole numbers.
type ladderEntry struct {
	Place     int    `json:"place"` // 1 the best
	PlayerID  string `json:"player_id"`
	Name      string `json:"name"`
	Rating    int    `json:"rating"`
	Deviation int    `json:"deviation"`
	Rounds    int    `json:"rounds"`
}

// ratedRoundReply is the answer of GET /api/v1/rounds/{id}/ratings: the
// record of a rated round in full, so that anyone can recompute its
// changes with rating.Update.
type ratedRoundReply struct {
	RoundID string              `json:"round_id"`
	MatchID string              `json:"match_id"`
	Game    string              `json:"game"`
	Draw    int                 `json:"draw"`
	At      time.Time           `json:"at"`
	Changes []lobby.RatedPlayer `json:"changes"`
	Apart   [][2]string         `json:"apart"`
}

// playerRating is one of a player's ratings on their profile.
type playerRating struct {
	Game        string              `json:"game"`
	Draw        int                 `json:"draw"`
	Rating      int                 `json:"rating"`
	Deviation   int                 `json:"deviation"`
	Provisional bool                `json:"provisional"`
	Rounds      int                 `json:"rounds"`
	Place       int                 `json:"place,omitempty"` // 1 the best; absent off the ladder
	History     []lobby.RatingPoint `json:"history"`
}

// ladderKey returns the rating key of a ladder's path: a game of no
// known name is ok false, a draw the game is not played with a bad
// request.
func ladderKey(game, draw string) (key string, d int, ok bool, err error) {
	v, err := engine.ParseVariant(game)
	if err != nil {
		return "", 0, false, nil
	}
	d, err = strconv.Atoi(draw)
	if err != nil || (d != 1 && d != 3) {
		return "", 0, true, errBadRequest("draw is 1 or 3, not " + quote(draw))
	}
	// Passes do not split ratings; one every game is played with stands
	// for them.
	if err := (engine.Rules{Game: v, Draw: d, Passes: 1}).Validate(); err != nil {
		return "", 0, true, errBadRequest(err.Error())
	}
	return lobby.RatingKey(match.Settings{Game: game, Draw: d}), d, true, nil
}

// splitKey is the game and draw of a rating key; ok false for a key of
// no game and draw.
func splitKey(key string) (game string, draw int, ok bool) {
	game, d, found := strings.Cut(key, "/")
	draw, err := strconv.Atoi(d)
	if _, verr := engine.ParseVariant(game); !found || err != nil || verr != nil {
		return "", 0, false
	}
	return game, draw, true
}

// ladderQuery reads ?from= (the places skipped, 0 to maxLadderFrom,
// default 0) and ?limit= (default and at most ladderPage).
func ladderQuery(r *http.Request) (from, limit int, err error) {
	limit = ladderPage
	q := r.URL.Query()
	if v := q.Get("from"); v != "" {
		if from, err = strconv.Atoi(v); err != nil || from < 0 || from > maxLadderFrom {
			return 0, 0, errBadRequest("from is the number of places to skip, 0 to " + strconv.Itoa(maxLadderFrom) + ", not " + quote(v))
		}
	}
	if v := q.Get("limit"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 {
			return 0, 0, errBadRequest("limit is a whole number of entries, not " + quote(v))
		}
		limit = min(n, ladderPage)
	}
	return from, limit, nil
}

// ladder answers GET /api/v1/ladder/{game}/{draw}?from=N&limit=N&around=ID.
func (s *Server) ladder(w http.ResponseWriter, r *http.Request) {
	rs := s.Lobby.Ratings()
	if rs == nil {
		writeJSON(w, http.StatusNotFound, errorBody(protocol.CodeNotFound, noRatings))
		return
	}
	game := r.PathValue("game")
	key, draw, ok, err := ladderKey(game, r.PathValue("draw"))
	if !ok {
		writeJSON(w, http.StatusNotFound, errorBody(protocol.CodeNotFound,
			"no game "+quote(game)+": want klondike, thumb_and_pouch, whitehead or double_klondike"))
		return
	}
	if err != nil {
		s.routeError(w, err)
		return
	}
	from, limit, err := ladderQuery(r)
	if err != nil {
		s.routeError(w, err)
		return
	}
	ctx, cancel := context.WithTimeout(r.Context(), commandTimeout)
	defer cancel()
	now := time.Now()
	page, total, err := rs.Ladder(ctx, key, from, limit, now)
	if err != nil {
		s.routeError(w, err)
		return
	}
	reply := ladderReply{Game: game, Draw: draw, Players: total, Entries: ladderEntries(page, now)}
	if end := from + len(page); len(page) > 0 && end < total {
		reply.NextFrom = end
	}
	if id := r.URL.Query().Get("around"); id != "" {
		place, err := rs.Place(ctx, key, id, now)
		if err != nil {
			s.routeError(w, err)
			return
		}
		if place >= 0 {
			start := max(place-ladderAround, 0)
			near, _, err := rs.Ladder(ctx, key, start, place-start+ladderAround+1, now)
			if err != nil {
				s.routeError(w, err)
				return
			}
			reply.Place, reply.Around = place+1, ladderEntries(near, now)
		}
	}
	if err := anonymize(ctx, s.Lobby, reply.Entries); err != nil {
		s.routeError(w, err)
		return
	}
	if err := anonymize(ctx, s.Lobby, reply.Around); err != nil {
		s.routeError(w, err)
		return
	}
	writeJSON(w, http.StatusOK, reply)
}

// ladderEntries shows a ladder's entries as they stand at now.
func ladderEntries(es []lobby.LadderEntry, now time.Time) []ladderEntry {
	out := make([]ladderEntry, len(es))
	for i, e := range es {
		r := e.Rating.AsOf(now)
		out[i] = ladderEntry{
			Place: e.Place + 1, PlayerID: e.PlayerID, Name: e.Name,
			Rating: r.Display(), Deviation: wholeDeviation(r), Rounds: r.Rounds,
		}
	}
	return out
}

// wholeDeviation is a rating's deviation as shown: a whole number.
func wholeDeviation(r rating.Rating) int { return int(math.Round(r.Deviation)) }

// roundRatings answers GET /api/v1/rounds/{id}/ratings.
func (s *Server) roundRatings(w http.ResponseWriter, r *http.Request) {
	rs := s.Lobby.Ratings()
	if rs == nil {
		writeJSON(w, http.StatusNotFound, errorBody(protocol.CodeNotFound, noRatings))
		return
	}
	ctx, cancel := context.WithTimeout(r.Context(), commandTimeout)
	defer cancel()
	id := r.PathValue("id")
	rr, err := rs.Round(ctx, id)
	if errors.Is(err, match.ErrNotFound) {
		writeJSON(w, http.StatusNotFound, errorBody(protocol.CodeNotFound,
			"round "+quote(id)+" changed no rating, or its record is no longer kept"))
		return
	}
	if err == nil {
		err = anonymize(ctx, s.Lobby, rr.Changes)
	}
	if err != nil {
		s.routeError(w, err)
		return
	}
	game, draw, _ := splitKey(rr.Key)
	apart := rr.Apart
	if apart == nil {
		apart = [][2]string{}
	}
	writeJSON(w, http.StatusOK, ratedRoundReply{
		RoundID: rr.RoundID, MatchID: rr.MatchID, Game: game, Draw: draw, At: rr.At,
		Changes: nonNil(rr.Changes), Apart: apart,
	})
}

// ratingsOf returns a player's ratings, as their profile shows them: one
// a game and draw they were rated in, by game then draw, each as it stands
// now, with its place on the ladder and its history. A server that keeps
// no ratings shows none.
func (s *Server) ratingsOf(ctx context.Context, id string) ([]playerRating, error) {
	out := []playerRating{}
	rs := s.Lobby.Ratings()
	if rs == nil {
		return out, nil
	}
	of, err := rs.Of(ctx, id)
	if err != nil {
		return nil, err
	}
	now := time.Now()
	for key, stored := range of {
		game, draw, ok := splitKey(key)
		if !ok {
			continue
		}
		r := stored.AsOf(now)
		pr := playerRating{
			Game: game, Draw: draw, Rating: r.Display(), Deviation: wholeDeviation(r),
			Provisional: r.Provisional(), Rounds: r.Rounds,
		}
		place, err := rs.Place(ctx, key, id, now)
		if err != nil {
			return nil, err
		}
		pr.Place = place + 1 // -1, off the ladder, is absent
		hist, err := rs.History(ctx, key, id, lobby.MaxRatingHistory)
		if err != nil {
			return nil, err
		}
		pr.History = nonNil(hist)
		out = append(out, pr)
	}
	slices.SortFunc(out, func(a, b playerRating) int {
		va, _ := engine.ParseVariant(a.Game)
		vb, _ := engine.ParseVariant(b.Game)
		if va != vb {
			return int(va) - int(vb)
		}
		return a.Draw - b.Draw
	})
	return out, nil
}
