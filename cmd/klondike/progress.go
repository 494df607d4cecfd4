package main

import (
	"fmt"
	"io"
	"time"
)

// progressEvery is the least time between two redraws of the progress bar.
const progressEvery = 200 * time.Millisecond

// A progressBar draws "[=====>    ] 1234/10000 12% winnable 81.2% 3m left"
// on one line of a terminal. A nil *progressBar draws nothing.
type progressBar struct {
	w     io.Writer
	total int
	start time.Time
	drawn time.Time
}

// progressWidth is the number of cells of the bar.
const progressWidth = 30

func (p *progressBar) update(finished, winnable int) {
	if p == nil {
		return
	}
	now := time.Now()
	if finished < p.total && now.Sub(p.drawn) < progressEvery {
		return
	}
	p.drawn = now
	fill := finished * progressWidth / p.total
	bar := make([]byte, progressWidth)
	for i := range bar {
		switch {
		case i < fill:
			bar[i] = '='
		case i == fill:
			bar[i] = '>'
		default:
			bar[i] = ' '
		}
	}
	elapsed := now.Sub(p.start)
	left := time.Duration(float64(elapsed) / float64(finished) * float64(p.total-finished))
	fmt.Fprintf(p.w, "\r[%s] %d/%d %3d%% winnable %s, %v left ", bar, finished, p.total,
		finished*100/p.total, pct(winnable, finished), left.Round(time.Second))
}

// finish ends the bar's line.
func (p *progressBar) finish() {
	if p == nil {
		return
	}
	fmt.Fprintln(p.w)
}
