package ui_test

import (
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/omcp/toolfailure/internal/apikey"
	"github.com/omcp/toolfailure/internal/pgtest"
	"github.com/omcp/toolfailure/internal/ui"
	"github.com/omcp/toolfailure/internal/ui/uitest"
	"github.com/omcp/toolfailure/store"
	"github.com/omcp/toolfailure/store/postgres"
)

// TestRevokedKeyEndsSessions: two replicas on one schema; a session signed in with a key works on
// both until the key is revoked, and from then on neither accepts it (the session check resolves
// the key in the store on every request), nor signs it in again. Another key's session goes on.
func TestRevokedKeyEndsSessions(t *testing.T) {
	t.Parallel()
	dbURL := pgtest.URL(t)
	secret := []byte(strings.Repeat("s", 32))
	var urls []string
	var stores []*postgres.Store
	for range 2 {
		s, err := postgres.Open(t.Context(), dbURL)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = s.Close() })
		if err := s.Migrate(t.Context()); err != nil {
			t.Fatal(err)
		}
		h, err := ui.New(ui.Config{Store: s, SessionSecret: secret})
		if err != nil {
			t.Fatal(err)
		}
		mux := http.NewServeMux()
		mux.Handle("/ui/", h)
		srv := httptest.NewServer(mux)
		t.Cleanup(srv.Close)
		urls = append(urls, srv.URL)
		stores = append(stores, s)
	}
	_, key := uitest.MkKey(t, stores[0], "acme", apikey.ScopeLookup)
	_, keep := uitest.MkKey(t, stores[0], "acme", apikey.ScopeLookup)
	first := (&uitest.Bundle{URL: urls[0]}).NewBrowser(t)
	first.SignIn(key)
	kept := (&uitest.Bundle{URL: urls[0]}).NewBrowser(t)
	kept.SignIn(keep)
	u0, _ := url.Parse(urls[0] + "/ui/")
	u1, _ := url.Parse(urls[1] + "/ui/")
	second := (&uitest.Bundle{URL: urls[1]}).NewBrowser(t)
	second.Client.Jar.SetCookies(u1, first.Client.Jar.Cookies(u0))
	for i, br := range []*uitest.Browser{first, second} {
		if res := br.Get("/ui/failures"); res.Status != http.StatusOK {
			t.Fatalf("replica %d before the revocation: %d", i, res.Status)
		}
	}
	if _, _, err := stores[1].RevokeAPIKey(t.Context(), key[len("tfk_"):len("tfk_")+8], time.Now(), "test"); err != nil {
		t.Fatal(err)
	}
	for i, br := range []*uitest.Browser{first, second} {
		res := br.Get("/ui/failures")
		if res.Status != http.StatusUnauthorized || !strings.Contains(res.Body, "revoked") {
			t.Fatalf("replica %d after the revocation: %d, want 401 saying the key was revoked", i, res.Status)
		}
	}
	again := (&uitest.Bundle{URL: urls[1]}).NewBrowser(t)
	if res := again.Post("/ui/signin", url.Values{"key": {key}, "next": {"/ui/"}}, nil); res.Status != http.StatusUnauthorized || !strings.Contains(res.Body, "revoked") {
		t.Fatalf("signing in with the revoked key: %d, want 401 saying it was revoked", res.Status)
	}
	if res := kept.Get("/ui/failures"); res.Status != http.StatusOK {
		t.Fatalf("another key's session after the revocation: %d", res.Status)
	}
}

// TestExpiredKeyEndsSessions: a session of a key that expires ends at the key's expiry, although
// the session itself has hours left.
func TestExpiredKeyEndsSessions(t *testing.T) {
	t.Parallel()
	b := uitest.Setup(t, uitest.Options{})
	k, err := apikey.New()
	if err != nil {
		t.Fatal(err)
	}
	if _, err := b.Store.CreateAPIKey(t.Context(), store.APIKey{ID: k.ID, TenantID: b.Acme.ID, Hash: k.Hash,
		Scopes: []string{apikey.ScopeLookup}, ExpiresAt: b.Clock.Now().Add(time.Hour)}); err != nil {
		t.Fatal(err)
	}
	br := b.NewBrowser(t)
	br.SignIn(k.Secret)
	if res := br.Get("/ui/failures"); res.Status != http.StatusOK {
		t.Fatalf("before expiry: %d", res.Status)
	}
	b.Clock.Advance(time.Hour)
	if res := br.Get("/ui/failures"); res.Status != http.StatusUnauthorized || !strings.Contains(res.Body, "expired") {
		t.Fatalf("after the key's expiry: %d, want 401 saying it expired", res.Status)
	}
}
