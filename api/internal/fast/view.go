package fast

import (
	"strconv"

	"klondike/engine"
)

// AppendViewJSON appends the JSON of v to b: byte for byte what
// encoding/json writes for it (engine.View's MarshalJSON), without
// reflection and without allocating when b has room. Every move's answer
// carries the player's view (TestAppendViewJSON).
func AppendViewJSON(b []byte, v *engine.View) []byte {
	b = append(b, `{"tableau":[`...)
	for i := range v.Piles() {
		if i > 0 {
			b = append(b, ',')
		}
		p := v.Pile(i + 1)
		b = append(b, `{"down":`...)
		b = strconv.AppendInt(b, int64(p.Down), 10)
		b = append(b, `,"up":`...)
		b = appendCards(b, p.Up)
		b = append(b, '}')
	}
	b = append(b, `],"stock":`...)
	b = strconv.AppendInt(b, int64(v.Stock), 10)
	b = append(b, `,"waste":`...)
	b = appendCards(b, v.Waste)
	b = append(b, `,"waste_size":`...)
	b = strconv.AppendInt(b, int64(v.WasteSize), 10)
	b = append(b, `,"foundations":`...)
	b = appendCounts(b, &v.Foundations)
	if v.Foundations2 != nil {
		b = append(b, `,"foundations2":`...)
		b = appendCounts(b, v.Foundations2)
	}
	if v.FoundationBase != 0 {
		b = append(b, `,"foundation_base":`...)
		b = strconv.AppendInt(b, int64(v.FoundationBase), 10)
	}
	b = append(b, `,"score":`...)
	b = strconv.AppendInt(b, int64(v.Score), 10)
	b = append(b, `,"moves":`...)
	b = strconv.AppendInt(b, int64(v.Moves), 10)
	b = append(b, `,"passes_used":`...)
	b = strconv.AppendInt(b, int64(v.PassesUsed), 10)
	b = append(b, `,"passes_left":`...)
	if v.PassesLeft != nil {
		b = strconv.AppendInt(b, int64(*v.PassesLeft), 10)
	} else {
		b = append(b, "null"...)
	}
	b = append(b, `,"status":"`...)
	b = append(b, v.Status.String()...)
	b = append(b, `","elapsed_ms":`...)
	b = strconv.AppendInt(b, v.ElapsedMs, 10)
	return append(b, '}')
}

// appendCounts appends a foundations object: C D H S.
func appendCounts(b []byte, f *engine.FoundationCounts) []byte {
	b = append(b, `{"C":`...)
	b = strconv.AppendInt(b, int64(f.C), 10)
	b = append(b, `,"D":`...)
	b = strconv.AppendInt(b, int64(f.D), 10)
	b = append(b, `,"H":`...)
	b = strconv.AppendInt(b, int64(f.H), 10)
	b = append(b, `,"S":`...)
	b = strconv.AppendInt(b, int64(f.S), 10)
	return append(b, '}')
}

// appendCards appends a list of card tokens; a nil list is null, as
// encoding/json writes it.
func appendCards(b []byte, cards []engine.Card) []byte {
	if cards == nil {
		return append(b, "null"...)
	}
	b = append(b, '[')
	for i, c := range cards {
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, '"')
		b = append(b, c.String()...)
		b = append(b, '"')
	}
	return append(b, ']')
}
