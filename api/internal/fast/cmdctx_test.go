package fast

import (
	"context"
	"errors"
	"runtime"
	"sync"
	"testing"
	"time"
)

type ctxKey struct{}

// started is a CmdContext started with parent and the deadline d.
func started(parent context.Context, d time.Time) *CmdContext {
	c := new(CmdContext)
	c.Start(parent, d)
	return c
}

// TestCmdContext holds CmdContext to what context.WithDeadline does: the
// deadline, the errors, Done, values and contexts derived from it, whether
// or not Done was asked for before the end.
func TestCmdContext(t *testing.T) {
	parentOf := func() (context.Context, context.CancelFunc) {
		return context.WithCancel(context.WithValue(context.Background(), ctxKey{}, "v"))
	}
	closed := func(ch <-chan struct{}) bool {
		select {
		case <-ch:
			return true
		case <-time.After(2 * time.Second):
			return false
		}
	}
	for _, early := range []bool{false, true} { // Done asked for at once
		name := map[bool]string{false: "lazy", true: "early"}[early]
		t.Run(name+"/cancel", func(t *testing.T) {
			p, pcancel := parentOf()
			defer pcancel()
			d := time.Now().Add(time.Hour)
			c := started(p, d)
			if got, ok := c.Deadline(); !ok || !got.Equal(d) {
				t.Fatalf("Deadline = %v, %v; want %v", got, ok, d)
			}
			if early {
				c.Done()
			}
			if c.Err() != nil || c.Value(ctxKey{}) != "v" {
				t.Fatalf("before the end: Err %v, Value %v", c.Err(), c.Value(ctxKey{}))
			}
			child, ccancel := context.WithCancel(c)
			defer ccancel()
			c.Cancel()
			if !errors.Is(c.Err(), context.Canceled) || !closed(c.Done()) {
				t.Fatalf("after cancel: Err %v, Done closed %v", c.Err(), closed(c.Done()))
			}
			if !closed(child.Done()) || !errors.Is(child.Err(), context.Canceled) {
				t.Fatalf("child after cancel: %v", child.Err())
			}
			late, lcancel := context.WithCancel(c)
			defer lcancel()
			if !closed(late.Done()) || !errors.Is(late.Err(), context.Canceled) {
				t.Fatalf("a context derived after the end: %v", late.Err())
			}
			pcancel()
			if !errors.Is(c.Err(), context.Canceled) {
				t.Fatalf("Err after the parent's end = %v", c.Err())
			}
		})
		t.Run(name+"/deadline", func(t *testing.T) {
			p, pcancel := parentOf()
			defer pcancel()
			c := started(p, time.Now().Add(20*time.Millisecond))
			defer c.Cancel()
			if early {
				c.Done()
			} else {
				time.Sleep(30 * time.Millisecond)
				if !errors.Is(c.Err(), context.DeadlineExceeded) {
					t.Fatalf("after the deadline, before Done: Err %v", c.Err())
				}
			}
			child, ccancel := context.WithCancel(c)
			defer ccancel()
			if !closed(c.Done()) || !errors.Is(c.Err(), context.DeadlineExceeded) {
				t.Fatalf("after the deadline: Err %v", c.Err())
			}
			if !closed(child.Done()) || !errors.Is(child.Err(), context.DeadlineExceeded) {
				t.Fatalf("child after the deadline: %v", child.Err())
			}
			c.Cancel()
			if !errors.Is(c.Err(), context.DeadlineExceeded) {
				t.Fatalf("cancel after the deadline: Err %v, want DeadlineExceeded still", c.Err())
			}
		})
		t.Run(name+"/parent", func(t *testing.T) {
			p, pcancel := parentOf()
			c := started(p, time.Now().Add(time.Hour))
			defer c.Cancel()
			if early {
				c.Done()
			}
			pcancel()
			if !closed(c.Done()) || !errors.Is(c.Err(), context.Canceled) {
				t.Fatalf("after the parent's end: Err %v", c.Err())
			}
		})
	}
	t.Run("parent deadline first", func(t *testing.T) {
		pd := time.Now().Add(time.Minute)
		p, pcancel := context.WithDeadline(context.Background(), pd)
		defer pcancel()
		c := started(p, time.Now().Add(time.Hour))
		defer c.Cancel()
		if got, _ := c.Deadline(); !got.Equal(pd) {
			t.Fatalf("Deadline = %v, want the parent's %v", got, pd)
		}
	})
	t.Run("derived", func(t *testing.T) {
		// A context derived from it joins the real context's children,
		// as with WithDeadline, rather than costing a goroutine that
		// watches it (the context package's path for a parent it does
		// not know).
		c := started(context.Background(), time.Now().Add(time.Hour))
		before := runtime.NumGoroutine()
		var cancels []context.CancelFunc
		for range 50 {
			_, cancel := context.WithCancel(c)
			cancels = append(cancels, cancel)
		}
		if after := runtime.NumGoroutine(); after >= before+50 {
			t.Errorf("50 derived contexts made %d goroutines", after-before)
		}
		c.Cancel()
		for _, cancel := range cancels {
			cancel()
		}
	})
	t.Run("concurrent", func(t *testing.T) {
		c := started(context.Background(), time.Now().Add(time.Hour))
		var wg sync.WaitGroup
		for range 4 {
			wg.Go(func() {
				for range 100 {
					_ = c.Err()
					_ = c.Value(ctxKey{})
					<-time.After(0)
				}
				select {
				case <-c.Done():
				case <-time.After(5 * time.Second):
					t.Error("Done did not close")
				}
			})
		}
		c.Cancel()
		wg.Wait()
	})
}
