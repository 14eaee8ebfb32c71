package runner

// What judging a line costs, so that the memory of one vector is bounded
// at any flag values (docs/running.md "Bounds"): a line is decoded, validated,
// normalized and canonicalized, and its frame is compared with the golden
// summary at the end; each of those holds memory in proportion to the
// line's JSON values (members and items), not to its bytes alone. A line
// of 13 MB with 1,000,000 members took 1.29 GB before this was counted.

// workPerValue is the memory, in bytes, that judging one JSON value of a
// line may hold at once, from decoding it to comparing it with the golden
// summary: measured at 1.1-1.6 KiB of Go heap in use per value for the
// worst shapes (an object of 80,000 members the golden file does not
// have, each an allowed difference; arrays of empty objects; nested
// arrays), with room to spare.
const workPerValue = 2048

// jsonValues is an upper bound on the number of values and member names
// in the JSON text b: one, and one more for every '{', '[', ',' and ':'
// outside a string. It reads each byte once and allocates nothing; a line
// that is not JSON gets a count too (what decoding it would have held).
func jsonValues(b []byte) int {
	n, inString, escaped := 1, false, false
	for _, c := range b {
		switch {
		case escaped:
			escaped = false
		case inString:
			switch c {
			case '\\':
				escaped = true
			case '"':
				inString = false
			}
		case c == '"':
			inString = true
		case c == '{' || c == '[' || c == ',' || c == ':':
			n++
		}
	}
	return n
}

// admit decides, before a line is decoded, whether judging it fits in
// what the vector's budget leaves: its bytes and workPerValue for each of
// its values (jsonValues). When it does not, the vector ends:
// VECTOR_BUDGET_EXCEEDED (PROTOCOL_ERROR), and the line is not decoded.
// When it does, the work is kept for add, which charges it to the kept
// frames with the frame's bytes (the comparison at the end holds it
// again).
func (s *summarizer) admit(o *outcome, line []byte, budget int) bool {
	values := jsonValues(line)
	work := workPerValue * values
	if s.kept+len(line)+work > s.room {
		o.overBudget = true
		o.add(FindingBudgetExceeded, ProtocolError, "a line of %d bytes holds about %d JSON values, which would take about %d bytes to judge (%d a value); with the %d bytes the vector keeps, that is over the %d the budget of %d bytes (--max-vector-bytes) leaves after the stderr tail and the findings; the line was not decoded, the IUT was stopped and the lines after it were not judged",
			len(line), values, len(line)+work, workPerValue, s.kept, s.room, budget)
		return false
	}
	s.work = work
	return true
}
