package main

import (
	"fmt"
	"strings"
	"text/tabwriter"

	"github.com/spf13/cobra"

	v1 "github.com/omcp/toolfailure/gen/toolfailure/v1"
	"github.com/omcp/toolfailure/gen/toolfailure/v1/toolfailurev1connect"
	"github.com/omcp/toolfailure/internal/ruleset"
)

func newGroupsCmd() *cobra.Command {
	return groupCmd("groups", "Failures grouped into problems by fingerprint",
		`  toolfailure groups list --unclassified --since 24h
  toolfailure groups show 3f9a0c1d2e4b5a68`,
		newGroupsListCmd(), newGroupsShowCmd())
}

// maxGroupPages bounds how many pages groups list follows for --limit.
const maxGroupPages = 100

func newGroupsListCmd() *cobra.Command {
	var (
		cf                       clientFlags
		out                      *outputFlags
		tool, class, code, order string
		mcpServer                string
		since, until             string
		unclassified             bool
		limit                    int
	)
	cmd := &cobra.Command{
		Use:   "list [flags]",
		Short: "List problems: the failures of a window grouped by fingerprint, most frequent first",
		Long: `List the tenant's problems: the failure records of a window (default the last 24 hours, at
most 90 days) that share a fingerprint, with their count, first and last seen, message template,
the rule that decided the latest one, the MCP server it came from, and a sample correlation ID.
--mcp-server counts only the records of one MCP server (a problem two servers share is one
group otherwise); --server is the service's URL. --unclassified keeps the
problems that no rule knew (the documented default or the text model's guess decided), the ones
to teach the service with "toolfailure rules suggest FINGERPRINT".`,
		Example: `  toolfailure groups list --unclassified --since 24h
  toolfailure groups list --tool send_email --order last_seen --output json
  toolfailure groups list --mcp-server mail-mcp --since 168h`,
		Args: noArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			asJSON, err := out.JSON(cmd)
			if err != nil {
				return err
			}
			if limit < 1 {
				return usageErrorf("--limit %d: must be at least 1", limit)
			}
			if order != "count" && order != "last_seen" {
				return usageErrorf("--order %q: use count or last_seen", order)
			}
			if err := checkClassFlag(class); err != nil {
				return err
			}
			filter := &v1.GroupFilter{Tool: tool, Server: mcpServer, Class: class, Code: code, Unclassified: unclassified}
			if err := parseWindow(since, until, &filter.Since, &filter.Until); err != nil {
				return err
			}
			client, err := cf.client()
			if err != nil {
				return err
			}
			svc := toolfailurev1connect.NewFailureServiceClient(client)
			var all []*v1.Group
			token := ""
			for range maxGroupPages {
				res, err := svc.ListGroups(cmd.Context(), &v1.ListGroupsRequest{
					Filter: filter, OrderBy: order, PageSize: int32(min(limit-len(all), maxPageSize)), PageToken: token})
				if err != nil {
					return failed(err)
				}
				all = append(all, res.GetGroups()...)
				token = res.GetNextPageToken()
				if token == "" || len(all) >= limit || len(res.GetGroups()) == 0 {
					break
				}
			}
			stdout := cmd.OutOrStdout()
			if asJSON {
				return printJSON(stdout, &v1.ListGroupsResponse{Groups: all, NextPageToken: token})
			}
			tw := tabwriter.NewWriter(stdout, 0, 0, 2, ' ', 0)
			// MCP SERVER is the latest record's, like CLASS/CODE and RULE.
			fmt.Fprintln(tw, "FINGERPRINT\tCOUNT\tLAST SEEN\tTOOL\tMCP SERVER\tCLASS/CODE\tRULE\tTEMPLATE")
			for _, g := range all {
				fmt.Fprintf(tw, "%s\t%d\t%s\t%s\t%s\t%s/%s\t%s\t%s\n", safeText(g.GetFingerprint()), g.GetCount(),
					fmtTime(g.GetLastSeen()), safeText(g.GetTool()), serverCell(g.GetServer()), className(g.GetClass()), safeText(g.GetCode()), safeText(g.GetRuleId()), oneLineTemplate(g.GetTemplate()))
			}
			_ = tw.Flush()
			if token != "" {
				fmt.Fprintf(stdout, "\nmore problems than shown: raise --limit\n")
			}
			return nil
		},
	}
	fs := cmd.Flags()
	cf = addClientFlags(fs)
	fs.BoolVar(&unclassified, "unclassified", false, "only problems that no rule matched")
	fs.StringVar(&tool, "tool", "", "exact tool name")
	fs.StringVar(&mcpServer, "mcp-server", "", mcpServerUsage)
	fs.StringVar(&class, "class", "", "capability, reliability or governance")
	fs.StringVar(&code, "code", "", "failure code")
	fs.StringVar(&since, "since", "", "RFC 3339 time or a duration ago such as 24h (default 24 hours before --until)")
	fs.StringVar(&until, "until", "", "RFC 3339 time or a duration ago (default now)")
	fs.StringVar(&order, "order", "count", "count (most frequent first) or last_seen")
	fs.IntVar(&limit, "limit", 50, "problems to show")
	out = addOutputFlags(fs)
	completeWords(cmd, "output", "text", "json")
	completeWords(cmd, "order", "count", "last_seen")
	completeWords(cmd, "class", "capability", "reliability", "governance")
	return cmd
}

// oneLineTemplate keeps a table row on one line and of a readable width, with terminal controls
// made visible (safeText).
func oneLineTemplate(s string) string {
	s = safeText(strings.Join(strings.Fields(s), " "))
	if r := []rune(s); len(r) > 80 {
		s = string(r[:79]) + "…"
	}
	return s
}

func newGroupsShowCmd() *cobra.Command {
	var (
		cf           clientFlags
		out          *outputFlags
		since, until string
	)
	cmd := &cobra.Command{
		Use:   "show [flags] FINGERPRINT",
		Short: "Show one problem and its most recent failures",
		Long: `Show one problem by its fingerprint (16 hex characters, from "groups list" or any failure
record): its count, first and last seen, template, the rule that decided, and its most recent
records in the window (default the last 24 hours).`,
		Example: `  toolfailure groups show 3f9a0c1d2e4b5a68
  toolfailure groups show 3f9a0c1d2e4b5a68 --since 168h --output json`,
		Args: exactArgs(1, "one fingerprint"),
		RunE: func(cmd *cobra.Command, args []string) error {
			asJSON, err := out.JSON(cmd)
			if err != nil {
				return err
			}
			req := &v1.GetGroupRequest{Fingerprint: args[0]}
			if err := parseWindow(since, until, &req.Since, &req.Until); err != nil {
				return err
			}
			client, err := cf.client()
			if err != nil {
				return err
			}
			res, err := toolfailurev1connect.NewFailureServiceClient(client).GetGroup(cmd.Context(), req)
			if err != nil {
				return failed(err)
			}
			stdout := cmd.OutOrStdout()
			if asJSON {
				return printJSON(stdout, res)
			}
			g := res.GetGroup()
			tw := tabwriter.NewWriter(stdout, 0, 0, 2, ' ', 0)
			// Stored text, shown through safeText.
			for _, row := range [][2]string{
				{"Fingerprint", g.GetFingerprint()},
				{"Template", g.GetTemplate()},
				{"Tool", g.GetTool()},
				{"MCP server", serverCell(g.GetServer())}, // the latest record's; safeText again is harmless
				{"Count", fmt.Sprint(g.GetCount())},
				{"First seen", fmtTime(g.GetFirstSeen())},
				{"Last seen", fmtTime(g.GetLastSeen())},
				{"Decided by", g.GetRuleId() + " (" + className(g.GetClass()) + "/" + g.GetCode() + ")"},
			} {
				fmt.Fprintf(tw, "%s:\t%s\n", row[0], safeText(row[1]))
			}
			_ = tw.Flush()
			fmt.Fprintf(stdout, "\nMost recent:\n")
			tw = tabwriter.NewWriter(stdout, 0, 0, 2, ' ', 0)
			fmt.Fprintln(tw, "CREATED\tCORRELATION ID\tMCP SERVER\tCLASS\tCODE\tRULE")
			for _, f := range res.GetRecent() {
				fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\n", fmtTime(f.GetCreatedAt()), safeText(f.GetCorrelationId()), serverCell(f.GetServer()), className(f.GetClass()), safeText(f.GetCode()), safeText(f.GetRuleId()))
			}
			_ = tw.Flush()
			if len(res.GetShadow()) > 0 {
				fmt.Fprintf(stdout, "\nShadow rules (over the newest %d records):\n", res.GetShadowRecords())
				tw = tabwriter.NewWriter(stdout, 0, 0, 2, ' ', 0)
				fmt.Fprintln(tw, "RULE\tWOULD DECIDE\tMATCHED\tWOULD CHANGE")
				for _, e := range res.GetShadow() {
					fmt.Fprintf(tw, "%s\t%s/%s\t%d\t%d\n", safeText(e.GetRuleId()), className(e.GetClass()), safeText(e.GetCode()), e.GetMatched(), e.GetDiffers())
				}
				_ = tw.Flush()
			}
			fmt.Fprintf(stdout, "\nDraft a rule for it: toolfailure rules suggest %s\n", safeText(g.GetFingerprint()))
			return nil
		},
	}
	fs := cmd.Flags()
	cf = addClientFlags(fs)
	fs.StringVar(&since, "since", "", "RFC 3339 time or a duration ago (default 24 hours before --until)")
	fs.StringVar(&until, "until", "", "RFC 3339 time or a duration ago (default now)")
	out = addOutputFlags(fs)
	completeWords(cmd, "output", "text", "json")
	return cmd
}

func newRulesSuggestCmd() *cobra.Command {
	var (
		cf  clientFlags
		out *outputFlags
	)
	cmd := &cobra.Command{
		Use:   "suggest [flags] FINGERPRINT",
		Short: "Draft a rule from a problem, as YAML for the rules file",
		Long: `Draft a rule that matches one problem (a fingerprint from "groups list"): the tool, its status
codes, its error type and a message regex built from the template, with the class and code that
decided most of its records, in mode shadow. The service checks the draft against the problem's
records and the tenant's other recent ones; the explanation, printed as YAML comments, says what
it found. Add the rule to your rules file and "rules apply" it (apply replaces the whole set);
records then show its would-be outcome until you set mode: enforce.`,
		Example: `  toolfailure rules suggest 3f9a0c1d2e4b5a68 >> suggested.yaml
  toolfailure rules suggest 3f9a0c1d2e4b5a68 --output json`,
		Args: exactArgs(1, "one fingerprint"),
		RunE: func(cmd *cobra.Command, args []string) error {
			asJSON, err := out.JSON(cmd)
			if err != nil {
				return err
			}
			client, err := cf.client()
			if err != nil {
				return err
			}
			res, err := toolfailurev1connect.NewRuleServiceClient(client).SuggestRule(cmd.Context(), &v1.SuggestRuleRequest{Fingerprint: args[0]})
			if err != nil {
				return failed(err)
			}
			stdout := cmd.OutOrStdout()
			if asJSON {
				return printJSON(stdout, res)
			}
			body, err := ruleset.FormatFile([]ruleset.Rule{ruleset.FromProto(res.GetRule())})
			if err != nil {
				return failedf("format the suggested rule: %v", err)
			}
			for _, line := range strings.Split(res.GetExplanation(), "\n") {
				fmt.Fprintf(stdout, "# %s\n", safeText(line))
			}
			_, err = stdout.Write(body)
			return err
		},
	}
	cf = addClientFlags(cmd.Flags())
	out = addOutputFlags(cmd.Flags())
	completeWords(cmd, "output", "text", "json")
	return cmd
}
