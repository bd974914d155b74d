package redact

import "strings"

// SensitiveKey reports whether a field, header or parameter name says that
// its value is a secret. Case and the separators '-', '_', '.' and ' ' are
// ignored, so "X-Api-Key", "api_key" and "apiKey" are the same name.
//
// Names that use a secret word as a quantity or a label are not sensitive:
// max_tokens, token_count, prompt_tokens, token_type, secret_name,
// next_page_token. LLM APIs put such fields in almost every error, and they
// are what explains a context-length or quota failure.
func SensitiveKey(name string) bool {
	n := name
	if !isNormalKey(name) {
		// A conversion that does not escape: for names of up to 32 bytes
		// the compiler keeps it on the stack, so no allocation.
		var buf [64]byte
		n = string(appendNormalKey(buf[:0], name))
	}
	if n == "" {
		return false
	}
	for _, w := range exactKeys {
		if n == w {
			return true
		}
	}
	if !stems.in(n) && !strings.HasSuffix(n, "auth") {
		return false
	}
	for _, w := range innocentKeys {
		if n == w {
			return false
		}
	}
	if strings.Contains(n, "tokens") {
		return false // counts and limits: max_tokens, tokens_used, prompt_tokens
	}
	for _, p := range innocentPrefixes {
		if strings.HasPrefix(n, p) {
			return false
		}
	}
	for _, s := range innocentSuffixes {
		if strings.HasSuffix(n, s) && n != s {
			return false
		}
	}
	return true
}

// unambiguousKey reports names whose value is a secret whatever it looks
// like, as opposed to "token" or "session", which also appear in prose.
func unambiguousKey(name string) bool {
	n := normalizeKey(name)
	return SensitiveKey(name) && (containsAny(n, []string{"password", "passwd", "passphrase", "secret", "apikey", "privatekey", "accesskey"}) || n == "pwd")
}

var (
	// stemKeys make a name sensitive wherever they occur in it.
	stemKeys = []string{
		"password", "passwd", "passphrase", "secret", "token", "apikey",
		"accesskey", "privatekey", "signingkey", "encryptionkey", "masterkey",
		"accountkey", "subscriptionkey", "sharedkey", "authorization", "cookie",
		"session", "credential", "signature", "bearer", "jwt", "csrf", "xsrf",
	}
	// exactKeys are sensitive only as whole names.
	exactKeys = []string{"pwd", "pass", "auth", "sig"}
	// innocentKeys are whole names that contain a stem but hold no secret.
	innocentKeys = []string{
		"pagetoken", "nextpagetoken", "nexttoken", "continuationtoken",
		"synctoken", "tokenizer", "secretid", "sessionstate",
	}
	innocentPrefixes = []string{"max", "min", "num", "total"}
	// innocentSuffixes describe a secret instead of being one.
	innocentSuffixes = []string{
		"count", "limit", "used", "usage", "type", "length", "len", "size",
		"expiry", "expiresin", "expiresat", "expiration", "expires", "ttl",
		"name", "names", "arn", "timeout", "budget", "remaining", "reset",
		"url", "uri", "endpoint", "method", "scheme", "mode", "enabled",
		"required", "format", "version", "algorithm", "alg", "policy", "hint",
	}
)

// normalizeKey lower-cases a name and drops the separators people use
// between words, so every spelling of a name compares equal.
func normalizeKey(name string) string {
	if isNormalKey(name) {
		return name
	}
	var buf [64]byte
	return string(appendNormalKey(buf[:0], name))
}

// isNormalKey reports whether normalizeKey(name) is name itself, as for
// most JSON keys.
func isNormalKey(name string) bool {
	for i := 0; i < len(name); i++ {
		if c := name[i]; c >= 'A' && c <= 'Z' || c == '-' || c == '_' || c == '.' || c == ' ' {
			return false
		}
	}
	return true
}

func appendNormalKey(b []byte, name string) []byte {
	for i := 0; i < len(name); i++ {
		c := name[i]
		switch {
		case c >= 'a' && c <= 'z', c >= '0' && c <= '9':
			b = append(b, c)
		case c >= 'A' && c <= 'Z':
			b = append(b, c+'a'-'A')
		case c == '-' || c == '_' || c == '.' || c == ' ':
		default:
			b = append(b, c)
		}
	}
	return b
}

// stems finds the stemKeys in a normalized name.
var stems = newFoldSet(stemKeys...)

func containsAny(s string, words []string) bool {
	for _, w := range words {
		if strings.Contains(s, w) {
			return true
		}
	}
	return false
}
