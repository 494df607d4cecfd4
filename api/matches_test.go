package api_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/url"
	"slices"
	"testing"

	"klondike/api"
	"klondike/api/apitest"
	"klondike/api/protocol"
	"klondike/api/servertest"
	"klondike/lobby"
	"klondike/lobby/memstore"
	"klondike/match"
)

// openPublic makes n open public matches through the server's lobby and
// returns their ids, oldest first.
func openPublic(t *testing.T, srv *api.Server, n int) []string {
	t.Helper()
	ctx := context.Background()
	pub := true
	var ids []string
	for i := range n {
		s, _, err := srv.Lobby.Hello(ctx, fmt.Sprint("host", i), "")
		if err != nil {
			t.Fatal(err)
		}
		info, err := srv.Lobby.CreateMatch(ctx, s.PlayerID, match.PartialSettings{Public: &pub})
		if err != nil {
			t.Fatal(err)
		}
		ids = append(ids, info.ID)
	}
	return ids
}

// pageIDs returns the ids of a page's matches.
func pageIDs(page []*protocol.MatchInfo) []string {
	ids := []string{}
	for _, m := range page {
		ids = append(ids, m.ID)
	}
	return ids
}

// matchIDs returns the ids of an HTTP reply's matches and whether it has a
// next_cursor, and the cursor.
func matchIDs(t *testing.T, reply map[string]any) (ids []string, next string, hasNext bool) {
	t.Helper()
	list, ok := reply["matches"].([]any)
	if !ok {
		t.Fatalf("reply without a matches array: %v", reply)
	}
	for _, m := range list {
		ids = append(ids, m.(map[string]any)["id"].(string))
	}
	v, hasNext := reply["next_cursor"]
	if hasNext {
		next, _ = v.(string)
		if next == "" {
			t.Fatalf("next_cursor present but not a cursor: %v", reply)
		}
	}
	return ids, next, hasNext
}

func TestListMatchesPages(t *testing.T) {
	srv, base := testServer(t)
	want := openPublic(t, srv, 5)
	c := apitest.Dial(t, base)
	c.Hello("reader")

	// No limit: the first page, here the whole list, without next_cursor.
	first := apitest.Request[protocol.Matches](c, protocol.ListMatches{Type: protocol.TypeListMatches})
	if ids := pageIDs(first.Matches); !slices.Equal(ids, want) || first.NextCursor != "" {
		t.Fatalf("list_matches = %q, next_cursor %q; want %q and none", ids, first.NextCursor, want)
	}
	// Two at a time.
	var got []string
	cursor := ""
	for range 5 {
		page := apitest.Request[protocol.Matches](c, protocol.ListMatches{Type: protocol.TypeListMatches, Limit: 2, Cursor: cursor})
		if len(page.Matches) > 2 {
			t.Fatalf("list_matches with limit 2 = %q", pageIDs(page.Matches))
		}
		got = append(got, pageIDs(page.Matches)...)
		if cursor = page.NextCursor; cursor == "" {
			break
		}
	}
	if !slices.Equal(got, want) || cursor != "" {
		t.Fatalf("paging list_matches: %q, last cursor %q; want %q", got, cursor, want)
	}

	for _, bad := range []map[string]any{
		{"type": "list_matches", "limit": "ten"},
		{"type": "list_matches", "limit": 2.5},
		{"type": "list_matches", "cursor": "not a cursor"},
		{"type": "list_matches", "cursor": 7},
	} {
		if e := apitest.Request[protocol.Error](c, bad); e.Code != protocol.CodeBadRequest {
			t.Fatalf("%v: %+v, want bad_request", bad, e)
		}
	}
}

// get fetches the URL and decodes its JSON body.
func get(t *testing.T, u string) (int, map[string]any) {
	t.Helper()
	resp, err := http.Get(u)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	if ct := resp.Header.Get("Content-Type"); ct != "application/json" {
		t.Fatalf("GET %s: Content-Type %q: %s", u, ct, b)
	}
	var body map[string]any
	if err := json.Unmarshal(b, &body); err != nil {
		t.Fatalf("GET %s: %v: %s", u, err, b)
	}
	return resp.StatusCode, body
}

func TestHTTPMatchesPages(t *testing.T) {
	srv, base := testServer(t)
	want := openPublic(t, srv, 5)

	status, body := get(t, base+"/api/v1/matches")
	if ids, _, hasNext := matchIDs(t, body); status != 200 || !slices.Equal(ids, want) || hasNext {
		t.Fatalf("GET /api/v1/matches = %d %q, next_cursor %v; want 200 %q and none", status, ids, hasNext, want)
	}
	var got []string
	cursor := ""
	for range 5 {
		q := url.Values{"limit": {"2"}}
		if cursor != "" {
			q.Set("cursor", cursor)
		}
		status, body := get(t, base+"/api/v1/matches?"+q.Encode())
		ids, next, _ := matchIDs(t, body)
		if status != 200 || len(ids) > 2 {
			t.Fatalf("GET with limit 2 = %d %q", status, ids)
		}
		got = append(got, ids...)
		if cursor = next; cursor == "" {
			break
		}
	}
	if !slices.Equal(got, want) || cursor != "" {
		t.Fatalf("paging GET /api/v1/matches: %q, last cursor %q; want %q", got, cursor, want)
	}

	for _, q := range []string{"limit=ten", "limit=2.5", "limit=", "cursor=not+a+cursor", "cursor=-1"} {
		status, body := get(t, base+"/api/v1/matches?"+q)
		if q == "limit=" { // empty: the default
			if status != 200 {
				t.Fatalf("GET ?%s = %d %v, want 200", q, status, body)
			}
			continue
		}
		if status != http.StatusBadRequest || body["code"] != protocol.CodeBadRequest || body["message"] == "" {
			t.Fatalf("GET ?%s = %d %v, want 400 bad_request with a message", q, status, body)
		}
	}
}

// downCoord cannot list the open matches, as a Coord whose store is down.
type downCoord struct{ lobby.Coord }

func (downCoord) OpenMatches(context.Context, int64, int) ([]lobby.OpenMatch, error) {
	return nil, fmt.Errorf("%w: the list is down", match.ErrUnavailable)
}

// A list that cannot be read is unavailable on both routes, not empty.
func TestListMatchesUnavailable(t *testing.T) {
	srv := servertest.New(servertest.Config{
		Logger: slog.New(slog.NewTextHandler(io.Discard, nil)),
		Coord:  downCoord{memstore.NewCoord()},
	})
	hs := httptest.NewServer(srv)
	t.Cleanup(func() {
		srv.Close()
		hs.Close()
	})
	status, body := get(t, hs.URL+"/api/v1/matches")
	if status != http.StatusServiceUnavailable || body["code"] != protocol.CodeUnavailable {
		t.Fatalf("GET /api/v1/matches = %d %v, want 503 unavailable", status, body)
	}
	c := apitest.Dial(t, hs.URL)
	c.Hello("reader")
	if e := apitest.Request[protocol.Error](c, protocol.ListMatches{Type: protocol.TypeListMatches}); e.Code != protocol.CodeUnavailable {
		t.Fatalf("list_matches = %+v, want unavailable", e)
	}
}
