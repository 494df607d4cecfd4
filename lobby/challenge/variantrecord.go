package challenge

// A player's records, by variant (Variant): the values every game is
// counted in (Service.CountRound) and a RecordStore keeps.

import "time"

// A GameResult is one finished game as a player's records count it.
type GameResult struct {
	// GameID names the game (its round id): a result is counted once.
	GameID    string `json:"game_id"`
	Variant   string `json:"variant"`
	Won       bool   `json:"won"`
	Score     int    `json:"score"`      // the timed score
	ElapsedMs int64  `json:"elapsed_ms"` // the win's time, for a win
	// Day is the UTC date of a daily round's game ("2026-12-05"), empty
	// for any other game: the daily streak counts these.
	Day string `json:"day,omitempty"`
	// Finished is when the game ended, on the server's clock.
	Finished time.Time `json:"finished"`
}

// A VariantRecord is a player's record in one variant.
type VariantRecord struct {
	Variant   string `json:"variant"`
	Played    int    `json:"played"`
	Won       int    `json:"won"`
	BestScore *int   `json:"best_score"`     // null before the first game
	FastestMs *int64 `json:"fastest_win_ms"` // null before the first win
	// The daily streak: consecutive UTC days with a daily game played
	// (won or not), up to LastDaily; it is broken once a day passes
	// without one.
	DailyStreak     int    `json:"daily_streak"`
	BestDailyStreak int    `json:"best_daily_streak"`
	LastDaily       string `json:"last_daily,omitempty"`
}

// Add counts a game in the record.
func (v *VariantRecord) Add(g GameResult) {
	v.Variant = g.Variant
	v.Played++
	if v.BestScore == nil || g.Score > *v.BestScore {
		s := g.Score
		v.BestScore = &s
	}
	if g.Won {
		v.Won++
		if v.FastestMs == nil || g.ElapsedMs < *v.FastestMs {
			t := g.ElapsedMs
			v.FastestMs = &t
		}
	}
	if g.Day == "" || g.Day <= v.LastDaily {
		return
	}
	if v.LastDaily != "" && nextDay(v.LastDaily) == g.Day {
		v.DailyStreak++
	} else {
		v.DailyStreak = 1
	}
	v.LastDaily = g.Day
	v.BestDailyStreak = max(v.BestDailyStreak, v.DailyStreak)
}

// AsOf returns the record as seen on the UTC day today: a streak whose last
// daily game is older than yesterday is broken.
func (v VariantRecord) AsOf(today string) VariantRecord {
	if v.LastDaily != "" && v.LastDaily != today && nextDay(v.LastDaily) != today {
		v.DailyStreak = 0
	}
	return v
}

// DayOf returns the UTC date of t as "2006-01-02", the form of Day.
func DayOf(t time.Time) string { return t.UTC().Format(time.DateOnly) }

// nextDay returns the date after day ("2006-01-02"), or "" if day is not a
// date.
func nextDay(day string) string {
	t, err := time.Parse(time.DateOnly, day)
	if err != nil {
		return ""
	}
	return DayOf(t.AddDate(0, 0, 1))
}
