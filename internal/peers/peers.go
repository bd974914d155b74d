// Package peers holds faithful implementations of the retry rules that agent
// frameworks and client libraries ship today, so that the benchmark
// (`toolfailure bench classify --peers`) can score them beside the service on
// the same cases. Each rule is a few lines that follow one published source
// at one version, named in its doc comment; its tests are that source's own
// documented examples.
//
// A peer sees of a failure only what its rule reads (Failure): the HTTP
// status, the gRPC code, the exception type, and the error codes a client
// library takes from the response or the exception. A rule that needs a
// status gets none from a message-only error; an exception type is seen where
// the rule reads one; an errno name counts as a network error where the rule
// says network. No peer reads the message's meaning, except where its source
// compares the message of one exception type with fixed strings (a fetch
// TypeError's "fetch failed").
//
// Most peers decide only whether to retry, and are scored only on that.
// LiteLLM maps a status to an exception class, which names a class and code
// of the proposal's closed set; it is scored on those too.
package peers

import (
	"slices"
	"strings"

	"github.com/omcp/toolfailure/internal/corpus"
)

// Failure is what a peer's rule can see of a failed call.
type Failure struct {
	// HTTPStatus is the response's status, 0 when there was none.
	HTTPStatus int
	// GRPCCode is the gRPC status code, -1 when there was none.
	GRPCCode int
	// Type is the exception class or error name as reported
	// ("requests.exceptions.HTTPError", "ThrottlingException", "ECONNRESET").
	Type string
	// Message is the error's text. Rules read it only where their source
	// compares one exception type's message with fixed strings.
	Message string
	// Codes are the error codes a client library reads from the error
	// body or the exception object: the body's code, Code, Error.Code,
	// __type (the part after '#') and name, and a Node.js system error's
	// code (also under cause.code).
	Codes []string
}

// See is what a peer sees of a corpus case's error.
func See(e *corpus.Error) Failure {
	f := Failure{GRPCCode: -1, Type: e.Type, Message: e.Message}
	if e.HTTPStatus != nil {
		f.HTTPStatus = int(*e.HTTPStatus)
	}
	if e.GRPCCode != nil {
		f.GRPCCode = int(*e.GRPCCode)
	}
	d, _ := e.Details.(map[string]any)
	add := func(v any) {
		if s, ok := v.(string); ok && s != "" && !slices.Contains(f.Codes, s) {
			f.Codes = append(f.Codes, s)
		}
	}
	for _, k := range []string{"code", "Code", "errno", "name"} {
		add(d[k])
	}
	if t, ok := d["__type"].(string); ok {
		if i := strings.LastIndexByte(t, '#'); i >= 0 {
			t = t[i+1:]
		}
		t, _, _ = strings.Cut(t, ":")
		add(t)
	}
	for _, k := range []string{"Error", "cause"} {
		if m, ok := d[k].(map[string]any); ok {
			add(m["Code"])
			add(m["code"])
		}
	}
	return f
}

// Name is the type without its package or namespace: "HTTPError" for
// "requests.exceptions.HTTPError", "OperationError" for
// "*smithy.OperationError", the name a JavaScript error carries.
func (f *Failure) Name() string {
	t := strings.TrimLeft(f.Type, "*")
	if i := strings.LastIndexAny(t, ".:\\/"); i >= 0 {
		t = t[i+1:]
	}
	return t
}

// names are the type's name and the codes: everything a rule that reads an
// error's name or code can see.
func (f *Failure) names() []string {
	out := make([]string, 0, 1+len(f.Codes))
	if n := f.Name(); n != "" {
		out = append(out, n)
	}
	return append(out, f.Codes...)
}

// anyIn reports whether one of the names is in the set.
func anyIn(names []string, set ...string) bool {
	for _, n := range names {
		if slices.Contains(set, n) {
			return true
		}
	}
	return false
}

// connectFailures are the system error codes of a call that never got a
// response: refused, reset, timed out, unreachable, no such host, TLS
// trust failures. In Node.js, fetch reports each of them as a TypeError
// "fetch failed" whose cause carries the code; in .NET, HttpClient reports
// each as an HttpRequestException around the SocketException or
// AuthenticationException. Their POSIX errno names, getaddrinfo codes,
// undici's codes and OpenSSL's verification codes (as Node names them).
var connectFailures = []string{
	"ECONNREFUSED", "ECONNRESET", "ECONNABORTED", "ETIMEDOUT", "EPIPE", "EHOSTUNREACH", "EHOSTDOWN",
	"ENETUNREACH", "ENETDOWN", "ENETRESET", "ENOTCONN", "ESHUTDOWN", "ENOTFOUND", "EAI_AGAIN", "EAI_NONAME",
	"EAI_FAIL", "UND_ERR_SOCKET", "UND_ERR_CONNECT_TIMEOUT", "UND_ERR_HEADERS_TIMEOUT", "UND_ERR_BODY_TIMEOUT",
	"CERT_HAS_EXPIRED", "DEPTH_ZERO_SELF_SIGNED_CERT", "SELF_SIGNED_CERT_IN_CHAIN", "UNABLE_TO_VERIFY_LEAF_SIGNATURE",
	"UNABLE_TO_GET_ISSUER_CERT_LOCALLY", "ERR_TLS_CERT_ALTNAME_INVALID",
}

// Decision is what a peer's rule decides for one failure.
type Decision struct {
	Retry bool
	// Class and Code are the proposal's class and code that the peer's
	// kind of failure names, for a peer that names one (Classifies); empty
	// when it names none (a generic APIError).
	Class, Code string
}

// Peer is one published rule.
type Peer struct {
	// Name is the library, Version the version its rule was read at.
	Name, Version string
	// Rule says in one line what it retries.
	Rule string
	// Source is where the rule is published (code or documentation).
	Source string
	// Sees says what the rule sees of a message-only or exception-only
	// error.
	Sees string
	// Classifies is set for a peer whose decision names a class and code;
	// the others are scored on the retry decision only.
	Classifies bool
	// Decide applies the rule.
	Decide func(Failure) Decision
}

// All returns the peers in a fixed order.
func All() []Peer {
	return []Peer{AISDK, AWSStandard, Polly, LangGraph, GRPC, LiteLLM}
}

// retryOnly makes a Decide of a rule that only decides retry.
func retryOnly(rule func(Failure) bool) func(Failure) Decision {
	return func(f Failure) Decision { return Decision{Retry: rule(f)} }
}
