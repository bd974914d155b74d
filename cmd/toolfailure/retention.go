package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/omcp/toolfailure/store"
)

// runRetention is `toolfailure retention set|show|purge`: an operator's command that talks to the
// database directly, like `keys create`, because retention is a deployment decision per tenant,
// not something a tenant's own API key should change.
func runRetention(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	const usage = "usage: toolfailure retention set --tenant NAME --days N | show --tenant NAME | purge [--database-url URL]"
	if len(args) == 0 {
		fmt.Fprintln(stderr, usage)
		return 2
	}
	sub := args[0]
	fs := flag.NewFlagSet("retention "+sub, flag.ContinueOnError)
	tenant := fs.String("tenant", "", "tenant name")
	days := fs.Int("days", -1, "days to keep the tenant's failure records; 0 keeps them forever")
	dbURL := fs.String("database-url", os.Getenv("DATABASE_URL"), "database (env DATABASE_URL); empty for the embedded store")
	if ok, code := parseFlags(fs, args[1:], stderr); !ok {
		return code
	}
	if (sub == "set" || sub == "show") && strings.TrimSpace(*tenant) == "" {
		fmt.Fprintln(stderr, "toolfailure retention:", "--tenant is required")
		return 2
	}
	if sub == "set" && *days < 0 {
		fmt.Fprintln(stderr, "toolfailure retention set: --days is required (0 keeps records forever)")
		return 2
	}
	if sub != "set" && sub != "show" && sub != "purge" {
		fmt.Fprintln(stderr, usage)
		return 2
	}
	b, _, _, err := openBackend(ctx, *dbURL)
	if err != nil {
		fmt.Fprintln(stderr, "toolfailure retention:", err)
		return 1
	}
	defer b.Close()
	s, ok := b.(store.Store)
	if !ok {
		fmt.Fprintln(stderr, "toolfailure retention: this backend has no retention")
		return 1
	}
	if err := s.Migrate(ctx); err != nil {
		fmt.Fprintln(stderr, "toolfailure retention: migrate:", err)
		return 1
	}
	if sub == "purge" {
		removed, err := s.PurgeExpired(ctx, time.Now(), 0)
		if err != nil {
			fmt.Fprintln(stderr, "toolfailure retention purge:", err)
			return 1
		}
		fmt.Fprintf(stdout, "removed %d expired failure records\n", removed)
		return 0
	}
	t, err := s.EnsureTenant(ctx, strings.TrimSpace(*tenant))
	if err != nil {
		fmt.Fprintln(stderr, "toolfailure retention:", err)
		return 1
	}
	if sub == "set" {
		if err := s.SetRetention(ctx, t.ID, *days); err != nil {
			fmt.Fprintln(stderr, "toolfailure retention set:", err)
			return 1
		}
	}
	d, err := s.Retention(ctx, t.ID)
	if err != nil {
		fmt.Fprintln(stderr, "toolfailure retention:", err)
		return 1
	}
	if d == 0 {
		fmt.Fprintf(stdout, "tenant %q keeps its failure records forever\n", t.Name)
	} else {
		fmt.Fprintf(stdout, "tenant %q keeps its failure records for %d days\n", t.Name, d)
	}
	return 0
}
