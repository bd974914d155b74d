package ui

import (
	"bytes"
	"context"
	"crypto/rand"
	"crypto/sha256"
	"embed"
	"errors"
	"fmt"
	"html/template"
	"io/fs"
	"log/slog"
	"net/http"
	"strings"
	"time"

	"github.com/omcp/toolfailure/internal/apikey"
	"github.com/omcp/toolfailure/internal/auth"
	"github.com/omcp/toolfailure/internal/telemetry"
	"github.com/omcp/toolfailure/store"
)

// basePath is where the UI is mounted. Links, the cookie path and the
// routes all use it; the handler expects to be mounted exactly there
// (mux.Handle("/ui/", h)).
const basePath = "/ui/"

// Store is what the UI needs of a storage backend: store.Store satisfies it,
// and so does anything that wraps one. The UI resolves sessions by the API
// key's hash through package auth, the same authenticator as the RPC API's.
type Store interface {
	APIKeyByHash(ctx context.Context, hash []byte) (store.APIKey, store.Tenant, error)
	GetFailure(ctx context.Context, tenantID int64, id [16]byte) (store.Failure, error)
	ListFailures(ctx context.Context, tenantID int64, q store.ListQuery) ([]store.Failure, error)
	ListGroups(ctx context.Context, tenantID int64, q store.GroupQuery) ([]store.Group, error)
	GetGroup(ctx context.Context, tenantID int64, fingerprint string, since, until time.Time) (store.Group, error)
	GroupHours(ctx context.Context, tenantID int64, fingerprints []string, since, until time.Time) (map[string][]int64, error)
	// Sign-out ends a session on every replica (see session).
	RevokeSession(ctx context.Context, tenantID int64, id [16]byte, expires time.Time) error
	SessionRevoked(ctx context.Context, tenantID int64, id [16]byte) (bool, error)
}

// Rule is a tenant rule as the rule page shows it.
type Rule struct {
	Name     string
	Mode     string // enforce or shadow
	Priority int32
	// Definition is the rule as its author wrote it, for example the rule's
	// entry in the YAML that `toolfailure rules export` writes.
	Definition string
}

// RuleSource looks up one of a tenant's rules by name; ErrNotFound (wrapped)
// when there is none.
type RuleSource func(ctx context.Context, tenantID int64, name string) (Rule, error)

// Config wires the UI.
type Config struct {
	// Store is required.
	Store Store
	// SessionSecret seals session cookies. Every replica behind one address
	// must share it (at least 32 random bytes); nil makes a random secret
	// per process, which is right for a single instance and means that a
	// restart signs everyone out.
	SessionSecret []byte
	// SessionTTL is how long a sign-in lasts; zero means 8 hours, a working
	// day.
	SessionTTL time.Duration
	// TraceURL turns trace IDs into links to the operator's trace viewer;
	// nil shows trace IDs without a link.
	TraceURL *telemetry.TraceURLTemplate
	// Rules shows tenant rules on the rule page to keys that hold the
	// rules scope; nil shows their name only.
	Rules RuleSource
	// Suggest drafts a rule on a problem's page for keys that hold the rules
	// scope; nil offers the command line instead.
	Suggest Suggester
	// Now is the clock; nil means time.Now.
	Now    func() time.Time
	Logger *slog.Logger
	// MaxListBytes caps what one read of records for a page may hold, as
	// store.RecordSize counts it (default DefaultMaxListBytes): a list ends
	// early with a link to the next page, and a count or a summary reads on
	// in further pages or says how many records it used. The pages show a
	// line per record, but records of half a megabyte would otherwise be
	// held in memory by the thousand to draw them.
	MaxListBytes int
}

// DefaultMaxListBytes is Config.MaxListBytes when unset: the API's ListFailures budget.
const DefaultMaxListBytes = 2 << 20

//go:embed templates/*.html
var templateFS embed.FS

//go:embed static
var staticFS embed.FS

// contentSecurityPolicy allows nothing but the UI's own stylesheet and
// images, and forms that post back to the UI. There is no script on any
// page, so script-src stays 'none': even if an error message got past the
// escaping, it could not run.
const contentSecurityPolicy = "default-src 'none'; style-src 'self'; img-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'"

type handler struct {
	cfg     Config
	auth    *auth.Authenticator
	seal    *sealer
	pages   map[string]*template.Template
	mux     *http.ServeMux
	baseCSS string // cache-busting name of the stylesheet
}

// New returns the UI's handler, to be mounted at /ui/.
func New(cfg Config) (http.Handler, error) {
	if cfg.Store == nil {
		return nil, errors.New("ui: Config.Store is required")
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.New(slog.DiscardHandler)
	}
	if cfg.SessionTTL <= 0 {
		cfg.SessionTTL = 8 * time.Hour
	}
	if cfg.MaxListBytes <= 0 {
		cfg.MaxListBytes = DefaultMaxListBytes
	}
	secret := cfg.SessionSecret
	if len(secret) == 0 {
		secret = make([]byte, 32)
		if _, err := rand.Read(secret); err != nil {
			return nil, fmt.Errorf("ui: session secret: %w", err)
		}
	} else if len(secret) < 32 {
		return nil, fmt.Errorf("ui: session secret is %d bytes; use at least 32 random bytes", len(secret))
	}
	seal, err := newSealer(secret)
	if err != nil {
		return nil, err
	}
	// No cache: a deleted key or a removed scope ends a session at once.
	h := &handler{cfg: cfg, auth: auth.New(cfg.Store, auth.Options{Now: cfg.Now}), seal: seal, mux: http.NewServeMux()}
	if err := h.parseTemplates(); err != nil {
		return nil, err
	}
	h.routes()
	csrf := http.NewCrossOriginProtection()
	csrf.SetDenyHandler(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h.renderError(w, r, http.StatusForbidden, "Request refused", "This form was sent from another site. Open the page from the address bar and try again.")
	}))
	return securityHeaders(csrf.Handler(h.mux)), nil
}

func (h *handler) routes() {
	static, _ := fs.Sub(staticFS, "static")
	fileServer := http.StripPrefix(basePath+"static/", http.FileServerFS(static))
	h.mux.Handle("GET "+basePath+"static/", http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		// Static files hold nothing private and change only with the
		// binary.
		w.Header().Set("Cache-Control", "public, max-age=3600")
		fileServer.ServeHTTP(w, r)
	}))
	h.mux.HandleFunc("GET "+basePath+"signin", h.signInPage)
	h.mux.HandleFunc("POST "+basePath+"signin", h.signIn)
	h.mux.HandleFunc("POST "+basePath+"signout", h.signOut)
	h.mux.HandleFunc("GET "+basePath+"{$}", h.authed(h.overview))
	h.mux.HandleFunc("GET "+basePath+"lookup", h.authed(h.lookup))
	h.mux.HandleFunc("GET "+basePath+"failures", h.authed(h.list))
	h.mux.HandleFunc("GET "+basePath+"failures/{id}", h.authed(h.failure))
	h.mux.HandleFunc("GET "+basePath+"rules/{id...}", h.authed(h.rule))
	h.mux.HandleFunc("GET "+basePath+"problems", h.authed(h.problems))
	h.mux.HandleFunc("GET "+basePath+"problems/{fp}", h.authed(h.problem))
	h.mux.HandleFunc(basePath, func(w http.ResponseWriter, r *http.Request) {
		h.renderError(w, r, http.StatusNotFound, "Page not found", "There is no page at this address.")
	})
}

// securityHeaders sets the headers every UI response carries.
func securityHeaders(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hd := w.Header()
		hd.Set("Content-Security-Policy", contentSecurityPolicy)
		hd.Set("X-Content-Type-Options", "nosniff")
		hd.Set("X-Frame-Options", "DENY")
		// Pages carry correlation IDs and tenant data in their URLs; a
		// click on a trace link must not hand them to the trace viewer.
		hd.Set("Referrer-Policy", "no-referrer")
		hd.Set("Cross-Origin-Opener-Policy", "same-origin")
		hd.Set("Cross-Origin-Resource-Policy", "same-origin")
		hd.Set("Permissions-Policy", "camera=(), microphone=(), geolocation=()")
		hd.Set("Cache-Control", "no-store")
		next.ServeHTTP(w, r)
	})
}

// authed resolves the session on every request, so that a deleted key or a
// removed lookup scope takes effect at once, and tenant isolation rests on
// the store's answer, not on anything the browser holds.
func (h *handler) authed(page func(http.ResponseWriter, *http.Request, auth.Principal)) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		c, err := r.Cookie(cookieName)
		if err != nil {
			h.toSignIn(w, r, "")
			return
		}
		sess, err := h.seal.open(c.Value, h.cfg.Now(), h.cfg.SessionTTL)
		if err != nil {
			clearSessionCookie(w, r)
			h.toSignIn(w, r, "Your session has expired. Sign in again.")
			return
		}
		p, status, msg := h.resolveSession(r.Context(), sess)
		if status != 0 {
			clearSessionCookie(w, r)
			if status == http.StatusServiceUnavailable {
				h.renderError(w, r, status, "Service unavailable", msg)
				return
			}
			h.toSignIn(w, r, msg)
			return
		}
		page(w, r, p)
	}
}

// resolveSession is resolve for a session that the cookie carries: the key
// must still be the one that signed in, and the session must not have been
// signed out, on this replica or any other.
func (h *handler) resolveSession(ctx context.Context, sess session) (auth.Principal, int, string) {
	p, status, msg := h.resolve(ctx, sess.keyHash)
	if status != 0 {
		return p, status, msg
	}
	if p.KeyID != sess.keyID {
		return auth.Principal{}, http.StatusUnauthorized, "Your session has expired. Sign in again."
	}
	revoked, err := h.cfg.Store.SessionRevoked(ctx, p.TenantID, sess.id)
	if err != nil {
		h.cfg.Logger.ErrorContext(ctx, "ui: session lookup failed", "error", err)
		return auth.Principal{}, http.StatusServiceUnavailable, "The session cannot be checked right now. Try again shortly."
	}
	if revoked {
		return auth.Principal{}, http.StatusUnauthorized, "This session was signed out. Sign in again."
	}
	return p, 0, ""
}

// msgUnknownKey is resolve's answer for a key that the store does not know.
const msgUnknownKey = "Unknown API key: it may have been deleted. Sign in with a current key."

// resolve maps a key hash to a principal with the lookup scope, through the
// same authenticator as the RPC API (without its cache: see doc.go). A
// non-zero status says why not.
func (h *handler) resolve(ctx context.Context, hash [sha256.Size]byte) (auth.Principal, int, string) {
	p, err := h.auth.ByHash(ctx, hash)
	// A revoked or expired key ends its sessions: every request asks the
	// store (no cache), so on every replica at once.
	if errors.Is(err, auth.ErrRevoked) {
		return auth.Principal{}, http.StatusUnauthorized, "This API key was revoked. Sign in with a current key."
	}
	if errors.Is(err, auth.ErrExpired) {
		return auth.Principal{}, http.StatusUnauthorized, "This API key has expired. Sign in with a current key."
	}
	if errors.Is(err, auth.ErrUnknown) {
		return auth.Principal{}, http.StatusUnauthorized, msgUnknownKey
	}
	if err != nil {
		h.cfg.Logger.ErrorContext(ctx, "ui: api key lookup failed", "error", err)
		return auth.Principal{}, http.StatusServiceUnavailable, "The key cannot be checked right now. Try again shortly."
	}
	if !p.Has(apikey.ScopeLookup) {
		return auth.Principal{}, http.StatusForbidden, "This API key lacks the lookup scope, which the support pages need. Create one with: toolfailure keys create --tenant NAME --scopes lookup"
	}
	return p, 0, ""
}

func (h *handler) toSignIn(w http.ResponseWriter, r *http.Request, msg string) {
	if msg != "" {
		h.renderSignIn(w, r, http.StatusUnauthorized, r.URL.RequestURI(), msg)
		return
	}
	target := basePath + "signin"
	if next := r.URL.RequestURI(); next != basePath {
		target += "?next=" + queryEscape(next)
	}
	http.Redirect(w, r, target, http.StatusSeeOther)
}

func (h *handler) signInPage(w http.ResponseWriter, r *http.Request) {
	h.renderSignIn(w, r, http.StatusOK, r.URL.Query().Get("next"), "")
}

func (h *handler) renderSignIn(w http.ResponseWriter, r *http.Request, status int, next, msg string) {
	h.render(w, r, status, "signin", pageData{Title: "Sign in", Data: signInData{Next: safeNext(next), Error: msg}})
}

func (h *handler) signIn(w http.ResponseWriter, r *http.Request) {
	r.Body = http.MaxBytesReader(w, r.Body, 4<<10)
	if err := r.ParseForm(); err != nil {
		h.renderSignIn(w, r, http.StatusBadRequest, "", "The form could not be read. Try again.")
		return
	}
	next := safeNext(r.PostForm.Get("next"))
	key := strings.TrimSpace(r.PostForm.Get("key"))
	if apikey.Check(key) != nil {
		// The key is never echoed back, not even a wrong one: it may be a
		// real secret pasted into the wrong box.
		h.renderSignIn(w, r, http.StatusUnauthorized, next, "That is not a toolfailure API key. Keys start with tfk_ and are 56 characters long.")
		return
	}
	sum := sha256.Sum256([]byte(key))
	p, status, msg := h.resolve(r.Context(), sum)
	if status != 0 {
		if msg == msgUnknownKey {
			msg = "Unknown API key. Check that you copied all of it."
		}
		h.renderSignIn(w, r, status, next, msg)
		return
	}
	id, err := newSessionID()
	var value string
	if err == nil {
		value, err = h.seal.seal(session{id: id, keyHash: sum, issuedAt: h.cfg.Now(), keyID: p.KeyID})
	}
	if err != nil {
		h.cfg.Logger.ErrorContext(r.Context(), "ui: seal session", "error", err)
		h.renderError(w, r, http.StatusInternalServerError, "Sign-in failed", "The session could not be created.")
		return
	}
	setSessionCookie(w, r, value, h.cfg.SessionTTL)
	http.Redirect(w, r, next, http.StatusSeeOther)
}

// signOut ends the session on the server, not only in this browser: a copy
// of the cookie (a shared profile, a proxy log) is refused from now on, on
// every replica. When the store cannot record that, the cookie is kept and
// the page says so, so that the user can try again rather than believe the
// session over.
func (h *handler) signOut(w http.ResponseWriter, r *http.Request) {
	if c, err := r.Cookie(cookieName); err == nil {
		// An invalid or expired cookie ends nothing that could still be used.
		if sess, err := h.seal.open(c.Value, h.cfg.Now(), h.cfg.SessionTTL); err == nil {
			p, err := h.auth.ByHash(r.Context(), sess.keyHash)
			switch {
			case errors.Is(err, auth.ErrUnknown):
				// The key is gone, and the session with it.
			case err == nil && p.KeyID != sess.keyID:
				// Refused anyway (see resolveSession).
			case err == nil:
				err = h.cfg.Store.RevokeSession(r.Context(), p.TenantID, sess.id, sess.expires(h.cfg.SessionTTL))
			}
			if err != nil && !errors.Is(err, auth.ErrUnknown) {
				h.cfg.Logger.ErrorContext(r.Context(), "ui: sign-out could not be recorded", "error", err)
				h.renderError(w, r, http.StatusServiceUnavailable, "Sign-out failed",
					"The service could not record the sign-out, so the session still works. Try again shortly.")
				return
			}
		}
	}
	clearSessionCookie(w, r)
	http.Redirect(w, r, basePath+"signin", http.StatusSeeOther)
}

// safeNext keeps post-sign-in redirects inside the UI: anything else (an
// absolute URL, //host, a path outside /ui/) becomes the overview.
func safeNext(next string) string {
	if !strings.HasPrefix(next, basePath) || strings.HasPrefix(next, "//") || strings.ContainsAny(next, "\\\r\n") {
		return basePath
	}
	return next
}

// pageData is what every template gets.
type pageData struct {
	Title  string
	Tenant string
	KeyID  string
	Nav    string // the active section: overview, failures
	Data   any
	// LookupValue and LookupError refill the lookup box in the header.
	LookupValue string
	LookupError string
}

type signInData struct {
	Next  string
	Error string
}

func (h *handler) parseTemplates() error {
	funcs := template.FuncMap{
		"base":      func() string { return basePath },
		"css":       func() string { return basePath + "static/app.css" },
		"classname": className,
		"utc":       func(t time.Time) string { return t.UTC().Format("2006-01-02 15:04:05 UTC") },
		"rfc3339":   func(t time.Time) string { return t.UTC().Format(time.RFC3339) },
	}
	layout, err := template.New("layout.html").Funcs(funcs).ParseFS(templateFS, "templates/layout.html")
	if err != nil {
		return fmt.Errorf("ui: parse layout: %w", err)
	}
	h.pages = map[string]*template.Template{}
	for _, name := range []string{"signin", "overview", "failure", "list", "rule", "error", "problems", "problem"} {
		t, err := template.Must(layout.Clone()).ParseFS(templateFS, "templates/"+name+".html")
		if err != nil {
			return fmt.Errorf("ui: parse %s: %w", name, err)
		}
		h.pages[name] = t
	}
	return nil
}

// render executes a page into a buffer first, so that a template error
// becomes a clean 500 rather than half a page.
func (h *handler) render(w http.ResponseWriter, r *http.Request, status int, page string, data pageData) {
	var buf bytes.Buffer
	if err := h.pages[page].ExecuteTemplate(&buf, "layout.html", data); err != nil {
		h.cfg.Logger.ErrorContext(r.Context(), "ui: render", "page", page, "error", err)
		http.Error(w, "internal error", http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.WriteHeader(status)
	_, _ = w.Write(buf.Bytes())
}

type errorData struct {
	Heading, Message string
}

func (h *handler) renderError(w http.ResponseWriter, r *http.Request, status int, heading, msg string) {
	h.render(w, r, status, "error", pageData{Title: heading, Data: errorData{Heading: heading, Message: msg}})
}
