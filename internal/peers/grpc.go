package peers

// GRPC is the retry policy that gRPC's A6 (client retries,
// https://github.com/grpc/proposal/blob/master/A6-client-retries.md) leaves to
// configuration and that AIP-194 fixes for Google APIs
// (https://google.aip.dev/194): retry UNAVAILABLE (code 14), and no other code.
// Over HTTP/JSON, AIP-193's mapping gives UNAVAILABLE the status 503.
//
// What it sees: the gRPC code; without one, a status of 503 as UNAVAILABLE.
// A message-only error, or a network error without a code, is not retried.
var GRPC = Peer{
	Name:    "gRPC A6 / AIP-194",
	Version: "AIP-194 as published",
	Rule:    "retries UNAVAILABLE only (HTTP 503 when there is no gRPC code)",
	Source:  "https://google.aip.dev/194",
	Sees:    "the gRPC code, else a 503 status; a message-only error is not retried",
	Decide:  retryOnly(grpcRetries),
}

const grpcUnavailable = 14

func grpcRetries(f Failure) bool {
	if f.GRPCCode >= 0 {
		return f.GRPCCode == grpcUnavailable
	}
	return f.HTTPStatus == 503
}
