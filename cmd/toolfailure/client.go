package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"regexp"
	"strings"
	"text/tabwriter"
	"time"

	"connectrpc.com/connect/v2"
	"connectrpc.com/connect/v2/connecthttp"
	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/known/timestamppb"

	"github.com/omcp/toolfailure/correlation"
	v1 "github.com/omcp/toolfailure/gen/toolfailure/v1"
	"github.com/omcp/toolfailure/gen/toolfailure/v1/toolfailurev1connect"
	"github.com/omcp/toolfailure/internal/classwire"
)

// clientFlags are --server and --key, the flags of every command that
// talks to a running service.
type clientFlags struct {
	server *envString
	key    *envString
}

func addClientFlags(fs *pflag.FlagSet) clientFlags {
	return clientFlags{
		server: envStringVar(fs, "server", "TOOLFAILURE_SERVER", "http://127.0.0.1:8080", "service URL"),
		key:    envStringVar(fs, "key", "TOOLFAILURE_KEY", "", "API key"),
	}
}

// serverURL is the service's URL without a trailing slash.
func (c clientFlags) serverURL() string { return strings.TrimRight(c.server.Get(), "/") }

func (c clientFlags) client() (*connect.Client, error) {
	key := c.key.Get()
	if key == "" {
		return nil, usageErrorf("no API key: pass --key or set TOOLFAILURE_KEY")
	}
	auth := "Bearer " + key
	bearer := func(next connect.ClientFunc) connect.ClientFunc {
		return func(ctx context.Context, spec connect.Spec) (connect.ClientStream, error) {
			ctx, info := connect.NewClientContext(ctx)
			info.RequestHeader().Set("Authorization", auth)
			return next(ctx, spec)
		}
	}
	httpClient := &http.Client{Timeout: 30 * time.Second, Transport: serviceTransport}
	return connect.NewClient(connecthttp.NewTransport(httpClient, c.serverURL(), connecthttp.WithProtoJSON()), bearer), nil
}

func newLookupCmd() *cobra.Command {
	var cf clientFlags
	var out *outputFlags
	cmd := &cobra.Command{
		Use:   "lookup [flags] tf_…",
		Short: "Show one failure by its correlation ID",
		Long: `Show one failure record by its correlation ID, as support sees it: class and code,
guidance, the tool, the raw error (redacted), the rule that decided, the trace and the web page.
When a call retried across a database outage was answered with two IDs, each record names the
other ("Same call as"; sameCallIds in JSON).

IDs pasted from tickets may have spaces, any case or no tf_ prefix, or come with the text around
them (quotes, "correlationId: …", a JSON fragment): the one tf_ token is taken. A typo is caught by
the check character. Text output shows terminal control characters in the record as escapes
such as \x1b.`,
		Example: `  toolfailure lookup tf_01JZ8X4M7Q2R5T9V3W6Y8A1B2CQ
  toolfailure lookup tf_01JZ8X4M7Q2R5T9V3W6Y8A1B2CQ --output json --server https://toolfailure.example.com`,
		Args: exactArgs(1, "one correlation ID"),
		RunE: func(cmd *cobra.Command, args []string) error {
			asJSON, err := out.JSON(cmd)
			if err != nil {
				return err
			}
			// People paste IDs from tickets: tolerate spaces, case and a missing prefix.
			id, err := correlation.ParseLoose(args[0])
			if err != nil {
				switch {
				case errors.Is(err, correlation.ErrSeveral):
					return usageErrorf("the text holds more than one correlation ID: give one")
				case errors.Is(err, correlation.ErrCheckMissing):
					return usageErrorf("the check character is missing: the ID has 26 characters after tf_, not 27; copy the whole ID")
				case errors.Is(err, correlation.ErrChecksum):
					return usageErrorf("the check character does not match: the ID was probably mistyped")
				}
				return usageErrorf("not a correlation ID (tf_ followed by 27 characters)")
			}
			client, err := cf.client()
			if err != nil {
				return err
			}
			res, err := toolfailurev1connect.NewFailureServiceClient(client).GetFailure(cmd.Context(), &v1.GetFailureRequest{CorrelationId: id.String()})
			if err != nil {
				return failed(err)
			}
			if asJSON {
				return printJSON(cmd.OutOrStdout(), res.GetFailure())
			}
			printFailure(cmd.OutOrStdout(), res.GetFailure(), cf.serverURL())
			return nil
		},
	}
	cf = addClientFlags(cmd.Flags())
	out = addOutputFlags(cmd.Flags())
	completeWords(cmd, "output", "text", "json")
	return cmd
}

// exactArgs is cobra.ExactArgs with a reason that says what is missing.
func exactArgs(n int, what string) cobra.PositionalArgs {
	return func(cmd *cobra.Command, args []string) error {
		if len(args) != n {
			return usageErrorf("want %s, got %d arguments (usage: %s)", what, len(args), cmd.UseLine())
		}
		return nil
	}
}

// noArgs refuses positional arguments with a reason that names the first.
func noArgs(cmd *cobra.Command, args []string) error {
	if len(args) > 0 {
		return usageErrorf("unexpected argument %q (usage: %s)", args[0], cmd.UseLine())
	}
	return nil
}

func printJSON(stdout io.Writer, m proto.Message) error {
	b, err := protojson.MarshalOptions{Multiline: true, Indent: "  "}.Marshal(m)
	if err != nil {
		return failedf("encode: %w", err)
	}
	fmt.Fprintln(stdout, string(classWords(b)))
	return nil
}

// classKey matches a "class" member whose value is the API's enum name. A
// JSON string cannot hold an unescaped quote, so what precedes the key
// (space, '{' or ',') shows it is a member, not text inside a value.
var classKey = regexp.MustCompile(`([\s{,]"class":\s*")CLASS_([A-Z]+)"`)

// classWords writes a class as the proposal's word (reliability), as the
// _meta object, the text output and the filters say it, instead of the
// enum's name (CLASS_RELIABILITY) that protojson writes: people read one
// spelling.
func classWords(b []byte) []byte {
	return classKey.ReplaceAllFunc(b, func(m []byte) []byte {
		sub := classKey.FindSubmatch(m)
		return append(append(append([]byte(nil), sub[1]...), bytes.ToLower(sub[2])...), '"')
	})
}

// checkClassFlag refuses a --class that names no class, as a usage error
// that lists the valid words; both spellings (reliability,
// CLASS_RELIABILITY) are accepted.
func checkClassFlag(class string) error {
	if class == "" {
		return nil
	}
	switch classwire.Name(class) {
	case "capability", "reliability", "governance":
		return nil
	}
	return usageErrorf("--class %q: want capability, reliability or governance", class)
}

func className(c v1.Class) string { return classwire.Word(c) }

func printFailure(w io.Writer, f *v1.Failure, serverURL string) {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	// Every value is stored text or derived from it: safeText keeps terminal controls in it visible.
	row := func(k, v string) {
		if v != "" {
			fmt.Fprintf(tw, "%s\t%s\n", k, safeText(v))
		}
	}
	row("Correlation ID", f.GetCorrelationId())
	// A call retried across a database outage can have two IDs, each its own record (docs/reference.md,
	// "Idempotency across an outage"): support must see that they are one call.
	row("Same call as", strings.Join(f.GetSameCallIds(), ", "))
	row("Outcome", className(f.GetClass())+" / "+f.GetCode())
	retry := "no"
	if f.GetRetryable() {
		retry = "yes"
		if f.RetryNotBefore != nil {
			retry += ", not before " + f.GetRetryNotBefore().AsTime().Format(time.RFC3339)
		}
	}
	row("Retryable", retry)
	row("Guidance", f.GetAgentGuidance())
	row("Tool", f.GetTool())
	row("Server", f.GetServer())
	row("Occurred", fmtTime(f.GetOccurredAt()))
	row("Recorded", fmtTime(f.GetCreatedAt()))
	row("Rule", f.GetRuleId())
	row("Trace", f.GetTraceId())
	row("Span", f.GetSpanId())
	for _, r := range supportRows(f, serverURL) {
		row(r[0], r[1])
	}
	if e := f.GetError(); e != nil {
		row("Error message", e.GetMessage())
		row("Error type", e.GetType())
		if e.HttpStatus != nil {
			row("HTTP status", fmt.Sprint(e.GetHttpStatus()))
		}
		if e.GrpcCode != nil {
			row("gRPC code", fmt.Sprint(e.GetGrpcCode()))
		}
		if e.JsonrpcCode != nil {
			row("JSON-RPC code", fmt.Sprint(e.GetJsonrpcCode()))
		}
		row("Retry-After", e.GetRetryAfter())
		if d := e.GetDetails(); d != nil {
			b, _ := json.Marshal(d.AsInterface())
			row("Details", string(b))
		}
	}
	_ = tw.Flush()
}

func fmtTime(ts *timestamppb.Timestamp) string {
	if ts == nil {
		return ""
	}
	return ts.AsTime().UTC().Format(time.RFC3339Nano)
}

func newFailuresCmd() *cobra.Command {
	c := groupCmd("failures", "List failure records", "  toolfailure failures list --tool send_email --class reliability --since 1h", newFailuresListCmd())
	return c
}

// maxPageSize is the most records ListFailures returns in one page.
const maxPageSize = 1000

func newFailuresListCmd() *cobra.Command {
	var (
		cf                         clientFlags
		out                        *outputFlags
		tool, class, code, traceID string
		mcpServer                  string
		since, until, pageToken    string
		limit, pageSize            int
	)
	cmd := &cobra.Command{
		Use:   "list [flags]",
		Short: "List failure records, the newest first",
		Long: `List the tenant's failure records, the newest first, filtered by tool, MCP server, class,
code, trace and time. --mcp-server is the label the MCP server reported under (the server field
of Classify, the proxy's --label); --server is the toolfailure service's URL, as in every client
command. It pages through the service until --limit records are shown or there are no more;
when records remain, the last line (the nextPageToken with --output json) says how to continue.`,
		Example: `  toolfailure failures list --tool send_email --class reliability --since 1h
  toolfailure failures list --mcp-server mail-mcp --tool search --since 24h
  toolfailure failures list --code rate_limited --limit 5000 --output json
  toolfailure failures list --trace-id 4bf92f3577b34da6a3ce929d0e0e4736`,
		Args: noArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			asJSON, err := out.JSON(cmd)
			if err != nil {
				return err
			}
			if limit < 1 {
				return usageErrorf("--limit %d: must be at least 1", limit)
			}
			if pageSize < 1 || pageSize > maxPageSize {
				return usageErrorf("--page-size %d: must be from 1 to %d", pageSize, maxPageSize)
			}
			if err := checkClassFlag(class); err != nil {
				return err
			}
			filter := &v1.FailureFilter{Tool: tool, Server: mcpServer, Class: class, Code: code, TraceId: traceID}
			if err := parseWindow(since, until, &filter.Since, &filter.Until); err != nil {
				return err
			}
			client, err := cf.client()
			if err != nil {
				return err
			}
			svc := toolfailurev1connect.NewFailureServiceClient(client)
			all, token, early, err := listAll(cmd.Context(), svc, filter, pageToken, limit, pageSize)
			if err != nil {
				return failed(err)
			}
			stdout, stderr := cmd.OutOrStdout(), cmd.ErrOrStderr()
			if early {
				fmt.Fprintf(stderr, "toolfailure failures list: the service ended the listing after %d records with a full page and no page token; there may be more than shown\n", len(all))
			}
			if asJSON {
				return printJSON(stdout, &v1.ListFailuresResponse{Failures: all, NextPageToken: token})
			}
			tw := tabwriter.NewWriter(stdout, 0, 0, 2, ' ', 0)
			fmt.Fprintln(tw, "CREATED\tCORRELATION ID\tTOOL\tMCP SERVER\tCLASS\tCODE")
			for _, f := range all {
				fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\n", f.GetCreatedAt().AsTime().UTC().Format(time.RFC3339), safeText(f.GetCorrelationId()),
					safeText(f.GetTool()), serverCell(f.GetServer()), className(f.GetClass()), safeText(f.GetCode()))
			}
			_ = tw.Flush()
			if token != "" {
				fmt.Fprintf(stdout, "\nmore: toolfailure failures list --page-token %s (with the same filters)\n", safeText(token))
			}
			return nil
		},
	}
	fs := cmd.Flags()
	cf = addClientFlags(fs)
	fs.StringVar(&tool, "tool", "", "exact tool name")
	fs.StringVar(&mcpServer, "mcp-server", "", mcpServerUsage)
	fs.StringVar(&class, "class", "", "capability, reliability or governance")
	fs.StringVar(&code, "code", "", "failure code")
	fs.StringVar(&traceID, "trace-id", "", "trace ID (32 hex characters)")
	fs.StringVar(&since, "since", "", "RFC 3339 time or a duration ago such as 1h")
	fs.StringVar(&until, "until", "", "RFC 3339 time or a duration ago")
	fs.IntVar(&limit, "limit", 50, "records to show (the newest first); the listing pages through the service until it has them")
	fs.StringVar(&pageToken, "page-token", "", "continue from the page token a previous listing printed")
	fs.IntVar(&pageSize, "page-size", maxPageSize, "records asked for per request")
	_ = fs.MarkHidden("page-size")
	out = addOutputFlags(fs)
	completeWords(cmd, "output", "text", "json")
	completeWords(cmd, "class", "capability", "reliability", "governance")
	return cmd
}

// mcpServerUsage is the help of --mcp-server wherever a list filters by it. The flag is not
// --server because every client command's --server is the service's URL (the contract).
const mcpServerUsage = "only records from this MCP server: the exact label it reported under (not --server, the service's URL)"

// serverCell is a record's MCP server label in a table: "-" for none, so that the columns stay
// aligned and an empty label is not read as a missing column.
func serverCell(s string) string {
	if s == "" {
		return "-"
	}
	return safeText(s)
}

// listAll pages through ListFailures until it has limit records or the
// service has no more, and returns the token to continue from. early
// reports a service that returned a full page without a page token, which
// a service with a paging bug does at its page limit: the listing may be
// incomplete, and the caller says so.
func listAll(ctx context.Context, svc toolfailurev1connect.FailureServiceClient, filter *v1.FailureFilter, token string, limit, pageSize int) (all []*v1.Failure, next string, early bool, err error) {
	for len(all) < limit {
		want := min(limit-len(all), pageSize)
		res, err := svc.ListFailures(ctx, &v1.ListFailuresRequest{Filter: filter, PageSize: int32(want), PageToken: token})
		if err != nil {
			return nil, "", false, err
		}
		page := res.GetFailures()
		all = append(all, page...)
		token = res.GetNextPageToken()
		if token == "" {
			early = len(page) == want && len(all) < limit
			break
		}
		if len(page) == 0 {
			// A token with an empty page would loop for ever.
			return all, token, false, nil
		}
	}
	return all, token, early, nil
}

// parseWindow sets *sinceTS and *untilTS from the --since and --until values (each an RFC 3339
// time or a duration before now; empty leaves it unset), or returns the usage error that names
// the flag.
func parseWindow(since, until string, sinceTS, untilTS **timestamppb.Timestamp) error {
	now := time.Now()
	for _, tf := range []struct {
		name, val string
		dst       **timestamppb.Timestamp
	}{{"since", since, sinceTS}, {"until", until, untilTS}} {
		if tf.val == "" {
			continue
		}
		t, err := parseWhen(tf.val, now)
		if err != nil {
			return usageErrorf("--%s: %v", tf.name, err)
		}
		*tf.dst = timestamppb.New(t)
	}
	return nil
}

// parseWhen reads an RFC 3339 time or a duration before now ("90m").
func parseWhen(s string, now time.Time) (time.Time, error) {
	if t, err := time.Parse(time.RFC3339, s); err == nil {
		return t, nil
	}
	d, err := time.ParseDuration(strings.TrimPrefix(s, "-"))
	if err != nil {
		return time.Time{}, fmt.Errorf("%q is neither an RFC 3339 time nor a duration", s)
	}
	return now.Add(-d), nil
}

// serviceTransport keeps connections to the service open for reuse. The
// proxy classifies failures of concurrent calls concurrently, and
// http.DefaultTransport keeps only two idle connections per host, so most
// Classify calls would dial a connection and close it again ("toolfailure
// bench proxy" with --callers shows the difference on failing calls).
var serviceTransport = func() *http.Transport {
	t := http.DefaultTransport.(*http.Transport).Clone()
	t.MaxIdleConnsPerHost = 64
	return t
}()
