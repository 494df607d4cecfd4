package fast

// MoveFields are a move's own fields (protocol.Move's but its type and id).
type MoveFields struct {
	RoundID string
	Seq     int
	Move    string
}

// Scanned is what ScanMove read: the message's type and id, and a move's
// fields (zero for a message of another type that has none of them).
type Scanned struct {
	Type, ID string
	Move     MoveFields
}

// ScanMove reads, without reflection, the frames most of the traffic is:
// a flat JSON object whose keys are among type, id, round_id, seq and move,
// each at most once and spelt exactly so, with plain printable-ASCII
// strings (no escapes) and seq a plain integer, a non-empty type and an id
// of at most maxIDLen bytes. It reports false for anything else, which
// then takes the general path (encoding/json); FuzzScanMove and
// TestScanMoveMatchesJSON hold it to what that path reads.
func ScanMove(data []byte, maxIDLen int) (f Scanned, ok bool) {
	// The strings' places in data, made strings at the end: all of them
	// slices of one copy of the frame, rather than a copy each.
	var typ, id, roundID, move span
	i := skipSpace(data, 0)
	if i >= len(data) || data[i] != '{' {
		return f, false
	}
	var seen uint8
	i = skipSpace(data, i+1)
	if i < len(data) && data[i] == '}' {
		return f, false // no type: the general path says so
	}
	for {
		ks, j, ok := plainSpan(data, i)
		if !ok {
			return f, false
		}
		i = skipSpace(data, j)
		if i >= len(data) || data[i] != ':' {
			return f, false
		}
		i = skipSpace(data, i+1)
		var bit uint8
		switch string(data[ks.start:ks.end]) { // compared, not copied
		case "type":
			bit = 1
		case "id":
			bit = 2
		case "round_id":
			bit = 4
		case "move":
			bit = 8
		case "seq":
			bit = 16
		default:
			return f, false
		}
		if bit == 16 {
			n, j, ok := plainInt(data, i)
			if !ok {
				return f, false
			}
			f.Move.Seq, i = n, j
		} else {
			v, j, ok := plainSpan(data, i)
			if !ok {
				return f, false
			}
			switch bit {
			case 1:
				typ = v
			case 2:
				id = v
			case 4:
				roundID = v
			default:
				move = v
			}
			i = j
		}
		if seen&bit != 0 {
			return f, false
		}
		seen |= bit
		i = skipSpace(data, i)
		if i >= len(data) {
			return f, false
		}
		if data[i] == '}' {
			break
		}
		if data[i] != ',' {
			return f, false
		}
		i = skipSpace(data, i+1)
	}
	if skipSpace(data, i+1) != len(data) || typ.len() == 0 || id.len() > maxIDLen {
		return f, false
	}
	str := string(data)
	f.Type, f.ID, f.Move.RoundID, f.Move.Move = typ.of(str), id.of(str), roundID.of(str), move.of(str)
	return f, true
}

// A span is the place of a string's text in a frame: data[start:end].
type span struct{ start, end int }

func (s span) len() int { return s.end - s.start }

// of returns the span's text in str, a copy of the frame.
func (s span) of(str string) string { return str[s.start:s.end] }

func skipSpace(data []byte, i int) int {
	for i < len(data) && (data[i] == ' ' || data[i] == '\t' || data[i] == '\n' || data[i] == '\r') {
		i++
	}
	return i
}

// plainSpan reads a string of printable ASCII without escapes at data[i:],
// and returns the place of its text and the index after it.
func plainSpan(data []byte, i int) (span, int, bool) {
	if i >= len(data) || data[i] != '"' {
		return span{}, i, false
	}
	for j := i + 1; j < len(data); j++ {
		switch c := data[j]; {
		case c == '"':
			return span{i + 1, j}, j + 1, true
		case c < 0x20 || c > 0x7e || c == '\\':
			return span{}, i, false
		}
	}
	return span{}, i, false
}

// plainInt reads an integer of at most 18 digits, without fraction or
// exponent, at data[i:].
func plainInt(data []byte, i int) (int, int, bool) {
	j := i
	if j < len(data) && data[j] == '-' {
		j++
	}
	start := j
	n := 0
	for j < len(data) && data[j] >= '0' && data[j] <= '9' {
		n = n*10 + int(data[j]-'0')
		j++
	}
	digits := j - start
	if digits == 0 || digits > 18 || (digits > 1 && data[start] == '0') {
		return 0, i, false
	}
	if j < len(data) && (data[j] == '.' || data[j] == 'e' || data[j] == 'E') {
		return 0, i, false
	}
	if start > i {
		n = -n
	}
	return n, j, true
}
