package ui_test

import (
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"

	"github.com/omcp/toolfailure/internal/apikey"
	"github.com/omcp/toolfailure/internal/pgtest"
	"github.com/omcp/toolfailure/internal/ui"
	"github.com/omcp/toolfailure/internal/ui/uitest"
	"github.com/omcp/toolfailure/store/postgres"
)

// TestSignOutEndsSession: signing out ends the session on the server. A copy of the cookie taken
// before (a shared browser profile, a proxy log) is refused afterwards, although it is sealed
// correctly and has hours left; the user's next sign-in, and their other sessions, still work.
func TestSignOutEndsSession(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name string
		opts uitest.Options
	}{{"SQLite", uitest.Options{}}, {"PostgreSQL", uitest.Options{Postgres: true}}} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			b := uitest.Setup(t, tc.opts)
			u, _ := url.Parse(b.URL + "/ui/")
			br, other := b.NewBrowser(t), b.NewBrowser(t)
			br.SignIn(b.LookupKey)
			other.SignIn(b.LookupKey)
			saved := br.Client.Jar.Cookies(u)
			if len(saved) != 1 {
				t.Fatalf("%d cookies after sign-in", len(saved))
			}
			if res := br.Get("/ui/failures"); res.Status != http.StatusOK {
				t.Fatalf("signed in: %d", res.Status)
			}
			if res := br.Post("/ui/signout", nil, nil); res.Status != http.StatusSeeOther || res.Header.Get("Location") != "/ui/signin" {
				t.Fatalf("sign out: %d %q", res.Status, res.Header.Get("Location"))
			}

			replay := b.NewBrowser(t)
			replay.Client.Jar.SetCookies(u, saved)
			res := replay.Get("/ui/failures")
			if res.Status != http.StatusUnauthorized || !strings.Contains(res.Body, "signed out") {
				t.Fatalf("the signed-out cookie replayed: %d, want 401 saying it was signed out", res.Status)
			}
			if c := res.Header.Get("Set-Cookie"); !strings.Contains(c, "Max-Age=0") {
				t.Errorf("the refused cookie is not cleared: Set-Cookie %q", c)
			}
			// Signing out a signed-out cookie again is harmless.
			replay.Client.Jar.SetCookies(u, saved)
			if res := replay.Post("/ui/signout", nil, nil); res.Status != http.StatusSeeOther {
				t.Errorf("second sign-out: %d", res.Status)
			}

			if res := other.Get("/ui/failures"); res.Status != http.StatusOK {
				t.Errorf("another session of the same key: %d, want it unaffected", res.Status)
			}
			br.SignIn(b.LookupKey)
			if res := br.Get("/ui/failures"); res.Status != http.StatusOK {
				t.Errorf("signed in again: %d", res.Status)
			}
		})
	}
}

// TestSignOutEndsSessionOnEveryReplica: two replicas share the session secret and the database;
// a sign-out on one is honoured by the other at once.
func TestSignOutEndsSessionOnEveryReplica(t *testing.T) {
	t.Parallel()
	dbURL := pgtest.URL(t)
	secret := []byte(strings.Repeat("s", 32))
	var urls []string
	var key string
	for i := range 2 {
		s, err := postgres.Open(t.Context(), dbURL)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = s.Close() })
		if err := s.Migrate(t.Context()); err != nil {
			t.Fatal(err)
		}
		if i == 0 {
			_, key = uitest.MkKey(t, s, "acme", apikey.ScopeLookup)
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
	}
	first := (&uitest.Bundle{URL: urls[0]}).NewBrowser(t)
	first.SignIn(key)
	u0, _ := url.Parse(urls[0] + "/ui/")
	u1, _ := url.Parse(urls[1] + "/ui/")
	second := (&uitest.Bundle{URL: urls[1]}).NewBrowser(t)
	second.Client.Jar.SetCookies(u1, first.Client.Jar.Cookies(u0))
	if res := second.Get("/ui/failures"); res.Status != http.StatusOK {
		t.Fatalf("the session on the other replica: %d, want it to work before the sign-out", res.Status)
	}
	if res := first.Post("/ui/signout", nil, nil); res.Status != http.StatusSeeOther {
		t.Fatalf("sign out: %d", res.Status)
	}
	if res := second.Get("/ui/failures"); res.Status != http.StatusUnauthorized {
		t.Fatalf("the other replica after the sign-out: %d, want 401", res.Status)
	}
}
