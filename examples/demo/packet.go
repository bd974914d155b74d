package main

import (
	"fmt"
	"io"
	"strings"

	"github.com/omcp/toolfailure/conformance"
)

// place is where a requirement is implemented: a file of the repository and
// the function, type or rule in it that does the work.
type place struct{ file, symbol string }

func (p place) String() string { return p.file + " " + p.symbol }

// The places, named once: most rows are kept by the same few pieces.
var (
	serviceObject  = place{"internal/classify/classify.go", "Outcome.Meta"}
	serviceCheck   = place{"internal/classify/classify.go", "Outcome.Validate"}
	middlewareObj  = place{"mcpfailure/annotator.go", "metaObject"}
	middlewareAnn  = place{"mcpfailure/annotator.go", "Annotator.annotate"}
	proxyAnnotate  = place{"internal/mcpproxy/failure.go", "session.annotate"}
	proxySplice    = place{"internal/mcpproxy/failure.go", "withMetaKey"}
	proxyRelay     = place{"internal/mcpproxy/proxy.go", "session.upstreamMessage"}
	proxyErrors    = place{"internal/mcpproxy/failure.go", "session.recordAndSendError"}
	middlewareErrs = place{"mcpfailure/protocolerror.go", "WithCorrelationID"}
	reporterObj    = place{"sdk/typescript/src/reporter.ts", "metaObject"}
	reporterAnn    = place{"sdk/typescript/src/reporter.ts", "annotate"}
	goParse        = place{"mcpfailure/toolfailure.go", "parseObject"}
	goDispatcher   = place{"mcpfailure/dispatcher.go", "Dispatcher.CallTool"}
	tsDispatcher   = place{"sdk/typescript/src/dispatch.ts", "callToolWithPolicy"}
	checker        = func(rule string) place { return place{"conformance/rules.go", rule} }
)

// implementedIn maps each check of sep-3313.yaml to the code that keeps the
// requirement. It is the one hand-kept part of the packet; TestPacket holds
// it to the yaml (every check has an entry, no entry is stale) and to the
// code (every file exists and names its symbol).
var implementedIn = map[string][]place{
	"sep-3313-class-closed-set":                      {serviceCheck, goParse, middlewareObj, reporterObj, checker("class-unknown")},
	"sep-3313-code-non-empty-string":                 {serviceCheck, goParse, middlewareObj, reporterObj, checker("code-empty")},
	"sep-3313-retryable-only-reliability":            {serviceObject, goParse, checker("retryable-only-reliability")},
	"sep-3313-retry-not-before-epoch-ms":             {serviceObject, middlewareObj, goParse, checker("retry-not-before-integer")},
	"sep-3313-retry-not-before-only-when-retryable":  {serviceObject, goParse, checker("retry-not-before-requires-retryable")},
	"sep-3313-correlation-id":                        {place{"correlation/correlation.go", "New"}, serviceObject, checker("correlation-id-prefix")},
	"sep-3313-agent-guidance":                        {serviceCheck, checker("agent-guidance-length")},
	"sep-3313-no-other-fields":                       {serviceObject, checker("unknown-key")},
	"sep-3313-baseline-code-class":                   {place{"internal/classify/classify.go", "BaselineCodes"}, checker("code-class-mismatch")},
	"sep-3313-key-only-on-error":                     {middlewareAnn, place{"internal/mcpproxy/message.go", "isErrorResult"}, reporterAnn, checker("key-on-non-error")},
	"sep-3313-no-key-in-jsonrpc-error":               {middlewareErrs, proxyErrors, checker("key-on-protocol-error")},
	"sep-3313-task-result-carries-key":               {place{"internal/mcpproxy/task.go", "session.annotateTask"}, place{"internal/mcpproxy/task.go", "session.annotateInTask"}},
	"sep-3313-keeps-text-content":                    {middlewareAnn, proxySplice, reporterAnn},
	"sep-3313-keeps-other-meta":                      {middlewareAnn, proxySplice, reporterAnn},
	"sep-3313-relay-passes-object-unchanged":         {proxyAnnotate, middlewareAnn},
	"sep-3313-relay-no-error-conversion":             {proxyRelay, proxyErrors},
	"sep-3313-read-only-idempotent-hint":             {place{"examples/conformance-server/main.go", "ReadOnlyHint: true, IdempotentHint: true"}},
	"sep-3313-client-no-retry-capability":            {goDispatcher, tsDispatcher},
	"sep-3313-client-no-retry-governance":            {goDispatcher, tsDispatcher},
	"sep-3313-client-retry-requires-retryable":       {goDispatcher, tsDispatcher},
	"sep-3313-client-retry-requires-idempotent-hint": {place{"mcpfailure/dispatcher.go", "Dispatcher.idempotent"}, tsDispatcher},
	"sep-3313-client-retry-not-before":               {place{"mcpfailure/dispatcher.go", "Dispatcher.nextAttempt"}, tsDispatcher},
	"sep-3313-client-retry-bounded":                  {place{"mcpfailure/dispatcher.go", "DispatcherConfig"}, tsDispatcher},
	"sep-3313-client-ignore-malformed":               {goParse, place{"sdk/typescript/src/failure.ts", "parseObject"}},
}

// packetHeading starts the reviewer's table in the demo's output.
const packetHeading = "Where each requirement of the proposal is implemented and tested"

// printPacket prints the reviewer's table: every row of the official
// scenario's traceability file, its wording, the code that keeps it, the
// scenario check that tests it (with the status traceability.json records
// for the runs against this repository's servers and clients) and the
// defects of the negative example that must fail it; and, for a row that
// cannot be tested on the wire, why.
func printPacket(w io.Writer, part int) error {
	tr, err := conformance.SEP3313()
	if err != nil {
		return fmt.Errorf("read the scenario's traceability: %w", err)
	}
	fmt.Fprintf(w, "\nPart %d: %s\n", part, packetHeading)
	fmt.Fprintf(w, "  generated from %s/src/seps/sep-3313.yaml and traceability.json", conformance.SEPDir)
	fmt.Fprintf(w, " (tested %d, untested %d, excluded %d)\n", tr.Summary["tested"], tr.Summary["untested"], tr.Summary["excluded"])
	fmt.Fprintf(w, "  the scenario runs against the Go middleware, the proxy and the Go and TypeScript clients in\n")
	fmt.Fprintf(w, "    TOOLFAILURE_REQUIRE_NODE=1 go test ./examples/conformance-server/ -run TestSEP3313\n")
	for i, r := range tr.Requirements {
		fmt.Fprintln(w)
		if r.Check == "" {
			fmt.Fprintf(w, "  %2d. (excluded) %s\n", i+1, r.Text)
			fmt.Fprintf(w, "      why          %s\n", r.Excluded)
			continue
		}
		fmt.Fprintf(w, "  %2d. %s  [%s]\n", i+1, r.Check, r.Status)
		fmt.Fprintf(w, "      requirement  %s\n", r.Text)
		places := implementedIn[r.Check]
		for j, p := range places {
			label := "implemented "
			if j > 0 {
				label = "            "
			}
			fmt.Fprintf(w, "      %s %s\n", label, p)
		}
		if len(places) == 0 {
			fmt.Fprintf(w, "      implemented  (not mapped)\n")
		}
		fmt.Fprintf(w, "      tested       scenario %s, %s/%s\n", r.Scenario, conformance.SEPDir, r.ScenarioFile)
		if len(r.Negative) > 0 {
			fmt.Fprintf(w, "      must fail    %s, in %s/%s\n", strings.Join(r.Negative, ", "), conformance.SEPDir, r.NegativeFile)
		}
	}
	return nil
}
