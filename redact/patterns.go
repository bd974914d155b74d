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
	// gate, when set, is a cheaper structural check run after the
	// prefilters and before the regexp. Regexps cost microseconds per
	// message; gates keep common text such as URLs and "Error: …" from
	// paying that.
	gate func(s string) bool
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
		Regexp:      `(?i)\b(?:proxy-)?authorization\\?["']?\s*[:=]\s*\\?["']?(?:(?:bearer|basic|digest|token|negotiate|ntlm|apikey|sso-key|aws4-hmac-sha256)\s+)?(?P<secret>[^\s"'\\]+)`,
	},
	{
		Kind:        "cookie",
		Description: "value of a Cookie or Set-Cookie header, to the end of the line",
		Prefilters:  []string{"cookie"},
		FoldCase:    true,
		Regexp:      `(?i)\b(?:set-)?cookie\\?["']?\s*:\s*\\?["']?(?P<secret>[^\r\n"'\\]+)`,
		accept:      func(c candidate) bool { return len(c.secret) > 0 },
	},
	{
		Kind:        "bearer_token",
		Description: "token after the word Bearer outside an Authorization header",
		Prefilters:  []string{"bearer"},
		FoldCase:    true,
		Regexp:      `(?i)\bbearer\s+(?P<secret>[A-Za-z0-9._~+/=-]+)`,
		accept:      func(c candidate) bool { return secretShaped(c.secret) },
	},
	{
		Kind:        "jwt",
		Description: "JSON Web Token: three base64url segments, the first one or two starting with eyJ",
		Prefilters:  []string{"eyJ"},
		Regexp:      `\beyJ[A-Za-z0-9_-]{4,}\.[A-Za-z0-9_-]{4,}\.[A-Za-z0-9_-]*`,
	},
	{
		Kind:        "github_token",
		Description: "GitHub personal, OAuth, user-to-server, server-to-server and refresh tokens (ghp_, gho_, ghu_, ghs_, ghr_, github_pat_)",
		Prefilters:  []string{"ghp_", "gho_", "ghu_", "ghs_", "ghr_", "github_pat_"},
		Regexp:      `\b(?:gh[pousr]_[A-Za-z0-9]{20,255}|github_pat_[A-Za-z0-9_]{20,255})`,
	},
	{
		Kind:        "slack_token",
		Description: "Slack bot, user, app and configuration tokens (xoxb-, xoxp-, xoxa-, xoxe-, xapp-)",
		Prefilters:  []string{"xox", "xapp-"},
		Regexp:      `\b(?:xox[abposre](?:\.xox[abposre])?-[A-Za-z0-9-]{8,}|xapp-[0-9]+-[A-Za-z0-9-]{8,})`,
	},
	{
		Kind:        "slack_webhook",
		Description: "path of a Slack incoming-webhook or workflow URL, which is itself the credential; the host is kept",
		Prefilters:  []string{"hooks.slack.com"},
		FoldCase:    true,
		Regexp:      `(?i)\bhooks\.slack\.com/(?:services|workflows|triggers)/(?P<secret>[A-Za-z0-9/_-]+)`,
	},
	{
		Kind:        "stripe_key",
		Description: "Stripe secret and restricted keys (sk_live_, sk_test_, rk_live_, rk_test_) and webhook signing secrets (whsec_)",
		Prefilters:  []string{"sk_live_", "sk_test_", "rk_live_", "rk_test_", "whsec_"},
		Regexp:      `\b(?:[sr]k_(?:live|test)_[A-Za-z0-9]{8,}|whsec_[A-Za-z0-9+/=]{8,})`,
	},
	{
		Kind:        "aws_access_key_id",
		Description: "AWS access key ID (AKIA… long-term, ASIA… temporary)",
		Prefilters:  []string{"AKIA", "ASIA", "ABIA", "ACCA"},
		Regexp:      `\b(?:AKIA|ASIA|ABIA|ACCA)[A-Z0-9]{16}\b`,
	},
	{
		Kind:        "aws_secret_access_key",
		Description: "value assigned to aws_secret_access_key (or SecretAccessKey) in config files, env dumps and JSON",
		Prefilters:  []string{"secret_access_key", "secretaccesskey"},
		FoldCase:    true,
		Regexp:      `(?i)\b(?:aws_)?secret_?access_?key\\?["']?\s*[:=]\s*\\?["']?(?P<secret>[A-Za-z0-9/+=]{16,})`,
	},
	{
		Kind:        "anthropic_api_key",
		Description: "Anthropic API and admin keys (sk-ant-…)",
		Prefilters:  []string{"sk-ant-"},
		Regexp:      `\bsk-ant-[A-Za-z0-9_-]{16,}`,
	},
	{
		Kind:        "openai_api_key",
		Description: "OpenAI-style secret keys (sk-…, sk-proj-…, sk-svcacct-…, sk-admin-…), also used by many compatible providers",
		Prefilters:  []string{"sk-"},
		Regexp:      `\bsk-(?:proj-|svcacct-|admin-|None-)?[A-Za-z0-9_-]{20,}`,
	},
	{
		Kind:        "google_api_key",
		Description: "Google API key (AIza followed by 35 characters)",
		Prefilters:  []string{"AIza"},
		Regexp:      `\bAIza[0-9A-Za-z_-]{35}`,
	},
	{
		Kind:        "url_password",
		Description: "password in the user-info part of a URL (scheme://user:password@host); the user name is kept",
		Prefilters:  []string{"://"},
		gate:        userInfoGate,
		Regexp:      `\b[A-Za-z][A-Za-z0-9+.-]{0,30}://[^\s:/?#@"'<>]*:(?P<secret>[^\s@/?#"'<>]+)@`,
	},
	{
		Kind: "secret_field",
		Description: "value of a key=value, key: value or \"key\": \"value\" pair whose key names a secret " +
			"(password, secret, token, api_key, access_key, private_key, session, credential, signature, …; see SensitiveKey)",
		Prefilters: []string{"pass", "pwd", "secret", "token", "key", "auth", "session", "credential", "sig", "jwt", "csrf", "xsrf"},
		FoldCase:   true,
		gate:       fieldGate,
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

// userInfoGate reports whether some "://" is followed by an '@' before the
// end of the URL authority, the only place a URL password can be.
func userInfoGate(s string) bool {
	for {
		i := strings.Index(s, "://")
		if i < 0 {
			return false
		}
		s = s[i+3:]
		for j := 0; j < len(s); j++ {
			c := s[j]
			if c == '@' {
				return true
			}
			if c <= ' ' || c == '/' || c == '?' || c == '#' || c == '"' || c == '\'' || c == '<' || c == '>' {
				break
			}
		}
	}
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
	}
	return ps
}
