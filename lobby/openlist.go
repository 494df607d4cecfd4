package lobby

import (
	"context"
	"encoding/json"
	"errors"
	"strconv"

	"klondike/match"
)

// The lobby's list of open public matches comes a page at a time: each
// page ends with a cursor that the next one starts after. A cursor names a
// place on the Coord's open list (see match.Coord.OpenMatches), where a
// match keeps its place while it stays open, so a client paging through
// sees each match that stayed open once, in the order they opened, while
// matches open, start and close between its pages.

// The sizes of a page of OpenMatches. A page holds DefaultOpenPage matches
// when the caller does not say, at most MaxOpenPage, and stops before the
// match that would make its matches encode to more than MaxOpenPageBytes
// of JSON (a JSON array of them, as encoding/json writes it). A page always
// holds one match if any is left, whatever its size: a match of the most
// players with the longest names encodes to a small part of
// MaxOpenPageBytes.
const (
	DefaultOpenPage  = 50
	MaxOpenPage      = 100
	MaxOpenPageBytes = 256 << 10
)

// maxPageReads bounds the open list's entries one page looks at: entries
// that turn out no longer open or not public are skipped, and the page is
// filled from further on, up to this many. A page that stops here ends
// with a cursor after the last entry it looked at.
const maxPageReads = 2 * MaxOpenPage

// ErrBadCursor: a cursor not of the form OpenMatches gives.
var ErrBadCursor = errors.New("bad cursor: pass the next_cursor of the page before, or none for the first page")

// OpenMatches returns a page of the open public matches of every node, for
// the lobby list: those after cursor ("" for the first page), oldest first,
// at most limit of them (limit ≤ 0: DefaultOpenPage; above MaxOpenPage:
// MaxOpenPage) and at most MaxOpenPageBytes of them, and the cursor of the
// next page: "" when the list has no more. A next page can still come back
// empty, when the matches after this one closed meanwhile. The cursor is
// opaque to clients; a malformed one is ErrBadCursor. Errors of the Coord
// are returned (match.ErrUnavailable).
func (l *Lobby) OpenMatches(ctx context.Context, cursor string, limit int) ([]*match.MatchInfo, string, error) {
	after, err := parseCursor(cursor)
	if err != nil {
		return nil, "", err
	}
	if limit <= 0 {
		limit = DefaultOpenPage
	}
	limit = min(limit, MaxOpenPage)
	page := []*match.MatchInfo{}
	size := len("[]")
	for reads := 0; ; {
		// One entry more than the page reads tells whether the list goes on.
		n := min(limit-len(page), maxPageReads-reads)
		ms, err := l.cfg.Coord.OpenMatches(ctx, after, n+1)
		if err != nil {
			return nil, "", err
		}
		more := len(ms) > n
		ms = ms[:min(len(ms), n)]
		reads += len(ms)
		for _, om := range ms {
			info := l.openInfo(ctx, om.ID)
			if info != nil {
				b, err := json.Marshal(info)
				if err != nil {
					return nil, "", err
				}
				grow := len(b)
				if len(page) > 0 {
					grow++ // the comma
				}
				if len(page) > 0 && size+grow > MaxOpenPageBytes {
					return page, formatCursor(after), nil
				}
				page = append(page, info)
				size += grow
			}
			after = om.Seq
		}
		switch {
		case !more:
			return page, "", nil
		case len(page) == limit || reads >= maxPageReads:
			return page, formatCursor(after), nil
		}
	}
}

// openInfo returns the snapshot of an open public match: from this node's
// replica when it has one that hears of every change (no round trip), else
// from the Coord's record;
// nil when the match is gone or no longer open.
func (l *Lobby) openInfo(ctx context.Context, id string) *match.MatchInfo {
	l.mu.Lock()
	e := l.matches[id]
	l.mu.Unlock()
	var info *match.MatchInfo
	if e != nil && e.m != nil && e.m.Heard() {
		info = e.m.Info()
	} else {
		rec, _, err := l.cfg.Coord.LoadMatch(ctx, id)
		if err != nil {
			return nil
		}
		if info, err = match.DecodeInfo(rec); err != nil {
			return nil
		}
	}
	if !info.Settings.Public || info.State != match.StateOpen {
		return nil
	}
	return info
}

// formatCursor is the cursor of the page after the list's place seq: the
// place in base 36.
func formatCursor(seq int64) string { return strconv.FormatInt(seq, 36) }

// parseCursor returns the place a cursor names: 0 for "", the start.
func parseCursor(cursor string) (int64, error) {
	if cursor == "" {
		return 0, nil
	}
	seq, err := strconv.ParseInt(cursor, 36, 64)
	if err != nil || seq <= 0 || formatCursor(seq) != cursor {
		return 0, ErrBadCursor
	}
	return seq, nil
}
