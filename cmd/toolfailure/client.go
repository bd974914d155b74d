package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"net/http"
	"os"
	"strings"
	"text/tabwriter"
	"time"

	"connectrpc.com/connect/v2"
	"connectrpc.com/connect/v2/connecthttp"
	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/known/timestamppb"

	"github.com/omcp/toolfailure/correlation"
	v1 "github.com/omcp/toolfailure/gen/toolfailure/v1"
	"github.com/omcp/toolfailure/gen/toolfailure/v1/toolfailurev1connect"
)

// clientFlags are the flags of every subcommand that talks to a running
// service.
type clientFlags struct {
	server *string
	key    *string
}

func addClientFlags(fs *flag.FlagSet) clientFlags {
	return clientFlags{
		server: fs.String("server", envOr("TOOLFAILURE_SERVER", "http://127.0.0.1:8080"), "service URL (env TOOLFAILURE_SERVER)"),
		key:    fs.String("key", os.Getenv("TOOLFAILURE_KEY"), "API key (env TOOLFAILURE_KEY)"),
	}
}

func (c clientFlags) client() (*connect.Client, error) {
	if *c.key == "" {
		return nil, errors.New("no API key: pass --key or set TOOLFAILURE_KEY")
	}
	auth := "Bearer " + *c.key
	bearer := func(next connect.ClientFunc) connect.ClientFunc {
		return func(ctx context.Context, spec connect.Spec) (connect.ClientStream, error) {
			ctx, info := connect.NewClientContext(ctx)
			info.RequestHeader().Set("Authorization", auth)
			return next(ctx, spec)
		}
	}
	httpClient := &http.Client{Timeout: 30 * time.Second}
	return connect.NewClient(connecthttp.NewTransport(httpClient, strings.TrimRight(*c.server, "/"), connecthttp.WithProtoJSON()), bearer), nil
}

func runLookup(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("lookup", flag.ContinueOnError)
	cf := addClientFlags(fs)
	asJSON := fs.Bool("json", false, "print the record as JSON")
	if ok, code := parseFlags(fs, args, stderr); !ok {
		return code
	}
	if fs.NArg() != 1 {
		fmt.Fprintln(stderr, "usage: toolfailure lookup [--json] tf_…")
		return 2
	}
	// People paste IDs from tickets: tolerate spaces, case and a missing prefix.
	id, err := correlation.ParseLoose(fs.Arg(0))
	if err != nil {
		if errors.Is(err, correlation.ErrChecksum) {
			fmt.Fprintln(stderr, "toolfailure lookup: the check character does not match: the ID was probably mistyped")
		} else {
			fmt.Fprintln(stderr, "toolfailure lookup: not a correlation ID (tf_ followed by 27 characters)")
		}
		return 2
	}
	client, err := cf.client()
	if err != nil {
		fmt.Fprintln(stderr, "toolfailure lookup:", err)
		return 2
	}
	res, err := toolfailurev1connect.NewFailureServiceClient(client).GetFailure(ctx, &v1.GetFailureRequest{CorrelationId: id.String()})
	if err != nil {
		fmt.Fprintln(stderr, "toolfailure lookup:", err)
		return 1
	}
	if *asJSON {
		return printJSON(stdout, stderr, res.GetFailure())
	}
	printFailure(stdout, res.GetFailure(), *cf.server)
	return 0
}

func printJSON(stdout, stderr io.Writer, m proto.Message) int {
	b, err := protojson.MarshalOptions{Multiline: true, Indent: "  "}.Marshal(m)
	if err != nil {
		fmt.Fprintln(stderr, "toolfailure: encode:", err)
		return 1
	}
	fmt.Fprintln(stdout, string(b))
	return 0
}

func className(c v1.Class) string {
	return strings.ToLower(strings.TrimPrefix(c.String(), "CLASS_"))
}

func printFailure(w io.Writer, f *v1.Failure, serverURL string) {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	row := func(k, v string) {
		if v != "" {
			fmt.Fprintf(tw, "%s\t%s\n", k, v)
		}
	}
	row("Correlation ID", f.GetCorrelationId())
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

func runFailures(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 || args[0] != "list" {
		fmt.Fprintln(stderr, "usage: toolfailure failures list [--tool T] [--class C] [--code C] [--trace-id ID] [--since RFC3339|-1h] [--until …] [--limit N] [--json]")
		return 2
	}
	fs := flag.NewFlagSet("failures list", flag.ContinueOnError)
	cf := addClientFlags(fs)
	tool := fs.String("tool", "", "exact tool name")
	class := fs.String("class", "", "capability, reliability or governance")
	code := fs.String("code", "", "failure code")
	traceID := fs.String("trace-id", "", "trace ID (32 hex characters)")
	since := fs.String("since", "", "RFC 3339 time or a duration ago such as 1h")
	until := fs.String("until", "", "RFC 3339 time or a duration ago")
	limit := fs.Int("limit", 50, "records to show (the newest first)")
	pageToken := fs.String("page-token", "", "continue from the page token a previous listing printed")
	asJSON := fs.Bool("json", false, "print JSON")
	if ok, code := parseFlags(fs, args[1:], stderr); !ok {
		return code
	}
	filter := &v1.FailureFilter{Tool: *tool, Class: *class, Code: *code, TraceId: *traceID}
	now := time.Now()
	for _, tf := range []struct {
		name string
		val  string
		dst  **timestamppb.Timestamp
	}{{"since", *since, &filter.Since}, {"until", *until, &filter.Until}} {
		if tf.val == "" {
			continue
		}
		t, err := parseWhen(tf.val, now)
		if err != nil {
			fmt.Fprintf(stderr, "toolfailure failures list: --%s: %v\n", tf.name, err)
			return 2
		}
		*tf.dst = timestamppb.New(t)
	}
	client, err := cf.client()
	if err != nil {
		fmt.Fprintln(stderr, "toolfailure failures list:", err)
		return 2
	}
	svc := toolfailurev1connect.NewFailureServiceClient(client)
	var all []*v1.Failure
	token := *pageToken
	for len(all) < *limit {
		res, err := svc.ListFailures(ctx, &v1.ListFailuresRequest{Filter: filter, PageSize: int32(min(*limit-len(all), 1000)), PageToken: token})
		if err != nil {
			fmt.Fprintln(stderr, "toolfailure failures list:", err)
			return 1
		}
		all = append(all, res.GetFailures()...)
		token = res.GetNextPageToken()
		if token == "" {
			break
		}
	}
	if *asJSON {
		return printJSON(stdout, stderr, &v1.ListFailuresResponse{Failures: all, NextPageToken: token})
	}
	tw := tabwriter.NewWriter(stdout, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "CREATED\tCORRELATION ID\tTOOL\tCLASS\tCODE")
	for _, f := range all {
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\n", f.GetCreatedAt().AsTime().UTC().Format(time.RFC3339), f.GetCorrelationId(), f.GetTool(), className(f.GetClass()), f.GetCode())
	}
	_ = tw.Flush()
	if token != "" {
		fmt.Fprintf(stdout, "\nmore: toolfailure failures list --page-token %s (with the same filters)\n", token)
	}
	return 0
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
