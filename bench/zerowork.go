package bench

import (
	"context"
	"crypto/sha256"
	"crypto/subtle"
	"net/http"
	"strings"
	"time"

	"connectrpc.com/connect/v2"
	"connectrpc.com/connect/v2/connecthttp"
	"connectrpc.com/connect/v2/connectproto"
	"google.golang.org/protobuf/types/known/structpb"
	"google.golang.org/protobuf/types/known/timestamppb"

	"github.com/omcp/toolfailure/classify"
	"github.com/omcp/toolfailure/correlation"
	v1 "github.com/omcp/toolfailure/gen/toolfailure/v1"
	"github.com/omcp/toolfailure/gen/toolfailure/v1/toolfailurev1connect"
)

// ZeroWorkHandler is the baseline of the benchmark: the same framework, codecs and wire shape as
// the service, and nothing else. It checks the bearer key (a SHA-256 and a compare, as the service
// does on a cache hit), mints a random correlation ID and answers a fixed outcome in the exact
// response shape of Classify, _meta included. Whatever the service costs beyond this is the price
// of classifying, redacting and storing.
func ZeroWorkHandler(key string) http.Handler {
	want := sha256.Sum256([]byte(key))
	rpc := connect.NewServer(func(next connect.ServerFunc) connect.ServerFunc {
		return func(ctx context.Context, spec connect.Spec, stream connect.ServerStream) error {
			info, ok := connect.CallInfoForServerContext(ctx)
			if !ok {
				return connect.NewError(connect.CodeInternal, "no call info")
			}
			token, _ := strings.CutPrefix(info.RequestHeader().Get("Authorization"), "Bearer ")
			got := sha256.Sum256([]byte(token))
			if subtle.ConstantTimeCompare(got[:], want[:]) != 1 {
				return connect.NewError(connect.CodeUnauthenticated, "unknown API key")
			}
			return next(ctx, spec, stream)
		}
	})
	toolfailurev1connect.RegisterClassifierServiceHandler(rpc, zeroWork{})
	mux := http.NewServeMux()
	strictJSON := connectproto.NewJSONCodec()
	strictJSON.UnmarshalOptions.DiscardUnknown = false
	connecthttp.Mount(mux, rpc, connecthttp.WithReadMaxBytes(1<<20),
		connecthttp.WithCodecs(connectproto.NewBinaryCodec(), strictJSON))
	mux.HandleFunc("GET /healthz", func(w http.ResponseWriter, _ *http.Request) { _, _ = w.Write([]byte("ok\n")) })
	return mux
}

type zeroWork struct {
	toolfailurev1connect.UnimplementedClassifierServiceHandler
}

func (zeroWork) Classify(_ context.Context, req *v1.ClassifyRequest) (*v1.ClassifyResponse, error) {
	now := time.Now()
	id, err := correlation.New(now)
	if err != nil {
		return nil, connect.NewError(connect.CodeInternal, "mint ID").WithCause(err)
	}
	cid := id.String()
	out := classify.Outcome{
		Class: classify.Reliability, Code: "retryable_transient_error", Retryable: true,
		RetryNotBefore: now.Add(30 * time.Second).Truncate(time.Millisecond),
		AgentGuidance:  "Wait 30 s, then retry the same call.", RuleID: "baseline",
	}
	meta, err := structpb.NewStruct(map[string]any{classify.MetaKey: out.Meta(cid)})
	if err != nil {
		return nil, connect.NewError(connect.CodeInternal, "encode meta").WithCause(err)
	}
	_ = req.GetTool()
	return &v1.ClassifyResponse{
		ToolFailure: &v1.ToolFailure{
			Class: v1.Class_CLASS_RELIABILITY, Code: out.Code, Retryable: true,
			RetryNotBefore: timestamppb.New(out.RetryNotBefore), CorrelationId: cid,
			AgentGuidance: out.AgentGuidance,
		},
		Meta:   meta,
		RuleId: out.RuleID,
	}, nil
}
