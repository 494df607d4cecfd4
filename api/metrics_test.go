package api

import (
	"io"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus/testutil"
)

func TestMetricsExposition(t *testing.T) {
	m := NewMetrics("1.2.3")
	m.RegisterMatchGauges(func() float64 { return 3 }, func() float64 { return 1 })
	m.Moves.WithLabelValues("accepted").Inc()
	m.MoveSeconds.Observe(0.0002)
	m.ObserveStore("append", 0.001, true)
	m.ObserveStore("log", 0.001, false)

	rec := httptest.NewRecorder()
	m.Handler().ServeHTTP(rec, httptest.NewRequest("GET", "/metrics", nil))
	body, _ := io.ReadAll(rec.Body)
	text := string(body)
	for _, want := range []string{
		"klondike_connections 0",
		"klondike_connected_players 0",
		"klondike_messages_received_total 0",
		"klondike_messages_sent_total 0",
		"klondike_slow_disconnects_total 0",
		"klondike_rate_limited_total 0",
		`klondike_connections_rejected_total{reason="ip_cap"} 0`,
		`klondike_connections_rejected_total{reason="origin"} 0`,
		`klondike_connections_rejected_total{reason="shutdown"} 0`,
		`klondike_moves_total{result="accepted"} 1`,
		`klondike_moves_total{result="out_of_order"} 0`,
		`klondike_move_duration_seconds_bucket{le="5e-05"} 0`,
		`klondike_move_duration_seconds_bucket{le="1"} 1`,
		"klondike_rounds_started_total 0",
		"klondike_rounds_finished_total 0",
		`klondike_store_operation_duration_seconds_count{op="append"} 1`,
		`klondike_store_errors_total{op="append"} 1`,
		`klondike_store_operation_duration_seconds_count{op="log"} 1`,
		`klondike_store_errors_total{op="log"} 0`,
		`klondike_matches{state="open"} 3`,
		`klondike_matches{state="running"} 1`,
		`klondike_build_info{goversion="go`,
		`version="1.2.3"} 1`,
		"go_goroutines ",
	} {
		if !strings.Contains(text, want) {
			t.Errorf("exposition lacks %q", want)
		}
	}
	if n, err := testutil.GatherAndCount(m.Registry, "klondike_matches"); err != nil || n != 2 {
		t.Fatalf("klondike_matches: %d series, %v", n, err)
	}
	if probs, err := testutil.GatherAndLint(m.Registry); err != nil || len(probs) > 0 {
		t.Fatalf("lint: %v %v", probs, err)
	}
}

func TestConstructorsNeedMetrics(t *testing.T) {
	for name, f := range map[string]func(){
		"NewHub": func() { NewHub(nil) },
	} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("%s(nil metrics) did not panic", name)
				}
			}()
			f()
		}()
	}
}

// BenchmarkMoveMetrics is the metrics' work for one accepted move, as the
// server does it: the frame counted in (ws.Conn.readPump), the store's append
// timed (storemetrics.Wrap, Metrics.ObserveStore), the move counted and timed (Service.move), the
// reply counted out (ws.Conn.writeLoop), and a quarter of a leaderboard frame
// out (a leaderboard goes to four players every 250 ms, while each of them
// moves about every 200 ms). Compared with the server's CPU a move in a
// load run (docs/performance.md, "Metrics"), it is the cost of metrics.
func BenchmarkMoveMetrics(b *testing.B) {
	m := NewMetrics("bench")
	b.ReportAllocs()
	b.RunParallel(func(pb *testing.PB) {
		i := 0
		for pb.Next() {
			start := time.Now()
			m.MessagesIn.Inc()
			storeStart := time.Now()
			m.ObserveStore("append", time.Since(storeStart).Seconds(), false)
			m.Moves.WithLabelValues("accepted").Inc()
			m.MoveSeconds.Observe(time.Since(start).Seconds())
			m.MessagesOut.Inc()
			if i++; i%4 == 0 {
				m.MessagesOut.Inc()
			}
		}
	})
}
