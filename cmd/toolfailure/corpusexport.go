package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"time"

	"github.com/spf13/cobra"

	"github.com/omcp/toolfailure/gen/toolfailure/v1/toolfailurev1connect"
	"github.com/omcp/toolfailure/internal/classify"
	"github.com/omcp/toolfailure/internal/corpus"
	"github.com/omcp/toolfailure/internal/redact"

	v1 "github.com/omcp/toolfailure/gen/toolfailure/v1"
)

func newCorpusCmd() *cobra.Command {
	return groupCmd("corpus", "Export the tenant's failures as a labelled corpus",
		"  toolfailure corpus export --since 168h -o mine.jsonl", newCorpusExportCmd())
}

func newCorpusExportCmd() *cobra.Command {
	var (
		cf                clientFlags
		since, until, out string
	)
	cmd := &cobra.Command{
		Use:   "export --since DURATION|RFC3339 [--until …] [-o FILE] [flags]",
		Short: "Write the tenant's failure records in the corpus format, each with a provisional label",
		Long: `Write the tenant's failure records of a time window (the key's tenant, through the
service, as "failures list" reads them), newest first, in the corpus format of corpus/README.md:
one JSON object per line with the correlation ID as its id, the tool, the error as stored (the
service redacted its secrets; anything the redactor would still remove, such as a secret in a
Retry-After value or a tool name, is redacted here too), the MCP server's label as its system,
and the service's decision as a provisional label ("expect"), marked "confirmed": false.

Correct each label by the conventions of docs/classification.md, set "confirmed": true, and
"toolfailure bench classify --corpus FILE [--rules rules.yaml]" scores the baseline and your
rules on your own traffic; it leaves unconfirmed cases out.`,
		Example: `  toolfailure corpus export --since 168h -o mine.jsonl
  toolfailure corpus export --since 2026-06-01T00:00:00Z --until 2026-06-02T00:00:00Z --server https://toolfailure.example.com`,
		Args: noArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if since == "" {
				return usageErrorf("--since is required: a duration ago (168h) or an RFC 3339 time")
			}
			filter := &v1.FailureFilter{}
			if err := parseWindow(since, until, &filter.Since, &filter.Until); err != nil {
				return err
			}
			client, err := cf.client()
			if err != nil {
				return err
			}
			w, commit, abort, err := exportTarget(out, cmd.OutOrStdout())
			if err != nil {
				return failed(err)
			}
			n, err := exportCorpus(cmd, toolfailurev1connect.NewFailureServiceClient(client), filter, w, time.Now())
			if err != nil {
				abort()
				return failed(err)
			}
			if err := commit(); err != nil {
				return failed(err)
			}
			where := "standard output"
			if out != "" {
				where = out
			}
			fmt.Fprintf(cmd.ErrOrStderr(), "toolfailure corpus export: %d records to %s, each \"confirmed\": false until you check its label\n", n, where)
			return nil
		},
	}
	fs := cmd.Flags()
	cf = addClientFlags(fs)
	fs.StringVar(&since, "since", "", "RFC 3339 time or a duration ago such as 168h (required)")
	fs.StringVar(&until, "until", "", "RFC 3339 time or a duration ago")
	fs.StringVarP(&out, "out", "o", "", "write to this file instead of standard output")
	_ = cmd.MarkFlagFilename("out", "jsonl")
	return cmd
}

// exportTarget is where the export goes: standard output, or a file that
// appears whole once commit is called (a temporary file renamed), and not
// at all after abort.
func exportTarget(path string, stdout io.Writer) (w *bufio.Writer, commit func() error, abort func(), err error) {
	if path == "" {
		w = bufio.NewWriter(stdout)
		return w, w.Flush, func() { _ = w.Flush() }, nil
	}
	f, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".*")
	if err != nil {
		return nil, nil, nil, err
	}
	w = bufio.NewWriter(f)
	commit = func() error {
		err := w.Flush()
		if cerr := f.Close(); err == nil {
			err = cerr
		}
		if err == nil {
			err = os.Rename(f.Name(), path)
		}
		if err != nil {
			_ = os.Remove(f.Name())
		}
		return err
	}
	abort = func() {
		_ = f.Close()
		_ = os.Remove(f.Name())
	}
	return w, commit, abort, nil
}

// exportedCase is one line of an export: a corpus case (corpus.Case's
// fields, in its order) with "confirmed".
type exportedCase struct {
	ID     string       `json:"id"`
	System string       `json:"system,omitempty"`
	Source string       `json:"source"`
	Tool   string       `json:"tool"`
	Error  corpus.Error `json:"error"`
	Expect struct {
		Class     string `json:"class"`
		Code      string `json:"code"`
		Retryable bool   `json:"retryable"`
	} `json:"expect"`
	Confirmed bool   `json:"confirmed"`
	Note      string `json:"note,omitempty"`
}

// exportCorpus pages through the tenant's records in the window and writes
// each as a corpus line; it returns how many it wrote.
func exportCorpus(cmd *cobra.Command, svc toolfailurev1connect.FailureServiceClient, filter *v1.FailureFilter, w io.Writer, now time.Time) (int, error) {
	source := "exported from toolfailure " + now.UTC().Format(time.DateOnly)
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	n, token := 0, ""
	for {
		res, err := svc.ListFailures(cmd.Context(), &v1.ListFailuresRequest{Filter: filter, PageSize: maxPageSize, PageToken: token})
		if err != nil {
			return n, err
		}
		for _, f := range res.GetFailures() {
			if err := enc.Encode(exportRecord(f, source)); err != nil {
				return n, fmt.Errorf("record %s: %w", f.GetCorrelationId(), err)
			}
			n++
		}
		token = res.GetNextPageToken()
		if token == "" || len(res.GetFailures()) == 0 {
			return n, nil
		}
	}
}

// exportRecord is a record as a corpus case. Its error is as the service
// stored it, which redacted it; every string is passed through the
// redactor again all the same, since the store keeps some fields as they
// came (a Retry-After value, the tool's and the server's names), and an
// export must never hold what the redactor would remove. The label is the
// service's decision, retryable exactly for reliability as the corpus has
// it (every corpus request is sent as idempotent).
func exportRecord(f *v1.Failure, source string) exportedCase {
	e := f.GetError()
	c := exportedCase{
		ID:     f.GetCorrelationId(),
		System: redact.String(f.GetServer()),
		Source: source,
		Tool:   redact.String(f.GetTool()),
		Error: corpus.Error{
			Message:     redact.String(e.GetMessage()),
			Type:        redact.String(e.GetType()),
			HTTPStatus:  e.HttpStatus,
			GRPCCode:    e.GrpcCode,
			JSONRPCCode: e.JsonrpcCode,
			RetryAfter:  redact.String(e.GetRetryAfter()),
			Attributes:  redact.Map(e.GetAttributes()),
		},
	}
	if d := e.GetDetails(); d != nil {
		c.Error.Details = redact.Value(d.AsInterface())
	}
	class := className(f.GetClass())
	c.Expect.Class, c.Expect.Code = class, f.GetCode()
	c.Expect.Retryable = class == string(classify.Reliability)
	if id := f.GetRuleId(); id != "" {
		c.Note = "provisional label: the service's decision, by " + redact.String(id)
	}
	return c
}
