package peers

// Polly is .NET's HttpPolicyExtensions.HandleTransientHttpError from
// Polly.Extensions.Http 3.0.0 (the package Microsoft.Extensions.Http.Polly
// builds on; src/Polly.Extensions.Http/HttpPolicyExtensions.cs,
// https://github.com/App-vNext/Polly.Extensions.Http/blob/93b91c4359f436bda37f870c4453f25555b9bfd8/src/Polly.Extensions.Http/HttpPolicyExtensions.cs):
// Policy<HttpResponseMessage>.Handle<HttpRequestException>() for network
// failures, OrTransientHttpStatusCode() for a status of 500 and above or 408.
//
// What it sees: the status, and an exception type of HttpRequestException
// (handled whatever status it carries); a failure to connect counts as one
// (HttpClient wraps it in an HttpRequestException), so an errno name of
// connectFailures in the type or the body's code does. A message-only error
// is not retried.
var Polly = Peer{
	Name:    "Polly HandleTransientHttpError",
	Version: "Polly.Extensions.Http 3.0.0",
	Rule:    "retries 408, 5xx and HttpRequestException (network failures)",
	Source:  "https://github.com/App-vNext/Polly.Extensions.Http/blob/93b91c4359f436bda37f870c4453f25555b9bfd8/src/Polly.Extensions.Http/HttpPolicyExtensions.cs",
	Sees:    "the status and an HttpRequestException type; an errno name counts as a network failure; a message-only error is not retried",
	Decide:  retryOnly(pollyRetries),
}

func pollyRetries(f Failure) bool {
	if f.Name() == "HttpRequestException" || anyIn(f.names(), connectFailures...) {
		return true
	}
	return f.HTTPStatus >= 500 || f.HTTPStatus == 408
}
