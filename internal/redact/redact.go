package redact

import "strings"

const markerPrefix = "[REDACTED:"

// KindField is the marker kind for a value removed because of its key name.
const KindField = "secret_field"

// Marker returns the text that replaces a secret of the given kind.
func Marker(kind string) string { return markerPrefix + kind + "]" }

// Patterns returns the text patterns in the order they are applied.
func Patterns() []Pattern {
	out := make([]Pattern, len(patterns))
	copy(out, patterns)
	for i := range out {
		out[i].Prefilters = append([]string(nil), out[i].Prefilters...)
	}
	return out
}

// String returns s with every secret found by Patterns replaced by its marker.
func String(s string) string {
	set := prefilter.candidates(s)
	for i := range patterns {
		if set&(1<<i) == 0 {
			continue
		}
		p := &patterns[i]
		if p.gate != nil && !p.gate(s) {
			continue
		}
		if out := p.replace(s); out != s {
			// Markers were inserted and secrets removed: later patterns
			// must look at the new text.
			s = out
			set = prefilter.candidates(s)
		}
	}
	return s
}

// replace substitutes the marker for the secret part of every accepted match.
func (p *Pattern) replace(s string) string {
	matches := p.findAll(s)
	if matches == nil {
		return s
	}
	names := p.re.SubexpNames()
	marker := Marker(p.Kind)
	var b strings.Builder
	last := 0
	for _, m := range matches {
		start, end := m[0], m[1]
		var c candidate
		hasSecretGroup, found := false, false
		for g, name := range names {
			lo, hi := m[2*g], m[2*g+1]
			switch {
			case lo < 0:
			case name == "key":
				c.key = s[lo:hi]
			case name == "sep":
				c.sep = s[lo:hi]
			}
			if strings.HasPrefix(name, "secret") {
				hasSecretGroup = true
				if lo >= 0 && !found {
					found = true
					start, end = lo, hi
					c.secret = s[lo:hi]
					c.quoted = name != "secret3"
				}
			}
		}
		switch {
		case !hasSecretGroup:
			c.secret = s[start:end]
		case !found || c.secret == "":
			continue
		}
		if strings.HasPrefix(c.secret, markerPrefix) || (p.accept != nil && !p.accept(c)) {
			continue
		}
		b.WriteString(s[last:start])
		b.WriteString(marker)
		last = end
	}
	if last == 0 {
		return s
	}
	b.WriteString(s[last:])
	return b.String()
}

// Value returns a deep copy of a decoded JSON value with secrets redacted:
// values under sensitive keys are replaced whole, and every other string is
// passed through String. Maps, slices, strings, float64, bool, nil and
// json.Number are handled, as are map[string]string and []string; values of
// other types are returned as they are. The input is never modified.
func Value(v any) any {
	switch x := v.(type) {
	case map[string]any:
		out := make(map[string]any, len(x))
		for k, e := range x {
			if SensitiveKey(k) {
				out[k] = redactWhole(e)
			} else {
				out[k] = Value(e)
			}
		}
		return out
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = Value(e)
		}
		return out
	case string:
		if r := String(x); r != x {
			return r
		}
		return v // the same string, without boxing it again
	case map[string]string:
		return Map(x)
	case []string:
		out := make([]string, len(x))
		for i, e := range x {
			out[i] = String(e)
		}
		return out
	default:
		return v
	}
}

// redactWhole replaces a value found under a sensitive key. Values that
// cannot carry a secret (null, "", booleans) are kept because they are
// useful diagnostics: "the api_key was empty".
func redactWhole(v any) any {
	switch x := v.(type) {
	case nil, bool:
		return v
	case string:
		if x == "" {
			return x
		}
	}
	return Marker(KindField)
}

// Map returns a copy of m with the values of sensitive keys replaced whole
// and every other value passed through String. Empty values are kept.
func Map(m map[string]string) map[string]string {
	if m == nil {
		return nil
	}
	out := make(map[string]string, len(m))
	for k, v := range m {
		out[k] = Field(k, v)
	}
	return out
}

// Field returns a string value as it is kept under key: replaced whole under a
// sensitive key, passed through String otherwise; an empty value is kept.
func Field(key, value string) string {
	switch {
	case value == "":
		return value
	case SensitiveKey(key):
		return Marker(KindField)
	default:
		return String(value)
	}
}
