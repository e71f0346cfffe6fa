package apps

// KeptValues are the value arrays s keeps, one of each element type.
func KeptValues(s *Scratch) []any {
	var out []any
	for _, k := range s.values {
		out = append(out, k.array)
	}
	return out
}
