package server

import (
	"context"
	"errors"
	"log/slog"
	"math"
	"strconv"
	"time"

	"connectrpc.com/connect/v2"
	"connectrpc.com/connect/v2/connectproto"
	"google.golang.org/genproto/googleapis/rpc/errdetails"
	"google.golang.org/protobuf/types/known/durationpb"
	"google.golang.org/protobuf/types/known/timestamppb"

	"github.com/omcp/toolfailure/internal/auth"
	"github.com/omcp/toolfailure/store"
)

// Handlers and interceptors refuse a call with the errors built below, which say what went wrong
// in the service's terms; connectError alone turns them into what the caller gets (the Connect
// code, the public message, the details and the Retry-After header) and logs the store outages.

// refusal is a call's answer other than a store outage: its Connect code, the public message and
// a private cause.
type refusal struct {
	code  connect.Code
	msg   string
	cause error
	// retryAfter, for resource_exhausted, is when the caller may come back: sent as a
	// google.rpc.RetryInfo detail (which gRPC and Connect clients read), in the Retry-After
	// header (whole seconds, rounded up), and already in the message, for people.
	retryAfter time.Duration
}

// Error is the text *connect.Error gives for the same answer, so that a refusal logged or wrapped
// on its way reads as the answer does.
func (r *refusal) Error() string { return r.code.String() + ": " + r.msg }

func (r *refusal) Unwrap() error { return r.cause }

// connectError is the refusal as Connect sends it.
func (r *refusal) connectError() *connect.Error {
	err := connect.NewError(r.code, r.msg).WithCause(r.cause)
	if r.retryAfter > 0 {
		if detail, derr := connectproto.NewErrorDetail(&errdetails.RetryInfo{RetryDelay: durationpb.New(r.retryAfter)}); derr == nil {
			err = err.WithDetail(detail)
		}
	}
	return err
}

// invalid refuses a request for one of its fields, named in its JSON spelling:
// "invalid request: field: msg". An empty field or msg is left out (protovalidate's answer joins
// several fields in msg).
func invalid(field, msg string) error {
	text := "invalid request"
	if field != "" {
		text += ": " + field
	}
	if msg != "" {
		text += ": " + msg
	}
	return &refusal{code: connect.CodeInvalidArgument, msg: text}
}

// invalidTime checks a timestamp of the request, which the binary protocol can carry outside the
// years 1 to 9999 that JSON can, and answers one that is not valid as invalid naming field.
func invalidTime(ts *timestamppb.Timestamp, field string) error {
	if err := ts.CheckValid(); err != nil {
		return invalid(field, err.Error())
	}
	return nil
}

// errBadPageToken answers a page token that no earlier page handed out.
var errBadPageToken = invalid("pageToken", "not a token from a previous page")

// refused is invalid_argument in words made elsewhere, sent as they are: the limits that the
// codecs enforce too (bodylimits.go), and the rule checker's, which name the rule and the
// position themselves.
func refused(msg string) error { return &refusal{code: connect.CodeInvalidArgument, msg: msg} }

func notFound(msg string) error      { return &refusal{code: connect.CodeNotFound, msg: msg} }
func alreadyExists(msg string) error { return &refusal{code: connect.CodeAlreadyExists, msg: msg} }
func aborted(msg string) error       { return &refusal{code: connect.CodeAborted, msg: msg} }
func unimplemented(msg string) error { return &refusal{code: connect.CodeUnimplemented, msg: msg} }

func unauthenticated(msg string) error {
	return &refusal{code: connect.CodeUnauthenticated, msg: msg}
}

// permissionDenied refuses a key that lacks the scope of the service it called.
func permissionDenied(scope string) error {
	return &refusal{code: connect.CodePermissionDenied, msg: "this API key lacks the " + scope + " scope"}
}

// exhausted refuses a call over one of the tenant's limits; msg says when to retry, as
// retryAfter does for clients.
func exhausted(msg string, retryAfter time.Duration) *refusal {
	return &refusal{code: connect.CodeResourceExhausted, msg: msg, retryAfter: retryAfter}
}

// internal is the service's own fault; the cause stays in the process.
func internal(msg string, cause error) error {
	return &refusal{code: connect.CodeInternal, msg: msg, cause: cause}
}

// principal is the caller that the auth interceptor authenticated. Every handler runs under it, so
// its absence is a call that reached a handler some other way.
func principal(ctx context.Context) (auth.Principal, error) {
	p, ok := auth.FromContext(ctx)
	if !ok {
		return auth.Principal{}, unauthenticated("unauthenticated")
	}
	return p, nil
}

// callerGone returns the error for a call whose own context ended before the store answered: its
// deadline passed (Connect-Timeout-Ms, grpc-timeout) or the caller went away. That is the caller's
// doing, not an outage of the store, so it is deadline_exceeded or canceled rather than
// unavailable, and nothing is logged as an error. It returns nil while ctx is live.
func callerGone(ctx context.Context, cause error) error {
	switch err := ctx.Err(); {
	case err == nil:
		return nil
	case errors.Is(err, context.DeadlineExceeded):
		return &refusal{code: connect.CodeDeadlineExceeded, msg: "the call's deadline passed before it finished", cause: cause}
	default:
		return &refusal{code: connect.CodeCanceled, msg: "the call was cancelled before it finished", cause: cause}
	}
}

// evalStopped is the answer to a call whose rule evaluation stopped because its caller went away
// (callerGone's answer).
func evalStopped(ctx context.Context, err error) error {
	if gone := callerGone(ctx, err); gone != nil {
		return gone
	}
	return internal("rule evaluation stopped", err)
}

// storeDamaged is the answer of a call that met a damaged store (store.ErrCorrupt).
const storeDamaged = "the service's store is damaged and cannot answer until its operator restores it"

// lookupFailed is the answer of a read that the store could not serve.
const lookupFailed = "lookup failed; retry shortly"

// storeOutage is a store that failed a call that was still waiting for it: logged as an error
// (what, with logAttrs, and the cause) when it is answered, with unavailable and msg, which should
// say to retry, or, for a store whose data is damaged (store.ErrCorrupt), data_loss.
type storeOutage struct {
	what     string
	logAttrs []any
	msg      string
	err      error
}

func (o *storeOutage) Error() string { return o.what + ": " + o.err.Error() }

func (o *storeOutage) Unwrap() error { return o.err }

// storeFailed answers an error of the store that is neither not_found nor invalid: callerGone's
// answer when the caller's own context has ended (decided now, while the call is where it met the
// store), else a storeOutage of the tenant.
func storeFailed(ctx context.Context, what string, tenantID int64, msg string, err error) error {
	if gone := callerGone(ctx, err); gone != nil {
		return gone
	}
	return &storeOutage{what: what, logAttrs: []any{"tenant", tenantID}, msg: msg, err: err}
}

// connectError is the one mapping from the errors above to Connect errors. Anything else (a
// *connect.Error of the codecs, a plain error) is returned unchanged, as Connect would send it.
func connectError(ctx context.Context, log *slog.Logger, err error) error {
	switch e := err.(type) {
	case *refusal:
		if e.retryAfter > 0 {
			if info, ok := connect.CallInfoForServerContext(ctx); ok {
				info.ResponseHeader().Set("Retry-After", strconv.Itoa(int(math.Ceil(e.retryAfter.Seconds()))))
			}
		}
		return e.connectError()
	case *storeOutage:
		log.ErrorContext(ctx, e.what, append(e.logAttrs[:len(e.logAttrs):len(e.logAttrs)], "error", e.err)...)
		answer := &refusal{code: connect.CodeUnavailable, msg: e.msg, cause: e.err}
		if errors.Is(e.err, store.ErrCorrupt) {
			// "Retry shortly" would be a promise that waiting cannot keep.
			answer.code, answer.msg = connect.CodeDataLoss, storeDamaged
		}
		return answer.connectError()
	}
	return err
}

// errorInterceptor applies connectError to every call. It is an interceptor, just inside the
// access log, rather than a wrapper around each handler, because the interceptors below it refuse
// calls too (recover, auth, rate limit, tenant gate, validation): all of them then answer in the
// same terms, and the access log and the RPC span above it see the code the caller gets.
func errorInterceptor(log *slog.Logger) connect.ServerInterceptor {
	return func(next connect.ServerFunc) connect.ServerFunc {
		return func(ctx context.Context, spec connect.Spec, stream connect.ServerStream) error {
			return connectError(ctx, log, next(ctx, spec, stream))
		}
	}
}
