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

	"github.com/omcp/toolfailure/correlation"
	v1 "github.com/omcp/toolfailure/gen/toolfailure/v1"
	"github.com/omcp/toolfailure/gen/toolfailure/v1/toolfailurev1connect"
	"github.com/omcp/toolfailure/internal/classify"
)

// ZeroWorkHandler is the baseline of the benchmark: the same framework, codecs and wire shape as
// the service, and nothing else. It checks the bearer key (a SHA-256 and a compare, as the service
// does on a cache hit), mints a random correlation ID and answers a fixed outcome in the exact
// response shape of Classify, _meta included. Whatever the service costs beyond this is the price
// of classifying, redacting and storing.
//
// With commitWait above zero every call also waits for a simulated group commit (see
// commitSimulator) before it is answered: what the service pays for waiting on its database,
// without the database. `toolfailure bench --zero-work-args "--commit-wait 1ms"` measures it.
func ZeroWorkHandler(key string, commitWait time.Duration) http.Handler {
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
	zw := zeroWork{}
	if commitWait > 0 {
		zw.commit = newCommitSimulator(commitWait)
	}
	toolfailurev1connect.RegisterClassifierServiceHandler(rpc, zw)
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
	commit *commitSimulator // nil: answer at once
}

func (z zeroWork) Classify(ctx context.Context, req *v1.ClassifyRequest) (*v1.ClassifyResponse, error) {
	if z.commit != nil {
		if err := z.commit.wait(ctx); err != nil {
			return nil, connect.NewError(connect.CodeCanceled, "wait for the simulated commit").WithCause(err)
		}
	}
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

// commitSimulator stands in for the store's group commit with the same pattern of waiting and
// waking: calls queue, one goroutine takes everything queued, "commits" it by sleeping for the
// commit's latency (no CPU, as the service's writer spends its commit waiting on PostgreSQL's
// socket), and then releases the whole batch; calls that arrive meanwhile form the next batch.
type commitSimulator struct {
	latency time.Duration
	queue   chan chan struct{}
}

func newCommitSimulator(latency time.Duration) *commitSimulator {
	c := &commitSimulator{latency: latency, queue: make(chan chan struct{}, 1024)}
	go c.run()
	return c
}

// wait queues the call and returns once its batch has been "committed".
func (c *commitSimulator) wait(ctx context.Context) error {
	done := make(chan struct{})
	select {
	case c.queue <- done:
	case <-ctx.Done():
		return ctx.Err()
	}
	select {
	case <-done:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// run commits batches for as long as the process lives (the zero-work handler is its own process).
func (c *commitSimulator) run() {
	var batch []chan struct{}
	for {
		batch = append(batch[:0], <-c.queue)
	drain:
		for {
			select {
			case done := <-c.queue:
				batch = append(batch, done)
			default:
				break drain
			}
		}
		time.Sleep(c.latency)
		for _, done := range batch {
			close(done)
		}
		clear(batch)
	}
}
