package mcpfailure

import (
	"context"
	"net/http"

	"connectrpc.com/connect/v2"
	"connectrpc.com/connect/v2/connecthttp"

	toolfailurev1 "github.com/omcp/toolfailure/gen/toolfailure/v1"
	"github.com/omcp/toolfailure/gen/toolfailure/v1/toolfailurev1connect"
)

// Classifier is what an Annotator needs of the toolfailure service: the
// Classify RPC. The generated toolfailurev1connect.ClassifierServiceClient
// satisfies it; so does anything else that can answer with the service's
// response, which is how a deployment can put its own cache or circuit
// breaker in between.
type Classifier interface {
	Classify(context.Context, *toolfailurev1.ClassifyRequest) (*toolfailurev1.ClassifyResponse, error)
}

// NewClassifierClient returns a ClassifierService client for the service
// at baseURL (for example "http://127.0.0.1:8080") that authenticates with
// apiKey, which needs the "report" scope. A nil httpClient means
// http.DefaultClient. The Annotator's budget bounds each call, so the HTTP
// client needs no timeout of its own.
func NewClassifierClient(httpClient *http.Client, baseURL, apiKey string) toolfailurev1connect.ClassifierServiceClient {
	return toolfailurev1connect.NewClassifierServiceClient(newConnectClient(httpClient, baseURL, apiKey))
}

// NewFailureClient returns a FailureService client, the support engineer's
// side: GetFailure looks up the correlation ID a user quoted. apiKey needs
// the "lookup" scope.
func NewFailureClient(httpClient *http.Client, baseURL, apiKey string) toolfailurev1connect.FailureServiceClient {
	return toolfailurev1connect.NewFailureServiceClient(newConnectClient(httpClient, baseURL, apiKey))
}

func newConnectClient(httpClient *http.Client, baseURL, apiKey string) *connect.Client {
	if httpClient == nil {
		httpClient = http.DefaultClient
	}
	return connect.NewClient(connecthttp.NewTransport(httpClient, baseURL), BearerAuth(apiKey))
}

// BearerAuth is a Connect client interceptor that sends apiKey as
// "Authorization: Bearer", the only credential the service accepts. It
// writes into the CallInfo already on the context when there is one, so a
// caller that attached its own (to read response headers) keeps it.
func BearerAuth(apiKey string) connect.ClientInterceptor {
	return func(next connect.ClientFunc) connect.ClientFunc {
		return func(ctx context.Context, spec connect.Spec) (connect.ClientStream, error) {
			info, ok := connect.CallInfoForClientContext(ctx)
			if !ok {
				ctx, info = connect.NewClientContext(ctx)
			}
			info.RequestHeader().Set("Authorization", "Bearer "+apiKey)
			return next(ctx, spec)
		}
	}
}
