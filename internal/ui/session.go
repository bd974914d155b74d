package ui

import (
	"crypto/aes"
	"crypto/cipher"
	"crypto/hkdf"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/binary"
	"errors"
	"fmt"
	"net/http"
	"time"
)

// cookieName is the session cookie. It is scoped to /ui/, so the RPC paths
// never receive it: the API authenticates with bearer keys only, and a
// cookie that could reach it would make it forgeable by cross-site requests.
const cookieName = "toolfailure_ui"

// sessionVersion 2 added the session's own ID (for revocation at sign-out) and the key's ID;
// cookies of version 1 are refused, which signs their holders out once.
const sessionVersion = 2

// maxKeyIDLen bounds the key ID in a cookie (apikey IDs are 8 characters).
const maxKeyIDLen = 64

// sealer encrypts and authenticates session cookies with AES-256-GCM under
// a key derived from the operator's secret. See doc.go for why the cookie
// holds the API key's hash and nothing secret besides.
type sealer struct {
	aead cipher.AEAD
}

func newSealer(secret []byte) (*sealer, error) {
	key, err := hkdf.Key(sha256.New, secret, nil, "toolfailure ui session v1", 32)
	if err != nil {
		return nil, fmt.Errorf("ui: derive session key: %w", err)
	}
	block, err := aes.NewCipher(key)
	if err != nil {
		return nil, fmt.Errorf("ui: session cipher: %w", err)
	}
	aead, err := cipher.NewGCM(block)
	if err != nil {
		return nil, fmt.Errorf("ui: session cipher: %w", err)
	}
	return &sealer{aead: aead}, nil
}

// session is what the cookie carries.
type session struct {
	// id names this sign-in: signing out records it in the store, and every
	// replica refuses the cookie from then on (store.Store.RevokeSession).
	id       [16]byte
	keyHash  [sha256.Size]byte
	issuedAt time.Time
	// keyID is the public ID of the key that signed in. The key is resolved
	// by its hash on every request, and a session whose hash resolves to
	// another ID is refused, so that ending a key by its ID ends its sessions.
	keyID string
}

// newSessionID returns a random session ID.
func newSessionID() ([16]byte, error) {
	var id [16]byte
	if _, err := rand.Read(id[:]); err != nil {
		return id, fmt.Errorf("ui: session ID: %w", err)
	}
	return id, nil
}

var errBadSession = errors.New("session cookie is not valid")

// sessionFixed is the size of a sealed session before the key ID: the
// version, the issue time, the session ID and the key's hash.
const sessionFixed = 1 + 8 + 16 + sha256.Size

func (s *sealer) seal(sess session) (string, error) {
	if len(sess.keyID) > maxKeyIDLen {
		return "", fmt.Errorf("ui: key ID of %d bytes", len(sess.keyID))
	}
	plain := make([]byte, 0, sessionFixed+len(sess.keyID))
	plain = append(plain, sessionVersion)
	plain = binary.BigEndian.AppendUint64(plain, uint64(sess.issuedAt.Unix()))
	plain = append(plain, sess.id[:]...)
	plain = append(plain, sess.keyHash[:]...)
	plain = append(plain, sess.keyID...)
	nonce := make([]byte, s.aead.NonceSize(), s.aead.NonceSize()+len(plain)+s.aead.Overhead())
	if _, err := rand.Read(nonce); err != nil {
		return "", fmt.Errorf("ui: session nonce: %w", err)
	}
	// The cookie name is the additional data, so that a value sealed for
	// another purpose with the same key can never pass as a session.
	out := s.aead.Seal(nonce, nonce, plain, []byte(cookieName))
	return base64.RawURLEncoding.EncodeToString(out), nil
}

func (s *sealer) open(value string, now time.Time, ttl time.Duration) (session, error) {
	raw, err := base64.RawURLEncoding.DecodeString(value)
	if err != nil || len(raw) < s.aead.NonceSize()+s.aead.Overhead() {
		return session{}, errBadSession
	}
	nonce, box := raw[:s.aead.NonceSize()], raw[s.aead.NonceSize():]
	plain, err := s.aead.Open(nil, nonce, box, []byte(cookieName))
	if err != nil || len(plain) < sessionFixed || len(plain) > sessionFixed+maxKeyIDLen || plain[0] != sessionVersion {
		return session{}, errBadSession
	}
	var sess session
	sess.issuedAt = time.Unix(int64(binary.BigEndian.Uint64(plain[1:9])), 0)
	copy(sess.id[:], plain[9:25])
	copy(sess.keyHash[:], plain[25:sessionFixed])
	sess.keyID = string(plain[sessionFixed:])
	// The expiry is checked here, on the server, and not left to the
	// cookie's Max-Age, which the client controls.
	if now.Before(sess.issuedAt.Add(-time.Minute)) || !now.Before(sess.expires(ttl)) {
		return session{}, errBadSession
	}
	return sess, nil
}

// expires is when the session ends by itself.
func (sess session) expires(ttl time.Duration) time.Time { return sess.issuedAt.Add(ttl) }

// setSessionCookie and clearSessionCookie keep the cookie's attributes in
// one place: HttpOnly (no script can read it), SameSite=Strict (no other
// site can make the browser send it), Path=/ui/ (only the UI receives it),
// and Secure whenever the request came over TLS, directly or through a
// proxy that says so.
func setSessionCookie(w http.ResponseWriter, r *http.Request, value string, ttl time.Duration) {
	http.SetCookie(w, &http.Cookie{
		Name:     cookieName,
		Value:    value,
		Path:     basePath,
		MaxAge:   int(ttl / time.Second),
		HttpOnly: true,
		Secure:   secureRequest(r),
		SameSite: http.SameSiteStrictMode,
	})
}

func clearSessionCookie(w http.ResponseWriter, r *http.Request) {
	http.SetCookie(w, &http.Cookie{
		Name:     cookieName,
		Value:    "",
		Path:     basePath,
		MaxAge:   -1,
		HttpOnly: true,
		Secure:   secureRequest(r),
		SameSite: http.SameSiteStrictMode,
	})
}

func secureRequest(r *http.Request) bool {
	return r.TLS != nil || r.Header.Get("X-Forwarded-Proto") == "https"
}
