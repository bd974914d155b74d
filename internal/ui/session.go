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

const sessionVersion = 1

// sealer encrypts and authenticates session cookies with AES-256-GCM under
// a key derived from the operator's secret. See doc.go for why the cookie
// holds the API key's hash and nothing else.
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
	keyHash  [sha256.Size]byte
	issuedAt time.Time
}

var errBadSession = errors.New("session cookie is not valid")

func (s *sealer) seal(sess session) (string, error) {
	plain := make([]byte, 0, 1+8+sha256.Size)
	plain = append(plain, sessionVersion)
	plain = binary.BigEndian.AppendUint64(plain, uint64(sess.issuedAt.Unix()))
	plain = append(plain, sess.keyHash[:]...)
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
	if err != nil || len(plain) != 1+8+sha256.Size || plain[0] != sessionVersion {
		return session{}, errBadSession
	}
	var sess session
	sess.issuedAt = time.Unix(int64(binary.BigEndian.Uint64(plain[1:9])), 0)
	copy(sess.keyHash[:], plain[9:])
	// The expiry is checked here, on the server, and not left to the
	// cookie's Max-Age, which the client controls.
	if now.Before(sess.issuedAt.Add(-time.Minute)) || !now.Before(sess.issuedAt.Add(ttl)) {
		return session{}, errBadSession
	}
	return sess, nil
}

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
