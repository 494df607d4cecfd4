package protocol

// The error codes of Error and MoveRejected: the protocol's stable set.
// The api chooses which error of the lower layers gets which code, in one
// table (api's codeTable); anything it does not know is CodeInternal.
const (
	CodeBadRequest      = "bad_request"
	CodeUnauthorized    = "unauthorized"
	CodeNotFound        = "not_found"
	CodeIllegalMove     = "illegal_move"
	CodeOutOfOrder      = "out_of_order"
	CodeRateLimited     = "rate_limited"
	CodeRoundNotRunning = "round_not_running"
	CodeMatchFull       = "match_full"
	CodeUnavailable     = "unavailable"
	CodeInternal        = "internal"
)
