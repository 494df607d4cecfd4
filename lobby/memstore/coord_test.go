package memstore_test

import (
	"context"
	"testing"
	"time"

	"klondike/lobby"
	"klondike/lobby/memstore"
	"klondike/lobby/storetest"
)

func TestCoordConformance(t *testing.T) {
	t.Parallel()
	storetest.RunCoord(t, func(*testing.T) lobby.Coord { return memstore.NewCoord() })
}

// TestCoordDataEpochIsNew: a new Coord is state that starts empty, so its
// data epoch differs from any other's.
func TestCoordDataEpochIsNew(t *testing.T) {
	ctx := context.Background()
	a, _ := memstore.NewCoord().DataEpoch(ctx)
	b, _ := memstore.NewCoord().DataEpoch(ctx)
	if a == "" || a == b {
		t.Fatalf("data epochs of two Coords: %q and %q", a, b)
	}
}

// TestCoordSlowSubscriber: a subscriber stuck in its callback holds up
// neither Publish nor the other subscribers.
func TestCoordSlowSubscriber(t *testing.T) {
	c, ctx := memstore.NewCoord(), t.Context()
	release := make(chan struct{})
	defer close(release)
	if err := c.Subscribe(ctx, func([]byte) { <-release }); err != nil {
		t.Fatal(err)
	}
	got := make(chan []byte, 1000)
	if err := c.Subscribe(ctx, func(m []byte) { got <- m }); err != nil {
		t.Fatal(err)
	}
	done := make(chan struct{})
	go func() {
		defer close(done)
		for range 1000 {
			_ = c.Publish(ctx, []byte("m"))
		}
	}()
	select {
	case <-done:
	case <-time.After(5 * time.Second):
		t.Fatal("Publish blocked on a slow subscriber")
	}
	for i := range 1000 {
		select {
		case <-got:
		case <-time.After(5 * time.Second):
			t.Fatalf("the other subscriber got %d of 1000 messages", i)
		}
	}
}

// TestCoordMessagesAreCopies: a subscriber that changes its message changes
// no one else's, nor the publisher's.
func TestCoordMessagesAreCopies(t *testing.T) {
	c, ctx := memstore.NewCoord(), t.Context()
	got := make(chan []byte, 2)
	for range 2 {
		if err := c.Subscribe(ctx, func(m []byte) { m[0] = 'X'; got <- m }); err != nil {
			t.Fatal(err)
		}
	}
	msg := []byte("abc")
	if err := c.Publish(ctx, msg); err != nil {
		t.Fatal(err)
	}
	<-got
	<-got
	if string(msg) != "abc" {
		t.Fatalf("the publisher's message became %q", msg)
	}
}
