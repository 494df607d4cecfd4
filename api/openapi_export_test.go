package api

// Hooks for openapi_test.go, which runs in package api_test.

// RoutePatterns returns the mux patterns of every route s registers.
func RoutePatterns(s *Server) []string {
	var ps []string
	for _, rt := range s.routes() {
		ps = append(ps, rt.pattern)
	}
	return ps
}

// The answers of the JSON routes, which api/openapi.json describes.
type (
	HTTPError                 = httpError
	MatchesPage               = matchesPage
	LeaderboardReply          = leaderboardReply
	DailyReply                = dailyReply
	RecordsReply              = recordsReply
	ChallengeLeaderboardReply = challengeLeaderboardReply
	ChallengeReplayReply      = challengeReplayReply
	LadderReply               = ladderReply
	LadderEntry               = ladderEntry
	RatedRoundReply           = ratedRoundReply
	PlayerRating              = playerRating
)

// The answers of the players' and passkeys' routes, and the body that
// finishes a passkey ceremony.
type (
	PlayerInfo    = playerInfo
	Profile       = profile
	RecentGame    = recentGame
	MadeChallenge = madeChallenge
	PasskeyInfo   = passkeyInfo
	MeReply       = meReply
	Export        = export
	CeremonyReply = ceremonyReply
	LoginReply    = loginReply
	CeremonyBody  = credentialBody
)
