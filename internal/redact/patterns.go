package redact

import (
	"regexp"
	"strings"
)

// Pattern describes one kind of secret found by its shape in text.
type Pattern struct {
	// Kind names the secret in the marker: [REDACTED:<Kind>].
	Kind string
	// Description says what the pattern finds, for the documentation.
	Description string
	// Prefilters are literal substrings; the regular expression runs only
	// when the text contains at least one of them. They keep redaction
	// cheap for the common message that holds no secret.
	Prefilters []string
	// FoldCase makes the prefilters match regardless of case. Prefilters of
	// such patterns are written in lower case.
	FoldCase bool
	// Regexp is the RE2 expression. When it has groups named secret,
	// secret2, …, only the first one that took part in the match is
	// replaced, so context such as a header name or URL user survives;
	// otherwise the whole match is replaced.
	Regexp string

	re *regexp.Regexp
	// anchored is Regexp matched only at the start of the text, for
	// findAtStarts.
	anchored *regexp.Regexp
	// find, when set, returns what re.FindAllStringSubmatchIndex(s, -1)
	// would, more cheaply: it knows where matches can start and looks only
	// there.
	find func(p *Pattern, s string) [][]int
	// starts, when set, are the words that every match begins with, after
	// lead when the match has it; the regexp begins with \b. They let
	// findAtStarts try the pattern only where a match can begin. Like
	// Prefilters they are lower case when FoldCase is set.
	starts []string
	lead   string
	// startBytes marks the bytes that a match can begin with.
	startBytes *[256]bool
	// gate, when set, is a cheaper structural check run after the
	// prefilters and before the regexp. Regexps cost microseconds per
	// message; gates keep common text such as URLs and "Error: …" from
	// paying that.
	gate func(s string) bool
	// after, when set, is checked at each occurrence of a prefilter, on the
	// text that follows it; the pattern runs only when it holds somewhere.
	// It does what a gate does, on the occurrences the prefilter scan has
	// already found.
	after func(rest string) bool
	// accept, when set, vets a candidate: key is the group named key (if
	// any), sep the group named sep, quoted whether the secret was quoted.
	accept func(c candidate) bool
}

// candidate is one regexp match offered to a pattern's accept function.
type candidate struct {
	key, sep, secret string
	quoted           bool
}

// patterns is ordered: specific shapes come before the generic key=value
// pattern so that a secret is named by its most precise kind.
var patterns = compile([]Pattern{
	{
		Kind:        "private_key",
		Description: "PEM or PGP private key block, up to its END line or the end of the text if truncated",
		Prefilters:  []string{"PRIVATE KEY"},
		Regexp:      `-----BEGIN[A-Z0-9 ]* PRIVATE KEY(?: BLOCK)?-----(?s:.*?)(?:-----END[A-Z0-9 ]* PRIVATE KEY(?: BLOCK)?-----|\z)`,
	},
	{
		Kind:        "authorization",
		Description: "credentials of an Authorization or Proxy-Authorization header; the header name and scheme are kept",
		Prefilters:  []string{"authorization"},
		FoldCase:    true,
		starts:      []string{"authorization"},
		lead:        "proxy-",
		Regexp:      `(?i)\b(?:proxy-)?authorization\\?["']?\s*[:=]\s*\\?["']?(?:(?:bearer|basic|digest|token|negotiate|ntlm|apikey|sso-key|aws4-hmac-sha256)\s+)?(?P<secret>[^\s"'\\]+)`,
	},
	{
		Kind:        "cookie",
		Description: "value of a Cookie or Set-Cookie header, to the end of the line",
		Prefilters:  []string{"cookie"},
		FoldCase:    true,
		starts:      []string{"cookie"},
		lead:        "set-",
		Regexp:      `(?i)\b(?:set-)?cookie\\?["']?\s*:\s*\\?["']?(?P<secret>[^\r\n"'\\]+)`,
		accept:      func(c candidate) bool { return len(c.secret) > 0 },
	},
	{
		Kind:        "bearer_token",
		Description: "token after the word Bearer outside an Authorization header",
		Prefilters:  []string{"bearer"},
		FoldCase:    true,
		starts:      []string{"bearer"},
		Regexp:      `(?i)\bbearer\s+(?P<secret>[A-Za-z0-9._~+/=-]+)`,
		accept:      func(c candidate) bool { return secretShaped(c.secret) },
	},
	{
		Kind:        "jwt",
		Description: "JSON Web Token: three base64url segments, the first one or two starting with eyJ",
		Prefilters:  []string{"eyJ"},
		starts:      []string{"eyJ"},
		Regexp:      `\beyJ[A-Za-z0-9_-]{4,}\.[A-Za-z0-9_-]{4,}\.[A-Za-z0-9_-]*`,
	},
	{
		Kind:        "github_token",
		Description: "GitHub personal, OAuth, user-to-server, server-to-server and refresh tokens (ghp_, gho_, ghu_, ghs_, ghr_, github_pat_)",
		Prefilters:  []string{"ghp_", "gho_", "ghu_", "ghs_", "ghr_", "github_pat_"},
		starts:      []string{"ghp_", "gho_", "ghu_", "ghs_", "ghr_", "github_pat_"},
		Regexp:      `\b(?:gh[pousr]_[A-Za-z0-9]{20,255}|github_pat_[A-Za-z0-9_]{20,255})`,
	},
	{
		Kind:        "slack_token",
		Description: "Slack bot, user, app and configuration tokens (xoxb-, xoxp-, xoxa-, xoxe-, xapp-)",
		Prefilters:  []string{"xox", "xapp-"},
		starts:      []string{"xox", "xapp-"},
		Regexp:      `\b(?:xox[abposre](?:\.xox[abposre])?-[A-Za-z0-9-]{8,}|xapp-[0-9]+-[A-Za-z0-9-]{8,})`,
	},
	{
		Kind:        "slack_webhook",
		Description: "path of a Slack incoming-webhook or workflow URL, which is itself the credential; the host is kept",
		Prefilters:  []string{"hooks.slack.com"},
		FoldCase:    true,
		starts:      []string{"hooks.slack.com"},
		Regexp:      `(?i)\bhooks\.slack\.com/(?:services|workflows|triggers)/(?P<secret>[A-Za-z0-9/_-]+)`,
	},
	{
		Kind:        "stripe_key",
		Description: "Stripe secret and restricted keys (sk_live_, sk_test_, rk_live_, rk_test_) and webhook signing secrets (whsec_)",
		Prefilters:  []string{"sk_live_", "sk_test_", "rk_live_", "rk_test_", "whsec_"},
		starts:      []string{"sk_live_", "sk_test_", "rk_live_", "rk_test_", "whsec_"},
		Regexp:      `\b(?:[sr]k_(?:live|test)_[A-Za-z0-9]{8,}|whsec_[A-Za-z0-9+/=]{8,})`,
	},
	{
		Kind:        "aws_access_key_id",
		Description: "AWS access key ID (AKIA… long-term, ASIA… temporary)",
		Prefilters:  []string{"AKIA", "ASIA", "ABIA", "ACCA"},
		starts:      []string{"AKIA", "ASIA", "ABIA", "ACCA"},
		Regexp:      `\b(?:AKIA|ASIA|ABIA|ACCA)[A-Z0-9]{16}\b`,
	},
	{
		Kind:        "aws_secret_access_key",
		Description: "value assigned to aws_secret_access_key (or SecretAccessKey) in config files, env dumps and JSON",
		Prefilters:  []string{"secret_access_key", "secretaccesskey"},
		FoldCase:    true,
		starts:      []string{"secret"},
		lead:        "aws_",
		Regexp:      `(?i)\b(?:aws_)?secret_?access_?key\\?["']?\s*[:=]\s*\\?["']?(?P<secret>[A-Za-z0-9/+=]{16,})`,
	},
	{
		Kind:        "anthropic_api_key",
		Description: "Anthropic API and admin keys (sk-ant-…)",
		Prefilters:  []string{"sk-ant-"},
		starts:      []string{"sk-ant-"},
		Regexp:      `\bsk-ant-[A-Za-z0-9_-]{16,}`,
	},
	{
		Kind:        "openai_api_key",
		Description: "OpenAI-style secret keys (sk-…, sk-proj-…, sk-svcacct-…, sk-admin-…), also used by many compatible providers",
		Prefilters:  []string{"sk-"},
		starts:      []string{"sk-"},
		Regexp:      `\bsk-(?:proj-|svcacct-|admin-|None-)?[A-Za-z0-9_-]{20,}`,
	},
	{
		Kind:        "google_api_key",
		Description: "Google API key (AIza followed by 35 characters)",
		Prefilters:  []string{"AIza"},
		starts:      []string{"AIza"},
		Regexp:      `\bAIza[0-9A-Za-z_-]{35}`,
	},
	{
		Kind:        "url_password",
		Description: "password in the user-info part of a URL (scheme://user:password@host); the user name is kept",
		Prefilters:  []string{"://"},
		after:       userInfoAfter,
		Regexp:      `\b[A-Za-z][A-Za-z0-9+.-]{0,30}://[^\s:/?#@"'<>]*:(?P<secret>[^\s@/?#"'<>]+)@`,
	},
	{
		Kind: "secret_field",
		Description: "value of a key=value, key: value or \"key\": \"value\" pair whose key names a secret " +
			"(password, secret, token, api_key, access_key, private_key, session, credential, signature, …; see SensitiveKey)",
		Prefilters: []string{"pass", "pwd", "secret", "token", "key", "auth", "session", "credential", "sig", "jwt", "csrf", "xsrf"},
		FoldCase:   true,
		gate:       fieldGate,
		find:       findFields,
		Regexp: `(?i)(?P<key>[a-z0-9_.-]*(?:pass|pwd|secret|token|key|auth|session|credential|sig|jwt|csrf|xsrf)[a-z0-9_.-]*)\\?["']?` +
			`\s*(?P<sep>=>|[:=])\s*(?:\\?"(?P<secret>[^"\\\r\n]*)|'(?P<secret2>[^'\r\n]*)'|(?P<secret3>[^\s"'&,;<>()\[\]{}\\]+))`,
		accept: acceptField,
	},
})

// acceptField decides whether a key=value candidate is a secret. The regexp
// only finds key names containing a sensitive stem; SensitiveKey rules out
// names like max_tokens. A bare value after a colon is prose as often as it
// is data ("invalid token: expired"), so there the value must look like a
// secret unless the key leaves no doubt.
func acceptField(c candidate) bool {
	if c.secret == "" || !SensitiveKey(c.key) {
		return false
	}
	switch normalizeKey(c.key) {
	case "authorization", "proxyauthorization":
		return false // the authorization pattern handles these headers
	}
	if c.quoted || c.sep != ":" {
		return true
	}
	return unambiguousKey(c.key) || secretShaped(c.secret)
}

// secretShaped reports whether a word looks like a machine-made credential
// rather than an English word: long enough and containing a digit, mixed
// case or a symbol typical of encodings.
func secretShaped(s string) bool {
	if len(s) < 8 {
		return false
	}
	var digit, upper, lower, symbol bool
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case c >= '0' && c <= '9':
			digit = true
		case c >= 'A' && c <= 'Z':
			upper = upper || i > 0
		case c >= 'a' && c <= 'z':
			lower = true
		case c == '_' || c == '+' || c == '/' || c == '=' || c == '~' || c == '.':
			symbol = true
		}
	}
	return digit || (upper && lower) || symbol || len(s) >= 32
}

// userInfoAfter reports whether the text after a "://" has an '@' before
// the end of the URL authority, the only place a URL password can be.
func userInfoAfter(s string) bool {
	for j := 0; j < len(s); j++ {
		c := s[j]
		if c == '@' {
			return true
		}
		if c <= ' ' || c == '/' || c == '?' || c == '#' || c == '"' || c == '\'' || c == '<' || c == '>' {
			return false
		}
	}
	return false
}

// fieldGate reports whether some ':' or '=' follows a sensitive key name,
// the shape the secret_field regexp looks for.
func fieldGate(s string) bool {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c != ':' && c != '=' {
			continue
		}
		j := i
		for j > 0 && (s[j-1] == ' ' || s[j-1] == '\t' || s[j-1] == '"' || s[j-1] == '\'' || s[j-1] == '\\') {
			j--
		}
		k := j
		for k > 0 && isKeyChar(s[k-1]) {
			k--
		}
		if k < j && SensitiveKey(s[k:j]) {
			return true
		}
	}
	return false
}

func isKeyChar(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == '.' || c == '-'
}

func compile(ps []Pattern) []Pattern {
	for i := range ps {
		ps[i].re = regexp.MustCompile(ps[i].Regexp)
		if ps[i].starts != nil {
			if !strings.HasPrefix(strings.TrimPrefix(ps[i].Regexp, "(?i)"), `\b`) {
				panic("redact: pattern " + ps[i].Kind + " has starts but does not begin with \\b")
			}
			ps[i].find = findAtStarts
			ps[i].anchored = regexp.MustCompile(`^(?:` + ps[i].Regexp + `)`)
			ps[i].startBytes = new([256]bool)
			for _, w := range append([]string{ps[i].lead}, ps[i].starts...) {
				if w != "" {
					for _, c := range caseVariants(w[0], ps[i].FoldCase) {
						ps[i].startBytes[c] = true
					}
				}
			}
		}
	}
	return ps
}

// findAll returns the index pairs of every match of p in s, as
// p.re.FindAllStringSubmatchIndex(s, -1) does.
func (p *Pattern) findAll(s string) [][]int {
	if p.find != nil {
		return p.find(p, s)
	}
	return p.re.FindAllStringSubmatchIndex(s, -1)
}

// findAtStarts finds the matches of a pattern whose matches all begin with
// one of its starts, after its lead if they have it, at a word boundary.
// Searching with such a pattern costs microseconds even though it begins
// with a word: a leading \b or (?i) keeps regexp from looking for the word
// first. Here the anchored pattern runs only where a start word is; a \b
// at the start of the text it is given holds, so the boundary is checked
// against the byte before. Under (?i) the long s (U+017F) and the Kelvin
// sign (U+212A) match s and k; a text with either is searched with the
// pattern itself.
//
// Each try costs time in proportion to the rest of the text, so a text with
// many start words that lead nowhere could cost more than one search. After
// maxMissedStarts such words the pattern searches the rest of the text
// itself, from the next one: that is where a search would resume, and the
// word boundary before it makes the cut invisible to the pattern.
func findAtStarts(p *Pattern, s string) [][]int {
	if p.FoldCase && hasNonASCIIFold(s) {
		return p.re.FindAllStringSubmatchIndex(s, -1)
	}
	var out [][]int
	missed := 0
	for t := 0; t < len(s); t++ {
		if !p.startBytes[s[t]] || !p.beginsAt(s, t) || !(t == 0 || !isWordByte(s[t-1])) {
			continue
		}
		if missed == maxMissedStarts {
			for _, m := range p.re.FindAllStringSubmatchIndex(s[t:], -1) {
				out = append(out, shift(m, t))
			}
			return out
		}
		m := p.anchored.FindStringSubmatchIndex(s[t:])
		if m == nil {
			missed++
			continue
		}
		out = append(out, shift(m, t))
		t = m[1] - 1 // m is shifted now; the search goes on after the match
	}
	return out
}

// maxMissedStarts bounds the anchored tries of findAtStarts that find
// nothing.
const maxMissedStarts = 8

// shift moves the indexes of a match in s[t:] to s.
func shift(m []int, t int) []int {
	for i := range m {
		if m[i] >= 0 {
			m[i] += t
		}
	}
	return m
}

// beginsAt reports whether s[t:] begins with one of p's starts, or with
// p.lead and then one of them.
func (p *Pattern) beginsAt(s string, t int) bool {
	rest := s[t:]
	if p.lead != "" && hasWordAt(rest, p.lead, p.FoldCase) {
		for _, w := range p.starts {
			if hasWordAt(rest[len(p.lead):], w, p.FoldCase) {
				return true
			}
		}
	}
	for _, w := range p.starts {
		if hasWordAt(rest, w, p.FoldCase) {
			return true
		}
	}
	return false
}

func hasWordAt(s, w string, fold bool) bool {
	return len(s) >= len(w) && hasNeedleAt(s, needle{text: w, fold: fold})
}

func isWordByte(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_'
}

// findFields finds the matches of the secret_field pattern. Searching with
// it is slow, tens of microseconds on a 200-byte message: the key group
// starts with [a-z0-9_.-]*, so the pattern is tried from every byte of every
// word. But its matches can only start at the start of a word:
//
//   - The key is key characters ([a-z0-9_.-], any case) around a stem, and
//     whatever follows the key (a backslash, a quote, a space, '=' or ':')
//     is not a key character, so the key ends where its run of key
//     characters ends.
//   - If the pattern matches from some byte of a run, it matches from the
//     start of the run too, with a longer key holding the same stem.
//
// So the leftmost match in a run starts at the run's start, and only runs
// that hold a stem need trying; fieldMatchAt reads the rest of the pattern
// from there. A run is counted from where the search resumes, as the
// pattern counts it. Under (?i) the long s (U+017F) and the Kelvin sign
// (U+212A) are key characters too; a text with either is searched with the
// pattern itself.
func findFields(p *Pattern, s string) [][]int {
	if hasNonASCIIFold(s) {
		return p.re.FindAllStringSubmatchIndex(s, -1)
	}
	var out [][]int
	for pos := 0; pos < len(s); {
		r := pos
		for r < len(s) && !isKeyChar(s[r]) {
			r++
		}
		e := r
		for e < len(s) && isKeyChar(s[e]) {
			e++
		}
		if r == e {
			break
		}
		if fieldStems.in(s[r:e]) {
			if m := fieldMatchAt(s, r, e); m != nil {
				out = append(out, m)
				pos = m[1]
				continue
			}
		}
		pos = e
	}
	return out
}

// fieldMatchAt matches what the secret_field pattern has after its key,
// which is s[r:e], and returns the match as FindStringSubmatchIndex does,
// or nil. After the key the pattern has no choice that backtracking could
// revisit with another outcome: each optional character is taken when
// present (leaving it would put it where nothing else accepts it), and the
// value's three forms start with different characters.
//
//	\\?["']?\s*(?P<sep>=>|[:=])\s*
//	(?:\\?"(?P<secret>[^"\\\r\n]*)|'(?P<secret2>[^'\r\n]*)'|(?P<secret3>[^\s"'&,;<>()\[\]{}\\]+))
//
// Bytes outside ASCII belong to none of the listed characters, so every
// negated class takes them, as it takes the runes they form.
func fieldMatchAt(s string, r, e int) []int {
	i := e
	if i < len(s) && s[i] == '\\' {
		i++
	}
	if i < len(s) && (s[i] == '"' || s[i] == '\'') {
		i++
	}
	i = skipSpace(s, i)
	sep := i
	switch {
	case strings.HasPrefix(s[i:], "=>"):
		i += 2
	case i < len(s) && (s[i] == ':' || s[i] == '='):
		i++
	default:
		return nil
	}
	m := []int{r, -1, r, e, sep, i, -1, -1, -1, -1, -1, -1}
	i = skipSpace(s, i)
	switch {
	case strings.HasPrefix(s[i:], `\"`) || strings.HasPrefix(s[i:], `"`):
		if s[i] == '\\' {
			i++
		}
		j := i + 1
		for j < len(s) && s[j] != '"' && s[j] != '\\' && s[j] != '\r' && s[j] != '\n' {
			j++
		}
		m[1], m[6], m[7] = j, i+1, j
	case i < len(s) && s[i] == '\'':
		j := i + 1
		for j < len(s) && s[j] != '\'' && s[j] != '\r' && s[j] != '\n' {
			j++
		}
		if j == len(s) || s[j] != '\'' {
			return nil
		}
		m[1], m[8], m[9] = j+1, i+1, j
	default:
		j := i
		for j < len(s) && !endsBareValue(s[j]) {
			j++
		}
		if j == i {
			return nil
		}
		m[1], m[10], m[11] = j, i, j
	}
	return m
}

// skipSpace skips \s, which is [\t\n\f\r ], from s[i].
func skipSpace(s string, i int) int {
	for i < len(s) && (s[i] == ' ' || s[i] == '\t' || s[i] == '\n' || s[i] == '\f' || s[i] == '\r') {
		i++
	}
	return i
}

// endsBareValue reports the bytes that the unquoted value,
// [^\s"'&,;<>()\[\]{}\\]+, stops at.
func endsBareValue(c byte) bool {
	switch c {
	case ' ', '\t', '\n', '\f', '\r', '"', '\'', '&', ',', ';', '<', '>', '(', ')', '[', ']', '{', '}', '\\':
		return true
	}
	return false
}

// fieldStems are the stems of the secret_field pattern's key.
var fieldStems = newFoldSet("pass", "pwd", "secret", "token", "key", "auth", "session", "credential", "sig", "jwt", "csrf", "xsrf")
