package conformance

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"strconv"
	"time"
)

// Report prints each violation on a line of its own, as
//
//	path: MUST rule-id at /pointer: message
//
// The file name comes first, in the form compilers and linters use, so that
// editors and CI systems can turn the lines into annotations.
func Report(w io.Writer, path string, vs []Violation) {
	for _, v := range vs {
		fmt.Fprintf(w, "%s: %s\n", path, v)
	}
}

const usage = `usage: toolfailure conform [--strict] [--now TIME] [--protocol-version V] FILE...

Checks each FILE, a CallToolResult or a JSON-RPC response that holds one,
against the official MCP schema (%s) and the rules of the toolFailure
proposal, and prints every finding as

  FILE: MUST rule-id at /json/pointer: message

MUST findings break the proposal and make the exit status 1. SHOULD findings
are advice: they are printed but do not change the exit status unless
--strict is given. A file that passes is reported as "FILE: ok", with the
number of warnings if there are any.

Flags:
  --strict     fail on SHOULD findings too
  --now TIME   judge retryNotBefore as of TIME (RFC 3339 or Unix epoch
               milliseconds) instead of the current time, for documents
               captured earlier
  --protocol-version V
               the MCP protocol version the results were sent under; from
               2026-07-28 on a result must carry resultType (earlier
               versions, and an unknown one, do not have it)

Exit status: 0 when every file conforms, 1 when any does not (or cannot be
read or parsed), 2 on a usage error.
`

// Main runs the conform command: args are the arguments after the command
// name. It returns the exit status instead of exiting so that the
// toolfailure binary can call it and tests can run it in-process.
//
// SHOULD findings do not fail the run by default: they include judgements
// (a retry time more than a day away, guidance that looks like a secret)
// that can be wrong for a particular document, and a CI gate that fails on
// a heuristic gets switched off. --strict makes them fail for those who
// want exactly that.
func Main(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("conform", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	strict := fs.Bool("strict", false, "fail on SHOULD findings too")
	nowFlag := fs.String("now", "", "judge retryNotBefore as of this time")
	version := fs.String("protocol-version", "", "the MCP protocol version the results were sent under")

	// Flags may come before or after the files (conform a.json --strict),
	// so parsing resumes after each file name. "--" ends flag parsing.
	var files []string
	for {
		if err := fs.Parse(args); err != nil {
			if errors.Is(err, flag.ErrHelp) {
				fmt.Fprintf(stdout, usage, MCPSchemaVersion)
				return 0
			}
			fmt.Fprintf(stderr, "toolfailure conform: %v\n\n"+usage, err, MCPSchemaVersion)
			return 2
		}
		rest := fs.Args()
		if len(rest) == 0 {
			break
		}
		if len(args) > len(rest) && args[len(args)-len(rest)-1] == "--" {
			files = append(files, rest...)
			break
		}
		files = append(files, rest[0])
		args = rest[1:]
	}
	if len(files) == 0 {
		fmt.Fprintf(stderr, "toolfailure conform: no files given\n\n"+usage, MCPSchemaVersion)
		return 2
	}

	checker := &Checker{ProtocolVersion: *version}
	if *nowFlag != "" {
		now, err := parseNow(*nowFlag)
		if err != nil {
			fmt.Fprintf(stderr, "toolfailure conform: --now: %v\n", err)
			return 2
		}
		checker.Now = func() time.Time { return now }
	}

	status := 0
	for _, path := range files {
		vs, err := checker.CheckFile(path)
		if err != nil {
			fmt.Fprintf(stderr, "%s: %v\n", path, err)
			status = 1
			continue
		}
		Report(stdout, path, vs)
		switch {
		case !Conforms(vs), *strict && len(vs) > 0:
			status = 1
		case len(vs) > 0:
			fmt.Fprintf(stdout, "%s: ok (%d %s)\n", path, len(vs), plural(len(vs), "warning"))
		default:
			fmt.Fprintf(stdout, "%s: ok\n", path)
		}
	}
	return status
}

// parseNow accepts RFC 3339 (what people type) or epoch milliseconds (what
// retryNotBefore and log lines carry).
func parseNow(s string) (time.Time, error) {
	if ms, err := strconv.ParseInt(s, 10, 64); err == nil {
		return time.UnixMilli(ms), nil
	}
	t, err := time.Parse(time.RFC3339, s)
	if err != nil {
		return time.Time{}, fmt.Errorf("%q is neither RFC 3339 nor Unix epoch milliseconds", s)
	}
	return t, nil
}

func plural(n int, word string) string {
	if n == 1 {
		return word
	}
	return word + "s"
}
