package redisstore

import (
	"context"
	"fmt"
	"log/slog"
	"strings"

	"github.com/redis/go-redis/v9"
)

// LogTo makes go-redis write its own lines (failed dials, pool and
// connection trouble) to l at Warn level, with component=redis, instead of
// to stderr in its own format. go-redis gives its lines no level, and most
// of them are about a failure, hence Warn. The setting is process-wide,
// since go-redis has one global logger: the last call wins, for every
// client, opened before or after. l must not be nil.
func LogTo(l *slog.Logger) {
	redis.SetLogger(slogLogger{l})
}

// slogLogger is go-redis's Logging interface over a *slog.Logger.
type slogLogger struct{ l *slog.Logger }

// Printf logs one go-redis line; it formats the line only when Warn is
// enabled, as go-redis may log on its hot paths.
func (s slogLogger) Printf(ctx context.Context, format string, v ...any) {
	if ctx == nil {
		ctx = context.Background()
	}
	if !s.l.Enabled(ctx, slog.LevelWarn) {
		return
	}
	s.l.Log(ctx, slog.LevelWarn, strings.TrimSpace(fmt.Sprintf(format, v...)), "component", "redis")
}
