// Package apikey mints and recognises the service's bearer keys.
//
// A key is "tfk_" + an 8-character public ID + "_" + 43 characters of
// base64url-encoded randomness (256 bits). Only the SHA-256 of the whole key
// is stored: keys carry enough entropy that a slow password hash would add
// latency to every request without adding security, and a plain digest lets
// the store find a key with one indexed lookup. The public ID is what logs and
// listings show, so that a key can be named without revealing it.
package apikey

import (
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"errors"
	"fmt"
	"slices"
	"strings"
)

// Scopes a key can hold. Each guards one service, as docs/rpc-cookbook.md lists.
const (
	ScopeReport = "report" // ClassifierService
	ScopeLookup = "lookup" // FailureService
	ScopeRules  = "rules"  // RuleService
)

// AllScopes lists every scope in a stable order.
var AllScopes = []string{ScopeReport, ScopeLookup, ScopeRules}

const prefix = "tfk_"

// ErrMalformed is returned for a string that cannot be a key of this service.
var ErrMalformed = errors.New("malformed API key")

// Key is a freshly minted key. Secret is shown once and never stored.
type Key struct {
	ID     string
	Secret string
	Hash   []byte
}

// New mints a key.
func New() (Key, error) {
	var idBytes [6]byte
	var secret [32]byte
	if _, err := rand.Read(idBytes[:]); err != nil {
		return Key{}, fmt.Errorf("mint key id: %w", err)
	}
	if _, err := rand.Read(secret[:]); err != nil {
		return Key{}, fmt.Errorf("mint key secret: %w", err)
	}
	id := base64.RawURLEncoding.EncodeToString(idBytes[:])
	// The ID must not contain the separator, or parsing would be ambiguous.
	id = strings.NewReplacer("_", "a", "-", "b").Replace(id)
	full := prefix + id + "_" + base64.RawURLEncoding.EncodeToString(secret[:])
	return Key{ID: id, Secret: full, Hash: Hash(full)}, nil
}

// Hash is the digest under which a key is stored and looked up.
func Hash(key string) []byte {
	sum := sha256.Sum256([]byte(key))
	return sum[:]
}

// Check tells whether s has the shape of a key, so that obviously wrong
// credentials are refused without touching the store.
func Check(s string) error {
	if len(s) != len(prefix)+8+1+43 || !strings.HasPrefix(s, prefix) || s[len(prefix)+8] != '_' {
		return ErrMalformed
	}
	return nil
}

// ParseScopes splits a comma-separated scope list and rejects unknown
// scopes, so that a typo on the command line does not mint a useless key.
func ParseScopes(list string) ([]string, error) {
	var scopes []string
	for s := range strings.SplitSeq(list, ",") {
		s = strings.TrimSpace(s)
		if s == "" {
			continue
		}
		if !slices.Contains(AllScopes, s) {
			return nil, fmt.Errorf("unknown scope %q (known: %s)", s, strings.Join(AllScopes, ", "))
		}
		if !slices.Contains(scopes, s) {
			scopes = append(scopes, s)
		}
	}
	if len(scopes) == 0 {
		return nil, errors.New("no scopes given")
	}
	return scopes, nil
}
