package classify

import (
	"math"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"time"
)

// MaxRetryDelay caps every retry delay read from an error. A server that
// asks for days is better treated as "not now" by the user than as a timer
// an agent keeps running; a garbage value must not park a call forever.
const MaxRetryDelay = 24 * time.Hour

// ParseRetryAfter reads a Retry-After header value: delta-seconds (also
// with a fraction, "1.5", as some APIs send), an HTTP-date in any of the
// three formats of RFC 9110, or a Go-style duration such as "30s" or
// "1m30s" as found in google.rpc.RetryInfo. It returns the time before which
// a retry should not happen, clamped to now+MaxRetryDelay. A date in the
// past yields now. Negative, empty and unreadable values yield false.
func ParseRetryAfter(v string, now time.Time) (time.Time, bool) {
	v = strings.TrimSpace(v)
	if v == "" {
		return time.Time{}, false
	}
	if d, ok := parseDelay(v); ok {
		return now.Add(clampDelay(d)), true
	}
	for _, layout := range []string{
		"Mon, 02 Jan 2006 15:04:05 GMT",  // IMF-fixdate
		"Monday, 02-Jan-06 15:04:05 GMT", // RFC 850
		"Mon Jan _2 15:04:05 2006",       // asctime
		time.RFC1123, time.RFC1123Z,      // what some servers send instead
	} {
		if t, err := time.Parse(layout, v); err == nil {
			switch {
			case t.Before(now):
				return now, true
			case t.Sub(now) > MaxRetryDelay:
				return now.Add(MaxRetryDelay), true
			}
			return t, true
		}
	}
	return time.Time{}, false
}

// parseDelay reads "30", "1.5", "30s", "1m30s", "250ms" or "2h".
func parseDelay(v string) (time.Duration, bool) {
	if f, err := strconv.ParseFloat(v, 64); err == nil {
		return secondsToDuration(f)
	}
	if d, err := time.ParseDuration(v); err == nil && d >= 0 {
		return d, true
	}
	return 0, false
}

func secondsToDuration(f float64) (time.Duration, bool) {
	if math.IsNaN(f) || math.IsInf(f, 0) || f < 0 {
		return 0, false
	}
	if f > MaxRetryDelay.Seconds() {
		return MaxRetryDelay, true
	}
	return time.Duration(f * float64(time.Second)), true
}

func clampDelay(d time.Duration) time.Duration {
	if d > MaxRetryDelay {
		return MaxRetryDelay
	}
	return d
}

// RetryTime finds when the failed call may be retried, from the first of:
// the RetryAfter field; a retry field in Details (retry_after, retryAfter,
// retryDelay from google.rpc.RetryInfo, a retry-after response header kept
// in Details); a phrase in the message such as "try again in 20s" or
// "retry after 2.5 seconds". Tenant rules whose retryAfter is "fromError"
// use the same function.
func RetryTime(in *Input, now time.Time) (time.Time, bool) {
	return retryTime(in, now, nil, false)
}

// retryTime is RetryTime. With walked set, texts are the message-like
// strings of Details, which newSignals has already collected; otherwise
// they are collected here, when needed.
func retryTime(in *Input, now time.Time, texts []string, walked bool) (time.Time, bool) {
	if t, ok := ParseRetryAfter(in.Error.RetryAfter, now); ok {
		return t, true
	}
	if d, ok := retryFromDetails(in.Error.Details, 0); ok {
		return now.Add(d), true
	}
	if d, ok := retryFromText(in.Error.Message, now); ok {
		return now.Add(d), true
	}
	if !walked && in.Error.Details != nil {
		w := walker{budget: maxWalk}
		w.walk(in.Error.Details, 0, "")
		texts = w.texts
	}
	for _, t := range texts {
		if d, ok := retryFromText(t, now); ok {
			return now.Add(d), true
		}
	}
	return time.Time{}, false
}

// retryFields are normalized key names that carry a retry delay, with the
// unit a bare number is in.
var retryFields = map[string]time.Duration{
	"retryafter": time.Second, "retryafterseconds": time.Second, "retryaftersecs": time.Second,
	"retryaftersec": time.Second, "retrydelay": time.Second, "retryin": time.Second,
	"retryinseconds": time.Second, "retrydelayseconds": time.Second, "waitseconds": time.Second,
	"retryafterms": time.Millisecond, "retryaftermillis": time.Millisecond,
	"retryaftermilliseconds": time.Millisecond, "retrydelayms": time.Millisecond,
	"xratelimitresetafter": time.Second, "estimatedtime": time.Second,
}

func retryFromDetails(v any, depth int) (time.Duration, bool) {
	if depth > 5 {
		return 0, false
	}
	switch x := v.(type) {
	case map[string]any:
		keys := make([]string, 0, len(x))
		for k := range x {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			unit, ok := retryFields[alnumLower(k)]
			if !ok {
				continue
			}
			if d, ok := delayValue(x[k], unit); ok {
				return d, true
			}
		}
		for _, k := range keys {
			switch x[k].(type) {
			case map[string]any, []any:
				if d, ok := retryFromDetails(x[k], depth+1); ok {
					return d, true
				}
			}
		}
	case []any:
		for i, e := range x {
			if i >= 16 {
				break
			}
			if d, ok := retryFromDetails(e, depth+1); ok {
				return d, true
			}
		}
	}
	return 0, false
}

// delayValue reads a delay written as a number in unit, a string ("30",
// "30s", "1.5"), a one-element header list (["30"]), or a protobuf
// Duration in JSON object form ({"seconds": 30, "nanos": 0}).
func delayValue(v any, unit time.Duration) (time.Duration, bool) {
	switch x := v.(type) {
	case float64:
		if x < 0 || math.IsNaN(x) || math.IsInf(x, 0) {
			return 0, false
		}
		return clampDelay(time.Duration(math.Min(x*float64(unit), float64(MaxRetryDelay)))), true
	case string:
		x = strings.TrimSpace(x)
		if f, err := strconv.ParseFloat(x, 64); err == nil {
			return delayValue(f, unit)
		}
		if d, err := time.ParseDuration(x); err == nil && d >= 0 {
			return clampDelay(d), true
		}
	case []any:
		if len(x) == 1 {
			return delayValue(x[0], unit)
		}
	case map[string]any:
		secs, ok := x["seconds"]
		if !ok {
			return 0, false
		}
		d, ok := delayValue(secs, time.Second)
		if n, isNum := x["nanos"].(float64); ok && isNum && n > 0 {
			d += time.Duration(n)
		}
		return clampDelay(d), ok
	}
	return 0, false
}

// retryPhraseRe finds where a delay starts in text such as "Please try
// again in 20s", "you may retry this request in 30 seconds", "Retry-After:
// 30", "wait 2.5 seconds", "available again in 1m30s".
var retryPhraseRe = regexp.MustCompile(`(?i)(?:\b(?:try(?:ing)?|retry(?:ing)?|wait(?:ing)?|available|resets?|back|again)\b[^.;\n0-9]{0,40}?\b(?:in|after|for)|\bretry[-_ ]?after["']?\s*[:=]?|\bwait(?:ing)?(?: for)?)\s+(?:about\s+|approximately\s+|around\s+|roughly\s+|at least\s+|~\s*)?([0-9])`)

// retryFromText returns the first delay that a retry phrase in s announces,
// as a duration or as an RFC 3339 time ("retry after 2025-06-03T10:20:00Z").
func retryFromText(s string, now time.Time) (time.Duration, bool) {
	if len(s) > maxTextPart {
		s = s[:maxTextPart]
	}
	if !mayHaveRetryPhrase(s) {
		return 0, false
	}
	for _, m := range retryPhraseRe.FindAllStringSubmatchIndex(s, 4) {
		rest := s[m[2]:]
		if d, ok := parseSpokenDuration(rest); ok {
			return d, true
		}
		if ts := rfc3339Re.FindString(rest); ts != "" {
			if t, err := time.Parse(time.RFC3339, ts); err == nil && !now.IsZero() {
				return clampDelay(max(t.Sub(now), 0)), true
			}
		}
	}
	return 0, false
}

// mayHaveRetryPhrase reports whether s has what every match of
// retryPhraseRe has: a digit, one of its words, in any case, at the start of
// a word ("trying" starts with "try", "waiting" with "wait"), and what links
// that word to the number: "in" or "for" at the start of a word, or "after"
// or "wait" anywhere ("retryAfter"). The last part spares the pattern, which
// backtracks, on messages such as "read tcp 10.0.0.5:443: connection reset
// by peer", which has a digit and "reset" and cannot match.
func mayHaveRetryPhrase(s string) bool {
	return strings.IndexAny(s, "0123456789") >= 0 && retryWords.in(s) && (retryLinks.in(s) || retryLinksAnywhere.in(s))
}

var (
	retryWords         = newFoldSet(true, "try", "retry", "wait", "available", "reset", "back", "again")
	retryLinks         = newFoldSet(true, "in", "for")
	retryLinksAnywhere = newFoldSet(false, "after", "wait")
)

var rfc3339Re = regexp.MustCompile(`^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(?:\.\d+)?(?:Z|[+-]\d{2}:\d{2})`)

// parseSpokenDuration reads a duration at the start of s: "20s", "2.5
// seconds", "1m30s", "1 minute 30 seconds", "380ms", "6m0s", "59.51s".
// A number with no unit is seconds.
func parseSpokenDuration(s string) (time.Duration, bool) {
	var total time.Duration
	parts := 0
	for {
		i := 0
		for i < len(s) && (s[i] >= '0' && s[i] <= '9' || s[i] == '.') {
			i++
		}
		for i > 0 && s[i-1] == '.' { // a full stop after the number
			i--
		}
		if i == 0 {
			break
		}
		num, err := strconv.ParseFloat(s[:i], 64)
		if err != nil || num < 0 || i < len(s) && (s[i] == '-' || s[i] == ':' || s[i] == '/') {
			break // a date or a clock time, not a duration
		}
		rest := strings.TrimLeft(s[i:], " ")
		unit, n := durationUnit(rest)
		if unit == 0 {
			if parts > 0 {
				break
			}
			unit = time.Second
		}
		total += time.Duration(math.Min(num*float64(unit), float64(2*MaxRetryDelay)))
		parts++
		s = strings.TrimLeft(rest[n:], " ")
		s = strings.TrimPrefix(s, "and ")
		if n == 0 {
			break
		}
	}
	if parts == 0 {
		return 0, false
	}
	return clampDelay(total), true
}

// durationUnit reads a unit at the start of s and returns it with its length.
func durationUnit(s string) (time.Duration, int) {
	word := 0
	for word < len(s) && (s[word] >= 'a' && s[word] <= 'z' || s[word] >= 'A' && s[word] <= 'Z') {
		word++
	}
	switch strings.ToLower(s[:word]) {
	case "ms", "msec", "msecs", "millisecond", "milliseconds":
		return time.Millisecond, word
	case "s", "sec", "secs", "second", "seconds":
		return time.Second, word
	case "m", "min", "mins", "minute", "minutes":
		return time.Minute, word
	case "h", "hr", "hrs", "hour", "hours":
		return time.Hour, word
	case "d", "day", "days":
		return 24 * time.Hour, word
	}
	return 0, 0
}
