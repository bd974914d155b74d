// Package server is the ConnectRPC face of toolfailure: the handlers of
// ClassifierService and FailureService, the interceptors that authenticate,
// validate and contain every call, and the HTTP wiring that serves Connect,
// gRPC and gRPC-Web on one port next to /healthz, gRPC health and reflection.
//
// The package holds no SQL and no classification logic. It translates
// between the wire types in gen/ and the domain packages (classify, redact,
// correlation) and keeps to the store through the small Store interface
// declared here, which is all it needs of a backend.
//
// Interceptors run in this order, outermost first: recover (a panic becomes
// an internal error, the process keeps serving), auth (before any payload is
// decoded, so an unauthenticated caller costs a header read), validate
// (protovalidate rules from the .proto files, reported as invalid_argument
// naming the field in its JSON spelling).
package server
