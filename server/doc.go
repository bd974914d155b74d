// Package server is the ConnectRPC face of toolfailure: the handlers of
// ClassifierService, FailureService and RuleService, the interceptors that
// every call passes, and the HTTP wiring that serves Connect, gRPC and
// gRPC-Web on one port next to /livez, /readyz (alias /healthz), gRPC health
// and server reflection.
//
//	rules := server.NewRuleCache(s, log)
//	go rules.Run(ctx) // follow rule changes made on other replicas
//	h, err := server.New(server.Config{Store: s, Logger: log, Rules: rules})
//	...
//	srv := server.NewHTTPServer(h, log)
//	err = srv.Serve(ln)
//
// Config.Store is the small Store interface declared here, which both
// backends of package store satisfy; the zero Limits and RateLimit are the
// defaults that docs/reference.md lists. The package holds no SQL and no
// classification logic: it translates between the wire types of gen/ and the
// domain packages, and maps their errors to Connect codes.
//
// Interceptors run in this order, outermost first, as New installs them:
//
//  1. telemetry: a server span and a duration per RPC, first so that
//     refused calls and recovered panics are traced too;
//  2. access log: one line per RPC, refused calls included;
//  3. errors: the one place where the errors that handlers and the
//     interceptors below return become Connect codes, messages and details
//     (errors.go), and where a store outage is logged;
//  4. recover: a panic in a handler becomes an internal error, and the
//     process keeps serving;
//  5. auth: the bearer key becomes a tenant and its scopes before any
//     payload is decoded, so that an unauthenticated caller costs a header
//     read; a key without the service's scope gets permission_denied;
//  6. rate limit: the tenant's token bucket (Config.RateLimit), which needs
//     the principal that auth put in the context;
//  7. tenant gate: at most Limits.TenantInFlight calls of one tenant at
//     once, a call over it refused before its body is read, and for Classify
//     and Explain one of the tenant's Limits.RuleConcurrency slots before the
//     body is decoded and classified, so that one tenant's load cannot take
//     the replica from the others;
//  8. validate: the protovalidate rules of the .proto files, reported as
//     invalid_argument naming the field in its JSON spelling.
//
// Under them, the codecs refuse a Classify or Explain body whose
// error.details or error.attributes is certainly over its limit before
// decoding it, and the JSON codec refuses unknown fields rather than drop
// them. Reflection is served without the auth interceptor: it describes the
// public schema only.
package server
