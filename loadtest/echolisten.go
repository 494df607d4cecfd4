package main

import (
	"context"
	"fmt"
	"io"
	"time"

	"klondike/engine"
)

// echoRules are the rules of the echo baseline's games.
func echoRules(cfg *config) engine.Rules {
	return engine.Rules{Draw: cfg.Draw, Passes: cfg.Passes, FoundationToTableau: true,
		Undo: engine.UndoNoReveal, Scoring: engine.ScoringStandard}
}

// serveEcho runs the echo server alone on addr (--echo-listen) for the
// duration, or until ctx ends, for a baseline in a process of its own:
// loadtest --baseline --server ws://ADDR/ws.
func serveEcho(ctx context.Context, cfg config, logw io.Writer) error {
	raw, _, err := echoPosition(echoRules(&cfg))
	if err != nil {
		return err
	}
	rep := fileLimitNote(raiseFileLimit())
	var log moveLog
	switch {
	case cfg.EchoRedis != "":
		l, err := openEchoLog(cfg.EchoRedis)
		if err != nil {
			return err
		}
		log = l
		rep += ", each move logged to " + cfg.EchoRedis + " under " + l.prefix
	case cfg.EchoStore != "":
		l, err := openStoreLog(cfg.EchoStore)
		if err != nil {
			return err
		}
		log = l
		rep += ", each move appended to the store at " + cfg.EchoStore + " under " + l.Prefix
	}
	if log != nil {
		defer log.close()
	}
	url, stop, err := startEcho(cfg.EchoListen, raw, log)
	if err != nil {
		return err
	}
	defer stop()
	fmt.Fprintf(logw, "loadtest: echo server at %s for %v (%s); bots: --baseline --server %s\n", url, cfg.Duration, rep, url)
	t := time.NewTimer(cfg.Duration)
	defer t.Stop()
	select {
	case <-t.C:
	case <-ctx.Done():
	}
	return nil
}

// fileLimitNote describes the open files limit in words.
func fileLimitNote(fl fileLimit) string {
	if fl.Err != "" {
		return "open files: " + fl.Err
	}
	return fmt.Sprintf("open files: soft %d, hard %d", fl.Soft, fl.Hard)
}
