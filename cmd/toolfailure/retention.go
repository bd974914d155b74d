package main

import (
	"fmt"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/omcp/toolfailure/store"
)

// newRetentionCmd is `toolfailure retention set|show|purge`: an operator's command that talks to
// the database directly, like `keys create`, because retention is a deployment decision per
// tenant, not something a tenant's own API key should change.
func newRetentionCmd(d deps) *cobra.Command {
	var dbURL *envString
	c := groupCmd("retention", "Per-tenant retention of failure records (on the database directly)",
		`  toolfailure retention set --tenant acme --days 30
  toolfailure retention show --tenant acme
  toolfailure retention purge`)
	dbURL = envStringVar(c.PersistentFlags(), "database-url", "DATABASE_URL", "", "database: postgres://…, sqlite:PATH or empty for the embedded store")

	// open opens the store, migrated, for one of the subcommands.
	open := func(cmd *cobra.Command) (store.Store, func(), error) {
		b, _, _, err := d.openBackend(cmd.Context(), dbURL.Get())
		if err != nil {
			return nil, nil, openFailed(cmd, err)
		}
		closeStore := func() { _ = b.Close() }
		if err := b.Migrate(cmd.Context()); err != nil {
			closeStore()
			return nil, nil, failedf("migrate: %w", err)
		}
		return b, closeStore, nil
	}
	var tenant string
	var days int
	show := func(cmd *cobra.Command, set bool) error {
		name := strings.TrimSpace(tenant)
		if name == "" {
			return usageErrorf("--tenant is required")
		}
		if set && !cmd.Flags().Changed("days") {
			return usageErrorf("--days is required (0 keeps records forever)")
		}
		if set && (days < 0 || days > store.MaxRetentionDays) {
			return usageErrorf("--days %d: must be from 0 (forever) to %d", days, store.MaxRetentionDays)
		}
		s, closeStore, err := open(cmd)
		if err != nil {
			return err
		}
		defer closeStore()
		ctx := cmd.Context()
		t, err := s.EnsureTenant(ctx, name)
		if err != nil {
			return failed(err)
		}
		if set {
			if err := s.SetRetention(ctx, t.ID, days); err != nil {
				return failed(err)
			}
		}
		n, err := s.Retention(ctx, t.ID)
		if err != nil {
			return failed(err)
		}
		if n == 0 {
			fmt.Fprintf(cmd.OutOrStdout(), "tenant %q keeps its failure records forever\n", t.Name)
		} else {
			fmt.Fprintf(cmd.OutOrStdout(), "tenant %q keeps its failure records for %d days\n", t.Name, n)
		}
		return nil
	}
	setCmd := &cobra.Command{
		Use:     "set --tenant NAME --days N [flags]",
		Short:   "Keep a tenant's failure records for N days (0: forever)",
		Long:    "Set how many days a tenant's failure records are kept; 0 keeps them forever (the default).\nserve purges expired records every --retention-interval; retention purge does it now.",
		Example: "  toolfailure retention set --tenant acme --days 30",
		Args:    noArgs,
		RunE:    func(cmd *cobra.Command, _ []string) error { return show(cmd, true) },
	}
	setCmd.Flags().StringVar(&tenant, "tenant", "", "tenant name")
	setCmd.Flags().IntVar(&days, "days", 0, "days to keep the tenant's failure records; 0 keeps them forever")
	showCmd := &cobra.Command{
		Use:     "show --tenant NAME [flags]",
		Short:   "Show a tenant's retention",
		Example: "  toolfailure retention show --tenant acme",
		Args:    noArgs,
		RunE:    func(cmd *cobra.Command, _ []string) error { return show(cmd, false) },
	}
	showCmd.Flags().StringVar(&tenant, "tenant", "", "tenant name")
	purgeCmd := &cobra.Command{
		Use:   "purge [flags]",
		Short: "Remove every expired failure record now",
		Long: `Remove every failure record older than its tenant's retention now, in small batches that
never hold up writers. serve does the same every --retention-interval.`,
		Example: "  toolfailure retention purge --database-url postgres://USER:PASS@HOST:5432/DB",
		Args:    noArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			s, closeStore, err := open(cmd)
			if err != nil {
				return err
			}
			defer closeStore()
			bar := newProgress(cmd.ErrOrStderr(), "removing expired failure records", 0)
			removed, err := s.PurgeExpired(cmd.Context(), time.Now(), 0)
			bar.Done()
			if err != nil {
				return failed(err)
			}
			fmt.Fprintf(cmd.OutOrStdout(), "removed %d expired failure records\n", removed)
			return nil
		},
	}
	c.AddCommand(setCmd, showCmd, purgeCmd)
	return c
}
