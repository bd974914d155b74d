package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/user"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"

	"github.com/omcp/toolfailure/internal/apikey"
	"github.com/omcp/toolfailure/store"
)

// The keys commands work on the database directly, like retention: issuing and ending keys is the
// operator's job, not something a tenant's own key may do.

func newKeysCmd(d deps) *cobra.Command {
	return groupCmd("keys", "Manage API keys (on the database directly)",
		`  toolfailure keys create --tenant acme --scopes report,lookup,rules --expires-in 90d
  toolfailure keys list --tenant acme
  toolfailure keys revoke KEY_ID`,
		newKeysCreateCmd(d), newKeysListCmd(d), newKeysRevokeCmd(d))
}

// openMigrated opens the store named by dbURL, migrated, for a keys subcommand.
func openMigrated(cmd *cobra.Command, d deps, dbURL string) (store.Store, error) {
	b, _, _, err := d.openBackend(cmd.Context(), dbURL)
	if err != nil {
		return nil, openFailed(cmd, err)
	}
	if err := b.Migrate(cmd.Context()); err != nil {
		_ = b.Close()
		return nil, failedf("migrate: %w", err)
	}
	return b, nil
}

func newKeysCreateCmd(d deps) *cobra.Command {
	var (
		tenant, scopeList, expiresIn string
		dbURL                        *envString
	)
	cmd := &cobra.Command{
		Use:   "create --tenant NAME --scopes report,lookup,rules [flags]",
		Short: "Mint an API key for a tenant",
		Long: `Mint an API key for a tenant, creating the tenant if needed. The key is printed alone on the
last line of stdout, once; only its SHA-256 is stored. With --expires-in the key stops working
by itself after that long. An audit line (never the key) goes to stderr, and who created the key
from where is kept in its record (keys list).

It works on the database directly. On the embedded store it needs the file to itself: stop a
serve that holds it first.`,
		Example: `  toolfailure keys create --tenant acme --scopes report
  toolfailure keys create --tenant acme --scopes lookup --expires-in 720h
  KEY=$(toolfailure keys create --tenant acme --scopes report,lookup,rules --database-url postgres://USER:PASS@HOST:5432/DB | tail -n 1)`,
		Args: noArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			name := strings.TrimSpace(tenant)
			if name == "" {
				return usageErrorf("--tenant is required")
			}
			scopes, err := apikey.ParseScopes(scopeList)
			if err != nil {
				return usageErrorf("--scopes: %w", err)
			}
			var expires time.Time
			if expiresIn != "" {
				d, err := parseExpiresIn(expiresIn)
				if err != nil {
					return usageErrorf("--expires-in %q: %w", expiresIn, err)
				}
				expires = time.Now().Add(d)
			}
			ctx := cmd.Context()
			b, err := openMigrated(cmd, d, dbURL.Get())
			if err != nil {
				return err
			}
			defer b.Close()
			k, secret, err := createKey(ctx, b, name, scopes, expires, auditActor("keys create"))
			if err != nil {
				return failed(err)
			}
			stderr := cmd.ErrOrStderr()
			auditKey(auditLogger(stderr), "api key created", k, name)
			when := ""
			if !k.ExpiresAt.IsZero() {
				when = "; it expires at " + k.ExpiresAt.Format(time.RFC3339)
			}
			fmt.Fprintf(stderr, "created key %s for tenant %q with scopes %s%s; it is shown only once\n", k.ID, name, strings.Join(scopes, ","), when)
			fmt.Fprintln(cmd.OutOrStdout(), secret)
			return nil
		},
	}
	fs := cmd.Flags()
	fs.StringVar(&tenant, "tenant", "", "tenant name (created if needed)")
	fs.StringVar(&scopeList, "scopes", "", "comma-separated scopes: report, lookup, rules")
	fs.StringVar(&expiresIn, "expires-in", "", "the key stops working after this long: a duration such as 720h, or days such as 90d (default never)")
	dbURL = envStringVar(fs, "database-url", "DATABASE_URL", "", "database: postgres://…, sqlite:PATH or empty for the embedded store")
	completeWords(cmd, "scopes", apikey.AllScopes...)
	return cmd
}

// parseExpiresIn reads a positive Go duration, or a whole number of days ("90d"), which Go's
// durations lack and key lifetimes are usually given in.
func parseExpiresIn(s string) (time.Duration, error) {
	s = strings.TrimSpace(s)
	var d time.Duration
	if days, ok := strings.CutSuffix(s, "d"); ok {
		n, err := strconv.Atoi(days)
		if err != nil || n > 100*366 {
			return 0, errors.New("want a duration such as 720h or a number of days such as 90d")
		}
		d = time.Duration(n) * 24 * time.Hour
	} else {
		var err error
		if d, err = time.ParseDuration(s); err != nil {
			return 0, errors.New("want a duration such as 720h or a number of days such as 90d")
		}
	}
	if d <= 0 {
		return 0, errors.New("must be positive")
	}
	return d, nil
}

// keyListing is one key of keys list --output json: never the key, nor its hash.
type keyListing struct {
	ID         string   `json:"id"`
	Tenant     string   `json:"tenant"`
	Scopes     []string `json:"scopes"`
	Status     string   `json:"status"` // active, expired or revoked
	CreatedAt  string   `json:"createdAt"`
	CreatedBy  string   `json:"createdBy,omitempty"`
	LastUsedAt string   `json:"lastUsedAt,omitempty"`
	ExpiresAt  string   `json:"expiresAt,omitempty"`
	RevokedAt  string   `json:"revokedAt,omitempty"`
	RevokedBy  string   `json:"revokedBy,omitempty"`
}

func newKeysListCmd(d deps) *cobra.Command {
	var (
		tenant string
		out    *outputFlags
		dbURL  *envString
	)
	cmd := &cobra.Command{
		Use:   "list [--tenant NAME] [flags]",
		Short: "List API keys: ID, tenant, scopes, created, last used, expiry, revoked",
		Long: `List the API keys of every tenant, or of one with --tenant: ID, tenant, scopes, when and by
whom created, when last used (recorded at most once a minute per key, so up to a minute old),
expiry and revocation. Never a key or its hash: a key is named by its ID, as in the service's
logs and in keys revoke.`,
		Example: `  toolfailure keys list
  toolfailure keys list --tenant acme --output json --database-url postgres://USER:PASS@HOST:5432/DB`,
		Args: noArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			asJSON, err := out.JSON(cmd)
			if err != nil {
				return err
			}
			name := strings.TrimSpace(tenant)
			if cmd.Flags().Changed("tenant") && name == "" {
				return usageErrorf("--tenant: name a tenant")
			}
			b, err := openMigrated(cmd, d, dbURL.Get())
			if err != nil {
				return err
			}
			defer b.Close()
			// Listing must not create the tenant it names, so it filters by name here rather
			// than asking EnsureTenant for an ID; the table holds keys, not records, and is small.
			entries, err := b.ListAPIKeys(cmd.Context(), 0)
			if err != nil {
				return failed(err)
			}
			now := time.Now()
			rows := make([]keyListing, 0, len(entries))
			for _, e := range entries {
				if name != "" && e.Tenant.Name != name {
					continue
				}
				rows = append(rows, listing(e, now))
			}
			stdout := cmd.OutOrStdout()
			if asJSON {
				enc := json.NewEncoder(stdout)
				enc.SetIndent("", "  ")
				if err := enc.Encode(map[string]any{"keys": rows}); err != nil {
					return failedf("encode: %w", err)
				}
				return nil
			}
			if len(rows) == 0 {
				if name != "" {
					fmt.Fprintf(cmd.ErrOrStderr(), "no keys for tenant %q\n", name)
				} else {
					fmt.Fprintln(cmd.ErrOrStderr(), "no keys")
				}
				return nil
			}
			tw := tabwriter.NewWriter(stdout, 0, 0, 2, ' ', 0)
			fmt.Fprintln(tw, "ID\tTENANT\tSCOPES\tSTATUS\tCREATED\tLAST USED\tEXPIRES\tREVOKED")
			for _, r := range rows {
				fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n", safeText(r.ID), safeText(r.Tenant),
					strings.Join(r.Scopes, ","), r.Status, r.CreatedAt, or(r.LastUsedAt, "never"),
					or(r.ExpiresAt, "never"), or(r.RevokedAt, "-"))
			}
			_ = tw.Flush()
			return nil
		},
	}
	fs := cmd.Flags()
	fs.StringVar(&tenant, "tenant", "", "only this tenant's keys")
	out = addOutputFlags(fs)
	dbURL = envStringVar(fs, "database-url", "DATABASE_URL", "", "database: postgres://…, sqlite:PATH or empty for the embedded store")
	completeWords(cmd, "output", "text", "json")
	return cmd
}

func listing(e store.APIKeyEntry, now time.Time) keyListing {
	k := e.Key
	status := "active"
	switch {
	case k.Revoked():
		status = "revoked"
	case k.Expired(now):
		status = "expired"
	}
	scopes := k.Scopes
	if scopes == nil {
		scopes = []string{}
	}
	return keyListing{ID: k.ID, Tenant: e.Tenant.Name, Scopes: scopes, Status: status,
		CreatedAt: fmtStoreTime(k.CreatedAt), CreatedBy: k.CreatedBy, LastUsedAt: fmtStoreTime(k.LastUsedAt),
		ExpiresAt: fmtStoreTime(k.ExpiresAt), RevokedAt: fmtStoreTime(k.RevokedAt), RevokedBy: k.RevokedBy}
}

// fmtStoreTime is RFC 3339 in UTC to the second, "" for none.
func fmtStoreTime(t time.Time) string {
	if t.IsZero() {
		return ""
	}
	return t.UTC().Format(time.RFC3339)
}

func or(s, fallback string) string {
	if s == "" {
		return fallback
	}
	return s
}

func newKeysRevokeCmd(d deps) *cobra.Command {
	var dbURL *envString
	cmd := &cobra.Command{
		Use:   "revoke KEY_ID [flags]",
		Short: "Revoke an API key: refused by every replica within seconds, its web sessions ended",
		Long: `Revoke the API key with this ID (as keys list and the service's logs show it; the 8
characters after tfk_ in the key). Every replica refuses it (unauthenticated) within 10 seconds,
the time for which a replica answers a key from memory, and its support-page sessions end at
their next request. The key stays listed, as revoked, with when and by whom; an audit line
goes to stderr. Revoking a revoked key changes nothing.`,
		Example: `  toolfailure keys revoke Xk3fP9aQ
  toolfailure keys revoke Xk3fP9aQ --database-url postgres://USER:PASS@HOST:5432/DB`,
		Args: exactArgs(1, "one key ID"),
		RunE: func(cmd *cobra.Command, args []string) error {
			id := keyIDOf(args[0])
			if id == "" {
				return usageErrorf("%q is not a key ID: use the ID that keys list shows", safeText(args[0]))
			}
			b, err := openMigrated(cmd, d, dbURL.Get())
			if err != nil {
				return err
			}
			defer b.Close()
			k, revoked, err := b.RevokeAPIKey(cmd.Context(), id, time.Now(), auditActor("keys revoke"))
			if errors.Is(err, store.ErrNotFound) {
				return failedf("no key with ID %q (keys list shows them)", id)
			}
			if err != nil {
				return failed(err)
			}
			stderr := cmd.ErrOrStderr()
			if !revoked {
				fmt.Fprintf(stderr, "key %s was already revoked at %s (%s)\n", k.ID, fmtStoreTime(k.RevokedAt), or(k.RevokedBy, "by whom not recorded"))
				return nil
			}
			auditKey(auditLogger(stderr), "api key revoked", k, tenantName(cmd, b, k))
			fmt.Fprintf(stderr, "revoked key %s; every replica refuses it within 10 seconds\n", k.ID)
			return nil
		},
	}
	dbURL = envStringVar(cmd.Flags(), "database-url", "DATABASE_URL", "", "database: postgres://…, sqlite:PATH or empty for the embedded store")
	return cmd
}

// keyIDOf accepts a key ID, and forgives a whole key pasted instead: its ID is taken and the
// secret part never shown. "" when s is neither.
func keyIDOf(s string) string {
	s = strings.TrimSpace(s)
	if apikey.Check(s) == nil {
		return s[len("tfk_") : len("tfk_")+8]
	}
	if s == "" || len(s) > 64 || strings.ContainsFunc(s, func(r rune) bool {
		return !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '-' || r == '_')
	}) {
		return ""
	}
	return s
}

// tenantName names k's tenant for the audit line, "" when it cannot be told.
func tenantName(cmd *cobra.Command, b store.Store, k store.APIKey) string {
	entries, err := b.ListAPIKeys(cmd.Context(), k.TenantID)
	if err != nil || len(entries) == 0 {
		return ""
	}
	return entries[0].Tenant.Name
}

// auditLogger writes audit lines to w as structured text, like serve's log.
func auditLogger(w io.Writer) *slog.Logger {
	return slog.New(slog.NewTextHandler(w, nil))
}

// auditKey logs one change to a key: its ID, never the key or its hash.
func auditKey(log *slog.Logger, msg string, k store.APIKey, tenant string) {
	attrs := []any{"audit", true, "key_id", k.ID, "tenant", tenant, "tenant_id", k.TenantID, "scopes", strings.Join(k.Scopes, ",")}
	if !k.ExpiresAt.IsZero() {
		attrs = append(attrs, "expires_at", k.ExpiresAt.Format(time.RFC3339))
	}
	if k.Revoked() {
		attrs = append(attrs, "revoked_at", k.RevokedAt.Format(time.RFC3339Nano), "by", k.RevokedBy)
	} else {
		attrs = append(attrs, "created_at", k.CreatedAt.Format(time.RFC3339Nano), "by", k.CreatedBy)
	}
	log.Info(msg, attrs...)
}

// auditActor says who runs a command and from where, for a key's audit record: the operating
// system's user and the host name.
func auditActor(command string) string {
	name := os.Getenv("USER")
	if u, err := user.Current(); err == nil && u.Username != "" {
		name = u.Username
	}
	host, _ := os.Hostname()
	return fmt.Sprintf("%s by %s on %s", command, or(name, "unknown user"), or(host, "unknown host"))
}
