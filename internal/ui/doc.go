// Package ui is the support engineers' web interface, served by the service
// at /ui/. A user pastes a correlation ID into a ticket; the engineer pastes
// it here and gets, on one page, the class and code, the agent guidance, the
// redacted raw error, the rule that decided, the trace link, the tool's
// annotations and the other failures of the same tool and code around that
// time. A list page filters by tool, class, code, trace and time, and an
// overview charts failures over time by class.
//
// # Mounting
//
//	h, err := ui.New(ui.Config{Store: s, SessionSecret: secret, TraceURL: tmpl})
//	mux.Handle("/ui/", h)
//
// Config.Store is a small interface that store.Store satisfies: get a
// failure, list failures, and resolve an API key's hash to its key and
// tenant. The UI asks for nothing more, so it cannot do anything the store
// does not let a tenant do.
//
// # Same rules as the API
//
// Sign-in takes an API key with the lookup scope, the scope that guards
// FailureService, and checks it with the RPC API's own authenticator
// (package auth): the key's shape, then its SHA-256 in the store, then the
// scope. Every page
// repeats the store lookup, so a deleted key or a removed scope closes the
// UI at once (the API's authenticator caches for ten seconds; the UI's extra
// lookup per page is cheap at a person's pace). Every query carries the
// tenant that the store returned for the key, never anything from the
// browser, and another tenant's correlation ID gets the same "not found" as
// an unknown one. Tenant rules are shown in full only to keys that also hold
// the rules scope, as RuleService requires.
//
// # The session cookie
//
// After sign-in the browser holds one cookie: HttpOnly (no script can read
// it), SameSite=Strict (no other site can make the browser send it), scoped
// to Path=/ui/ (the RPC endpoints never see it, so bearer-key auth stays the
// only way in there), Secure when the request came over TLS, and
// expiring after eight hours, which the server enforces from the sealed
// issue time rather than trusting Max-Age.
//
// Its value is the API key's SHA-256 and public ID, the issue time and a
// random session ID, sealed with AES-256-GCM under a key derived (HKDF) from
// Config.SessionSecret: it needs no session state on the server, works on
// every replica that shares the secret, and is useless outside the UI (the
// hash cannot call the API, and not even the hash reaches the browser in the
// clear). Without a configured secret the UI makes a random one per process:
// right for one instance, and a restart signs everyone out.
//
// Each page resolves the hash in the store, so a deleted, revoked or expired
// key ends its sessions at their next page, and a session whose hash
// resolves to a key with another public ID is refused. Sign-out records the
// session's ID in the store (store.Store.RevokeSession) until the session
// would have expired anyway, so that a copy of the cookie is refused by
// every replica from then on; when the store cannot record it, the page says
// so and keeps the cookie, so that the user tries again.
//
// State-changing requests (sign-in, sign-out) are POST forms protected by
// net/http's CrossOriginProtection, which refuses cross-site requests by
// Sec-Fetch-Site and Origin; the redirect after sign-in only ever goes to a
// path under /ui/.
//
// # Pages that cannot run what they show
//
// Everything is rendered on the server with html/template, which escapes
// every value for its context, and error text is shown in <pre> blocks as
// text. There is no JavaScript at all, and no external asset: the
// stylesheet and icon are embedded in the binary, the chart is SVG drawn on
// the server. So the Content-Security-Policy can be default-src 'none' with
// only the UI's own stylesheet, images and form targets allowed: should
// markup ever slip through escaping, it could neither run nor load anything.
// Pages also send nosniff, frame-ancestors 'none' and X-Frame-Options DENY,
// no-store caching (they hold tenant data), and Referrer-Policy no-referrer,
// so that following a trace link does not hand the failure's URL to the trace
// viewer. Only redacted text is ever stored, so no secret that redaction
// removed can reach a page.
//
// # Pasting an ID
//
// The lookup box and the failure URL accept what people paste: surrounding
// whitespace, lower case, spaces or dashes inside, a missing tf_ prefix
// (correlation.ParseLoose), and redirect to the canonical form. A
// well-formed ID whose check character does not match is reported as a typo,
// with the ID shown back for comparison, not as "not found".
//
// # Accessibility and small screens
//
// Pages use landmarks, one h1, labelled fields with errors tied to them by
// aria-describedby, aria-current for navigation, a skip link, text and not
// only colour for the class, and a chart with a title, a description and its
// numbers as a table. The layout is mobile first: at phone width tables turn
// into labelled cards and nothing scrolls sideways. The browser test checks
// these properties in Chromium at desktop and phone widths.
//
// # The overview's limits
//
// The store has no aggregate query yet, so the overview counts the records
// that ListFailures returns for the range, reading at most 10,000 and saying
// so when it stops early. Trends over long periods and many tenants belong in
// the toolfailure.classifications metric (package telemetry).
package ui
