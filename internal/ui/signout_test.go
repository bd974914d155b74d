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
	"github.com/omcp/toolfailure/store/postgres"
)

// TestSignOutEndsSession: signing out ends the session on the server. A copy of the cookie taken
// before (a shared browser profile, a proxy log) is refused afterwards, although it is sealed
// correctly and has hours left; the user's next sign-in, and their other sessions, still work.
func TestSignOutEndsSession(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name string
		opts setupOptions
	}{{"SQLite", setupOptions{}}, {"PostgreSQL", setupOptions{postgres: true}}} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			b := setup(t, tc.opts)
			u, _ := url.Parse(b.url + "/ui/")
			br, other := b.newBrowser(t), b.newBrowser(t)
			br.signIn(b.lookupKey)
			other.signIn(b.lookupKey)
			saved := br.c.Jar.Cookies(u)
			if len(saved) != 1 {
				t.Fatalf("%d cookies after sign-in", len(saved))
			}
			if res := br.get("/ui/failures"); res.status != http.StatusOK {
				t.Fatalf("signed in: %d", res.status)
			}
			if res := br.post("/ui/signout", nil, nil); res.status != http.StatusSeeOther || res.header.Get("Location") != "/ui/signin" {
				t.Fatalf("sign out: %d %q", res.status, res.header.Get("Location"))
			}

			replay := b.newBrowser(t)
			replay.c.Jar.SetCookies(u, saved)
			res := replay.get("/ui/failures")
			if res.status != http.StatusUnauthorized || !strings.Contains(res.body, "signed out") {
				t.Fatalf("the signed-out cookie replayed: %d, want 401 saying it was signed out", res.status)
			}
			if c := res.header.Get("Set-Cookie"); !strings.Contains(c, "Max-Age=0") {
				t.Errorf("the refused cookie is not cleared: Set-Cookie %q", c)
			}
			// Signing out a signed-out cookie again is harmless.
			replay.c.Jar.SetCookies(u, saved)
			if res := replay.post("/ui/signout", nil, nil); res.status != http.StatusSeeOther {
				t.Errorf("second sign-out: %d", res.status)
			}

			if res := other.get("/ui/failures"); res.status != http.StatusOK {
				t.Errorf("another session of the same key: %d, want it unaffected", res.status)
			}
			br.signIn(b.lookupKey)
			if res := br.get("/ui/failures"); res.status != http.StatusOK {
				t.Errorf("signed in again: %d", res.status)
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
			_, key = mkKey(t, s, "acme", apikey.ScopeLookup)
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
	first := (&bundle{url: urls[0]}).newBrowser(t)
	first.signIn(key)
	u0, _ := url.Parse(urls[0] + "/ui/")
	u1, _ := url.Parse(urls[1] + "/ui/")
	second := (&bundle{url: urls[1]}).newBrowser(t)
	second.c.Jar.SetCookies(u1, first.c.Jar.Cookies(u0))
	if res := second.get("/ui/failures"); res.status != http.StatusOK {
		t.Fatalf("the session on the other replica: %d, want it to work before the sign-out", res.status)
	}
	if res := first.post("/ui/signout", nil, nil); res.status != http.StatusSeeOther {
		t.Fatalf("sign out: %d", res.status)
	}
	if res := second.get("/ui/failures"); res.status != http.StatusUnauthorized {
		t.Fatalf("the other replica after the sign-out: %d, want 401", res.status)
	}
}
