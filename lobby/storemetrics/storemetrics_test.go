package storemetrics_test

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"
	"unicode"

	"klondike/lobby/memstore"
	"klondike/lobby/storemetrics"
	"klondike/match"
)

// failing is a Store whose every operation takes a little while and
// returns err.
type failing struct{ err error }

const opTime = 2 * time.Millisecond

func (f failing) wait() error { time.Sleep(opTime); return f.err }

func (f failing) Append(context.Context, string, uint64, match.LogEntry, match.Standing) error {
	return f.wait()
}
func (f failing) SetStanding(context.Context, string, match.Standing) error { return f.wait() }
func (f failing) Log(context.Context, string, string) ([]match.LogEntry, error) {
	return []match.LogEntry{{Seq: 1}}, f.wait()
}
func (f failing) Standings(context.Context, string) ([]match.Standing, error) {
	return []match.Standing{{PlayerID: "p"}}, f.wait()
}
func (f failing) Ping(context.Context) error                                { return f.wait() }
func (f failing) ClaimSeat(context.Context, string, string) (uint64, error) { return 7, f.wait() }
func (f failing) CloseRound(context.Context, string) error                  { return f.wait() }
func (f failing) Keep(context.Context, string, time.Time) error             { return f.wait() }

// observation is what an Observer was told of one operation.
type observation struct {
	op      string
	seconds float64
	failed  bool
}

// callAll calls every operation of s once, in the order of Ops, and
// returns what each returned besides its error, and its error.
func callAll(s match.Store) (results []any, errs []error) {
	ctx := context.Background()
	add := func(r any, err error) { results, errs = append(results, r), append(errs, err) }
	add(nil, s.Append(ctx, "r", 1, match.LogEntry{Seq: 1}, match.Standing{PlayerID: "p"}))
	add(nil, s.SetStanding(ctx, "r", match.Standing{PlayerID: "p"}))
	add(s.Log(ctx, "r", "p"))
	add(s.Standings(ctx, "r"))
	add(nil, s.Ping(ctx))
	add(s.ClaimSeat(ctx, "r", "p"))
	add(nil, s.CloseRound(ctx, "r"))
	add(nil, s.Keep(ctx, "r", time.Now()))
	return results, errs
}

// TestWrap: every operation is passed through, timed and told under its
// name; the store's answers are not failures, the rest are.
func TestWrap(t *testing.T) {
	for _, tc := range []struct {
		err    error
		failed bool
	}{
		{nil, false},
		{match.ErrSeqConflict, false},
		{fmt.Errorf("append: %w", match.ErrSeqGap), false},
		{match.ErrStaleWriter, false},
		{match.ErrNotFound, false},
		{match.ErrRoundClosed, false},
		{match.ErrUnavailable, true},
		{context.DeadlineExceeded, true},
		{errors.New("broken"), true},
	} {
		var got []observation
		s := storemetrics.Wrap(failing{tc.err}, func(op string, seconds float64, failed bool) {
			got = append(got, observation{op, seconds, failed})
		})
		results, errs := callAll(s)
		wantResults, _ := callAll(failing{tc.err})
		if !reflect.DeepEqual(results, wantResults) {
			t.Errorf("error %v: the wrapped store returned %v, want %v", tc.err, results, wantResults)
		}
		for i, err := range errs {
			if err != tc.err {
				t.Errorf("error %v: %s returned %v, want it unchanged", tc.err, storemetrics.Ops[i], err)
			}
		}
		if len(got) != len(storemetrics.Ops) {
			t.Fatalf("error %v: %d observations %v, want one for each of %v", tc.err, len(got), got, storemetrics.Ops)
		}
		for i, o := range got {
			if o.op != storemetrics.Ops[i] || o.failed != tc.failed || o.seconds < opTime.Seconds() || o.seconds > 10 {
				t.Errorf("error %v: observation %d = %+v, want op %s, failed %v, at least %v s",
					tc.err, i, o, storemetrics.Ops[i], tc.failed, opTime.Seconds())
			}
		}
	}
}

// TestOpsNameEveryMethod: Ops has one name for each method of match.Store,
// the method's name in snake case.
func TestOpsNameEveryMethod(t *testing.T) {
	var names []string
	st := reflect.TypeFor[match.Store]()
	for i := range st.NumMethod() {
		var b strings.Builder
		for j, r := range st.Method(i).Name {
			if unicode.IsUpper(r) && j > 0 {
				b.WriteByte('_')
			}
			b.WriteRune(unicode.ToLower(r))
		}
		names = append(names, b.String())
	}
	ops := slices.Sorted(slices.Values(storemetrics.Ops))
	if !slices.Equal(names, ops) { // reflect lists methods sorted by name
		t.Fatalf("storemetrics.Ops = %v, want %v", ops, names)
	}
}

// TestWrapMemoryStore: a real store works through the wrapper.
func TestWrapMemoryStore(t *testing.T) {
	n := 0
	s := storemetrics.Wrap(memstore.New(), func(string, float64, bool) { n++ })
	ctx := context.Background()
	if err := s.Append(ctx, "r", 1, match.LogEntry{Seq: 1, Move: "draw"}, match.Standing{PlayerID: "p", FinishedMs: -1}); err != nil {
		t.Fatal(err)
	}
	if l, err := s.Log(ctx, "r", "p"); err != nil || len(l) != 1 || l[0].Move != "draw" {
		t.Fatalf("Log = %v, %v; want the move appended", l, err)
	}
	if n != 2 {
		t.Fatalf("%d observations, want 2", n)
	}
}
