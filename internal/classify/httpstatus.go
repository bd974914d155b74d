package classify

import (
	"regexp"
	"strings"
)

// HTTP status codes in messages. Many tools report a failed HTTP call only
// as text: "Request failed with status code 502", "503 Service
// Unavailable", "HTTPError: 429 Client Error". httpStatusRes are the
// message shapes, tried in order; the first that matches gives the status.
var httpStatusRes = []*regexp.Regexp{
	regexp.MustCompile(`(?i)\b(?:status(?:[ _]?code)?|http(?:/[0-9.]+)?|error[ _]?code|response[ _]?code)\s*[:=]?\s*([45][0-9]{2})\b`),
	regexp.MustCompile(`\b([45][0-9]{2}) (?:Client|Server) Error\b`),
	regexp.MustCompile(`(?i)\bHTTP Error ([45][0-9]{2})\b`),
	regexp.MustCompile(`(?i)\b(?:returned|responded with|received|got)\s+(?:an?\s+)?(?:status\s+|http\s+)?([45][0-9]{2})\b`),
	// PowerShell's and .NET's "(403) Forbidden", in every language Windows
	// speaks ("(403) 已禁止", "(401) Nicht autorisiert"), and a status
	// closing the message ("Non-200 status code (503)").
	regexp.MustCompile(`\(([45][0-9]{2})\)(?:\s[^a-z0-9\s]|$)`),
	regexp.MustCompile(`(?i)\berror:? ([45][0-9]{2})\b`),
	regexp.MustCompile(`(?i)\b([45][0-9]{2}),? (?:` + strings.Join(reasonPhrases, "|") + `)\b`),
	// A status at the very start ("502 Bad Gateway"), but not an SMTP
	// reply, which has an enhanced status code after it ("550 5.1.1").
	regexp.MustCompile(`^\s*(4[0-5][0-9]|50[0-9]|51[01]|52[0-9])(?:[ ,:-]+[^0-9 ]|$)`),
	regexp.MustCompile(`: ([45][0-9]{2}) [A-Z](?:[a-z]|[A-Z][A-Za-z_])`),
	// A package manager's or HTTP client's request line and its status:
	// "GET https://registry.npmjs.org/lodash - 503".
	regexp.MustCompile(`\b(?:GET|POST|PUT|PATCH|DELETE|HEAD) \S+ - ([45][0-9]{2})\b`),
}

// reasonPhrases are the HTTP reason phrases that follow a status in
// messages such as "404 Not Found".
var reasonPhrases = []string{
	"Bad Request", "Unauthorized", "Payment Required", "Forbidden", "Not Found", "Method Not Allowed",
	"Request Timeout", "Conflict", "Gone", "Precondition Failed", "Payload Too Large",
	"Request Entity Too Large", "Unsupported Media Type", "Unprocessable Entity", "Locked", "Too Early",
	"Too Many Requests", "Unavailable For Legal Reasons", "Internal Server Error", "Not Implemented",
	"Bad Gateway", "Service Unavailable", "Gateway Time-?out",
}

// lowerReasonPhrases spell reasonPhrases out in lower case for the scanner.
var lowerReasonPhrases = func() []string {
	var out []string
	for _, p := range reasonPhrases {
		p = strings.ToLower(p)
		if before, after, ok := strings.Cut(p, "-?"); ok {
			out = append(out, before+after, before+"-"+after)
			continue
		}
		out = append(out, p)
	}
	return out
}()

// replyWords start every match of the fourth pattern.
var replyWords = newFoldSet(true, "returned", "responded", "received", "got")

// statusMatcher stands for one pattern of httpStatusRes. It returns where
// the pattern's leftmost match captures its status in s, or -1. Each is
// either the pattern behind a prefilter or a scanner that finds exactly what
// the pattern finds without running it; prefilter_internal_test.go checks
// both kinds against the patterns.
type statusMatcher func(s string) int

var statusMatchers = [...]statusMatcher{
	prefiltered(0, statusAfterKeyword),
	scanClientServerError,
	scanHTTPError,
	prefiltered(3, replyWords.in),
	scanParenthesized,
	scanErrorStatus,
	scanReasonPhrase,
	scanLeadingStatus,
	scanColonStatus,
	prefiltered(9, requestLine),
}

// requestLine is the prefilter of the last pattern: its " - " between
// the URL and the status.
func requestLine(s string) bool { return strings.Contains(s, " - ") }

// statusAfterKeyword is the prefilter of the first pattern. Its keywords
// all end in "status", "code" or "http", and between keyword and status
// there can only be an HTTP version ("/1.1") and spaces, ':' or '='. So
// some status, followed by a \b, must have one of those words right
// before it once such characters are skipped. The long s and the Kelvin
// sign, which (?i) matches to s and k, send the text to the pattern.
func statusAfterKeyword(s string) bool {
	if hasNonASCIIFold(s) {
		return true
	}
	j := 0 // where the run of gap characters before i starts
	for i := 0; i+2 < len(s); i++ {
		if i > 0 && !isKeywordGap(s[i-1]) {
			j = i
		}
		if !isStatusAt(s, i) || !wordEnd(s, i+3) {
			continue
		}
		if hasSuffixFold(s[:j], "status") || hasSuffixFold(s[:j], "code") || hasSuffixFold(s[:j], "http") {
			return true
		}
	}
	return false
}

// isKeywordGap reports the characters that the first pattern allows
// between its keyword and the status: \s, ':', '=', and "/1.1".
func isKeywordGap(c byte) bool {
	return c == ' ' || c == '\t' || c == '\n' || c == '\f' || c == '\r' || c == ':' || c == '=' || c == '/' || c == '.' || isDigit(c)
}

// hasSuffixFold reports whether s ends with the lower-case ASCII suffix,
// ignoring ASCII case.
func hasSuffixFold(s, suffix string) bool {
	return len(s) >= len(suffix) && equalFoldASCII(s[len(s)-len(suffix):], suffix)
}

// prefiltered runs httpStatusRes[i] on the texts that maybe accepts.
func prefiltered(i int, maybe func(string) bool) statusMatcher {
	return func(s string) int { return regexpStatus(i, s, maybe) }
}

func regexpStatus(i int, s string, maybe func(string) bool) int {
	if maybe != nil && !maybe(s) {
		return -1
	}
	if m := httpStatusRes[i].FindStringSubmatchIndex(s); m != nil {
		return m[2]
	}
	return -1
}

func httpFromMessage(msg string) (int32, bool) {
	if len(msg) > maxTextPart {
		msg = msg[:maxTextPart]
	}
	// Every pattern captures a 4xx or 5xx status; without three such digits in a row none can
	// match, and running nine regular expressions over the message is most of Baseline's cost.
	if !hasStatusDigits(msg) {
		return 0, false
	}
	for _, match := range statusMatchers {
		if p := match(msg); p >= 0 {
			return int32(msg[p]-'0')*100 + int32(msg[p+1]-'0')*10 + int32(msg[p+2]-'0'), true
		}
	}
	return 0, false
}

// hasStatusDigits reports whether s holds a 4 or 5 and two more ASCII digits that are followed
// by the end or by a byte that is not an ASCII word character: every pattern of httpStatusRes
// requires that much (each ends its capture with \b, a space, a comma, a colon, a dash or a
// parenthesis), so a message without it cannot match any of them. Numbers inside identifiers and
// keys ("40001", "sk_live_51…456789") are the common case that this skips.
func hasStatusDigits(s string) bool {
	for i := 0; i+2 < len(s); i++ {
		if isStatusAt(s, i) && (i+3 == len(s) || !isWordByte(s[i+3])) {
			return true
		}
	}
	return false
}

// nextStatus returns the first index p >= from where s has a status as the
// scanners need it: a 4 or 5 and two more digits, with no ASCII word
// character right before or right after. Every pattern that has a scanner
// requires those boundaries around its capture (the first pattern does not:
// it takes "http404"). It returns -1 if there is none.
func nextStatus(s string, from int) int {
	for p := from; p+2 < len(s); p++ {
		if isStatusAt(s, p) && (p == 0 || !isWordByte(s[p-1])) && (p+3 == len(s) || !isWordByte(s[p+3])) {
			return p
		}
	}
	return -1
}

func isStatusAt(s string, p int) bool {
	return p+2 < len(s) && (s[p] == '4' || s[p] == '5') && isDigit(s[p+1]) && isDigit(s[p+2])
}

// Scanners. The comment of each gives its pattern. A \b next to a digit or
// letter is a boundary when the byte on the other side is not an ASCII
// letter, digit or underscore (Go's \b is ASCII only), which nextStatus and
// wordStart check.

// scanClientServerError: \b([45][0-9]{2}) (?:Client|Server) Error\b
func scanClientServerError(s string) int {
	for p := nextStatus(s, 0); p >= 0; p = nextStatus(s, p+1) {
		rest := s[p+3:]
		if (strings.HasPrefix(rest, " Client Error") || strings.HasPrefix(rest, " Server Error")) && wordEnd(rest, len(" Client Error")) {
			return p
		}
	}
	return -1
}

// scanHTTPError: (?i)\bHTTP Error ([45][0-9]{2})\b
// None of its letters has a case variant outside ASCII.
func scanHTTPError(s string) int {
	const lit = "http error "
	for p := nextStatus(s, len(lit)); p >= 0; p = nextStatus(s, p+1) {
		if h := p - len(lit); equalFoldASCII(s[h:p], lit) && wordStart(s, h) {
			return p
		}
	}
	return -1
}

// scanParenthesized: \(([45][0-9]{2})\)(?:\s[^a-z0-9\s]|$)
func scanParenthesized(s string) int {
	for p := nextStatus(s, 1); p >= 0; p = nextStatus(s, p+1) {
		if s[p-1] != '(' || p+3 >= len(s) || s[p+3] != ')' {
			continue
		}
		if p+4 == len(s) || isRESpace(s[p+4]) && p+5 < len(s) && !isLowerDigitOrSpace(s[p+5]) {
			return p
		}
	}
	return -1
}

// isRESpace is RE2's \s: space, \t, \n, \f and \r.
func isRESpace(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\f' || c == '\r' }

func isLowerDigitOrSpace(c byte) bool { return 'a' <= c && c <= 'z' || isDigit(c) || isRESpace(c) }

// scanErrorStatus: (?i)\berror:? ([45][0-9]{2})\b
// None of its letters has a case variant outside ASCII.
func scanErrorStatus(s string) int {
	for p := nextStatus(s, len("error ")); p >= 0; p = nextStatus(s, p+1) {
		if s[p-1] != ' ' {
			continue
		}
		e := p - len("error ")
		if s[p-2] == ':' { // "error: 404"
			e--
			if e < 0 {
				continue
			}
		}
		if equalFoldASCII(s[e:e+len("error")], "error") && wordStart(s, e) {
			return p
		}
	}
	return -1
}

// scanReasonPhrase: (?i)\b([45][0-9]{2}),? (?:Bad Request|…|Gateway Time-?out)\b
// Under (?i) the long s and the Kelvin sign match s and k, which several
// reason phrases have; a text with either of them goes to the pattern.
func scanReasonPhrase(s string) int {
	if hasNonASCIIFold(s) {
		return regexpStatus(6, s, nil)
	}
	for p := nextStatus(s, 0); p >= 0; p = nextStatus(s, p+1) {
		rest := s[p+3:]
		rest = strings.TrimPrefix(rest, ",")
		if !strings.HasPrefix(rest, " ") {
			continue
		}
		rest = rest[1:]
		for _, phrase := range lowerReasonPhrases {
			if len(rest) >= len(phrase) && equalFoldASCII(rest[:len(phrase)], phrase) && wordEnd(rest, len(phrase)) {
				return p
			}
		}
	}
	return -1
}

// scanLeadingStatus: ^\s*(4[0-5][0-9]|50[0-9]|51[01]|52[0-9])(?:[ ,:-]+[^0-9 ]|$)
func scanLeadingStatus(s string) int {
	p := 0
	for p < len(s) && (s[p] == ' ' || s[p] == '\t' || s[p] == '\n' || s[p] == '\f' || s[p] == '\r') {
		p++
	}
	if !isStatusAt(s, p) {
		return -1
	}
	switch d := s[p : p+2]; {
	case s[p] == '4' && d <= "45", d == "50", d == "52", d == "51" && s[p+2] <= '1':
	default:
		return -1
	}
	q := p + 3
	if q == len(s) {
		return p
	}
	// [ ,:-]+ then one character that is neither a digit nor a space: the
	// run may give back its last characters, and ',', ':' and '-' are such
	// characters themselves.
	n := 0
	for q+n < len(s) && strings.IndexByte(" ,:-", s[q+n]) >= 0 {
		if n > 0 && s[q+n] != ' ' {
			return p
		}
		n++
	}
	if n > 0 && q+n < len(s) && !isDigit(s[q+n]) {
		return p
	}
	return -1
}

// scanColonStatus: : ([45][0-9]{2}) [A-Z](?:[a-z]|[A-Z][A-Za-z_])
//
// The word after the status is a reason phrase ("Not Found", "NOT_FOUND"),
// not a unit: "required: 412 MB" is a size.
func scanColonStatus(s string) int {
	for p := nextStatus(s, 2); p >= 0; p = nextStatus(s, p+1) {
		if s[p-2] == ':' && s[p-1] == ' ' && p+5 < len(s) && s[p+3] == ' ' && isUpper(s[p+4]) &&
			(isLower(s[p+5]) || (isUpper(s[p+5]) && p+6 < len(s) && (isLetter(s[p+6]) || s[p+6] == '_'))) {
			return p
		}
	}
	return -1
}

// wordStart reports whether a \b precedes s[i], a word character.
func wordStart(s string, i int) bool { return i == 0 || !isWordByte(s[i-1]) }

// wordEnd reports whether a \b follows s[:i], which ends in a word character.
func wordEnd(s string, i int) bool { return i == len(s) || !isWordByte(s[i]) }

func isDigit(c byte) bool  { return c >= '0' && c <= '9' }
func isUpper(c byte) bool  { return c >= 'A' && c <= 'Z' }
func isLower(c byte) bool  { return c >= 'a' && c <= 'z' }
func isLetter(c byte) bool { return isUpper(c) || isLower(c) }

// isWordByte is regexp's \w for one byte: ASCII letters, digits and underscore.
func isWordByte(c byte) bool {
	return isDigit(c) || c == '_' || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z')
}
