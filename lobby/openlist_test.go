package lobby_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync/atomic"
	"testing"

	"klondike/lobby"
	"klondike/lobby/memstore"
	"klondike/match"
)

// openMatches creates n open public matches, each hosted by a player of
// its own, and returns their ids and hosts in the order they were made.
func openMatches(t *testing.T, l *lobby.Lobby, n int) (ids, hosts []string) {
	t.Helper()
	ctx := context.Background()
	pub := true
	for i := range n {
		h := hello(t, l, fmt.Sprint("host", i))
		info, err := l.CreateMatch(ctx, h.PlayerID, match.PartialSettings{Public: &pub})
		if err != nil {
			t.Fatalf("CreateMatch %d: %v", i, err)
		}
		ids = append(ids, info.ID)
		hosts = append(hosts, h.PlayerID)
	}
	return ids, hosts
}

// page calls OpenMatches and returns the page's ids and the next cursor.
func page(t *testing.T, l *lobby.Lobby, cursor string, limit int) ([]string, string) {
	t.Helper()
	infos, next, err := l.OpenMatches(context.Background(), cursor, limit)
	if err != nil {
		t.Fatalf("OpenMatches(%q, %d): %v", cursor, limit, err)
	}
	ids := make([]string, len(infos))
	for i, info := range infos {
		if info.State != match.StateOpen || !info.Settings.Public {
			t.Fatalf("OpenMatches(%q, %d) lists %s, %s, public %v", cursor, limit, info.ID, info.State, info.Settings.Public)
		}
		ids[i] = info.ID
	}
	return ids, next
}

// pageAll pages through the whole list, limit at a time, and returns
// every id listed and the size of each page.
func pageAll(t *testing.T, l *lobby.Lobby, limit int) (ids []string, sizes []int) {
	t.Helper()
	cursor := ""
	for range 1000 {
		got, next := page(t, l, cursor, limit)
		ids = append(ids, got...)
		sizes = append(sizes, len(got))
		if next == "" {
			return ids, sizes
		}
		cursor = next
	}
	t.Fatalf("paging %d at a time did not end", limit)
	return nil, nil
}

func TestOpenMatchesPaging(t *testing.T) {
	l := newLobby(t)
	want, _ := openMatches(t, l, 250)
	for _, tc := range []struct {
		limit int
		sizes []int
	}{
		{100, []int{100, 100, 50}},
		{0, []int{50, 50, 50, 50, 50}}, // the default
		{-3, []int{50, 50, 50, 50, 50}},
		{1000, []int{100, 100, 50}}, // the maximum
		{125, []int{100, 100, 50}},
		{50, []int{50, 50, 50, 50, 50}},
	} {
		ids, sizes := pageAll(t, l, tc.limit)
		if !slices.Equal(ids, want) {
			t.Fatalf("paging with limit %d: %d ids, not the %d matches once each in order", tc.limit, len(ids), len(want))
		}
		if !slices.Equal(sizes, tc.sizes) {
			t.Fatalf("paging with limit %d: pages of %v, want %v", tc.limit, sizes, tc.sizes)
		}
	}
}

// Matches that start between two pages leave the list without moving the
// others: the next page goes on where the last one ended, and a match made
// meanwhile comes at the end.
func TestOpenMatchesPagingWhileMatchesStart(t *testing.T) {
	ctx := context.Background()
	l := newLobby(t)
	ids, hosts := openMatches(t, l, 250)
	start := func(i int) {
		t.Helper()
		m, err := l.Match(ctx, ids[i])
		if err != nil {
			t.Fatal(err)
		}
		if err := m.Start(ctx, hosts[i]); err != nil {
			t.Fatalf("starting match %d: %v", i, err)
		}
	}
	first, next := page(t, l, "", 100)
	if !slices.Equal(first, ids[:100]) || next == "" {
		t.Fatalf("first page: %d ids, next %q; want the first 100 and a cursor", len(first), next)
	}
	// Some already listed, the last one listed, the first one not yet
	// listed, and some further on.
	started := map[string]bool{}
	for _, i := range []int{5, 6, 99, 100, 150, 151, 152, 249} {
		start(i)
		started[ids[i]] = true
	}
	late, _ := openMatches(t, l, 1)
	var want []string
	for _, id := range ids[100:] {
		if !started[id] {
			want = append(want, id)
		}
	}
	want = append(want, late...)
	var rest []string
	for range 10 {
		got, n := page(t, l, next, 100)
		rest = append(rest, got...)
		if next = n; next == "" {
			break
		}
	}
	if next != "" {
		t.Fatal("paging did not end")
	}
	if !slices.Equal(rest, want) {
		t.Fatalf("after the first page: %q\nwant %q", rest, want)
	}
}

// A page stops before the match that would take its JSON past
// MaxOpenPageBytes, however long the players' names encode, and the next
// page goes on from there.
func TestOpenMatchesByteCap(t *testing.T) {
	ctx := context.Background()
	l := newLobby(t)
	name := strings.Repeat("𝔸", 24) // a letter of four bytes, the most a name's character takes in JSON
	full := match.MaxPlayersLimit
	pub := true
	n := 0
	fill := func() {
		host := hello(t, l, name)
		info, err := l.CreateMatch(ctx, host.PlayerID, match.PartialSettings{Public: &pub, MaxPlayers: &full})
		if err != nil {
			t.Fatal(err)
		}
		for range full - 1 {
			p := hello(t, l, name)
			if _, err := l.JoinMatch(ctx, p.PlayerID, info.ID, ""); err != nil {
				t.Fatal(err)
			}
		}
		n++
	}
	fill()
	one, _, err := l.OpenMatches(ctx, "", 1)
	if err != nil || len(one) != 1 || len(one[0].Players) != full {
		t.Fatalf("OpenMatches = %v, %v; want one full match", one, err)
	}
	b, _ := json.Marshal(one[0])
	perMatch := len(b)
	for n*perMatch <= lobby.MaxOpenPageBytes+perMatch {
		fill()
	}
	var pages [][]*match.MatchInfo
	cursor := ""
	for range n + 1 {
		infos, next, err := l.OpenMatches(ctx, cursor, lobby.MaxOpenPage)
		if err != nil {
			t.Fatal(err)
		}
		if len(infos) == 0 {
			t.Fatalf("page %d is empty, next %q", len(pages), next)
		}
		pages = append(pages, infos)
		if cursor = next; cursor == "" {
			break
		}
	}
	if cursor != "" {
		t.Fatal("paging did not end")
	}
	var all []string
	for i, infos := range pages {
		b, _ := json.Marshal(infos)
		if len(b) > lobby.MaxOpenPageBytes {
			t.Fatalf("page %d: %d matches in %d bytes, over %d", i, len(infos), len(b), lobby.MaxOpenPageBytes)
		}
		if i+1 < len(pages) {
			nb, _ := json.Marshal(pages[i+1][0])
			if len(b)+1+len(nb) <= lobby.MaxOpenPageBytes {
				t.Fatalf("page %d: %d matches in %d bytes: the next one (%d bytes) would have fit", i, len(infos), len(b), len(nb))
			}
		}
		for _, info := range infos {
			all = append(all, info.ID)
		}
	}
	if len(pages) < 2 || len(all) != n || len(slices.Compact(slices.Sorted(slices.Values(all)))) != n {
		t.Fatalf("%d pages listed %d ids, want the %d matches once each on more than one page", len(pages), len(all), n)
	}
}

func TestOpenMatchesBadCursor(t *testing.T) {
	l := newLobby(t)
	openMatches(t, l, 3)
	_, next := page(t, l, "", 1)
	for _, bad := range []string{"x!", "-1", "0", "0" + next, strings.ToUpper(next) + "Z", "+" + next, " ", strings.Repeat("z", 20)} {
		if _, _, err := l.OpenMatches(context.Background(), bad, 0); !errors.Is(err, lobby.ErrBadCursor) {
			t.Errorf("OpenMatches(%q) = %v, want ErrBadCursor", bad, err)
		}
	}
	// A well-formed cursor past the end is the end of the list.
	if ids, n := page(t, l, "zzzz", 0); len(ids) != 0 || n != "" {
		t.Fatalf("OpenMatches past the end = %q, next %q; want none", ids, n)
	}
}

// staleCoord lists, before the Coord's own open matches, entries whose
// records are gone, as a Redis list may after a node died between a save
// and the list's update; it counts the records read.
type staleCoord struct {
	lobby.Coord
	stale int
	loads atomic.Int64
}

func (c *staleCoord) OpenMatches(ctx context.Context, after int64, limit int) ([]lobby.OpenMatch, error) {
	var out []lobby.OpenMatch
	for i := after + 1; i <= int64(c.stale) && (limit <= 0 || len(out) < limit); i++ {
		out = append(out, lobby.OpenMatch{ID: fmt.Sprint("gone", i), Seq: i})
	}
	if limit > 0 && len(out) == limit {
		return out, nil
	}
	real, err := c.Coord.OpenMatches(ctx, max(after-int64(c.stale), 0), limit-len(out))
	for _, m := range real {
		out = append(out, lobby.OpenMatch{ID: m.ID, Seq: m.Seq + int64(c.stale)})
	}
	return out, err
}

func (c *staleCoord) LoadMatch(ctx context.Context, id string) ([]byte, int64, error) {
	c.loads.Add(1)
	return c.Coord.LoadMatch(ctx, id)
}

// Entries that turn out gone are skipped and the page is filled from
// further on, but a page reads a bounded number of records: past it, the
// page ends early with a cursor after the last entry it looked at.
func TestOpenMatchesSkipsStale(t *testing.T) {
	co := &staleCoord{Coord: memstore.NewCoord(), stale: 500}
	l := newLobbyOn(t, co)
	want, _ := openMatches(t, l, 30)
	var got []string
	cursor := ""
	pages := 0
	for ; pages < 20; pages++ {
		co.loads.Store(0)
		infos, next, err := l.OpenMatches(context.Background(), cursor, 10)
		if err != nil {
			t.Fatal(err)
		}
		if n := co.loads.Load(); n > 2*lobby.MaxOpenPage {
			t.Fatalf("page %d read %d records, want at most %d", pages, n, 2*lobby.MaxOpenPage)
		}
		for _, info := range infos {
			got = append(got, info.ID)
		}
		if cursor = next; cursor == "" {
			break
		}
	}
	if !slices.Equal(got, want) {
		t.Fatalf("pages listed %q, want %q", got, want)
	}
	if pages < 3 {
		t.Fatalf("%d pages: the 500 stale entries were read in fewer than three", pages+1)
	}
}
