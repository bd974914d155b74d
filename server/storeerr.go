package server

import (
	"context"
	"errors"
	"log/slog"

	"connectrpc.com/connect/v2"

	"github.com/omcp/toolfailure/store"
)

// callerGone returns the error for a call whose own context ended before the store answered: its
// deadline passed (Connect-Timeout-Ms, grpc-timeout) or the caller went away. That is the caller's
// doing, not an outage of the store, so it is deadline_exceeded or canceled rather than
// unavailable, and nothing is logged as an error. It returns nil while ctx is live.
func callerGone(ctx context.Context, cause error) error {
	switch err := ctx.Err(); {
	case err == nil:
		return nil
	case errors.Is(err, context.DeadlineExceeded):
		return connect.NewError(connect.CodeDeadlineExceeded, "the call's deadline passed before it finished").WithCause(cause)
	default:
		return connect.NewError(connect.CodeCanceled, "the call was cancelled before it finished").WithCause(cause)
	}
}

// storeDamaged is the answer of a call that met a damaged store (store.ErrCorrupt).
const storeDamaged = "the service's store is damaged and cannot answer until its operator restores it"

// storeFailed maps an error of the store that is neither not_found nor invalid: when the caller's
// own context ended, callerGone's answer; otherwise the store is down, which is logged as an error
// (what, the tenant and the cause) and answers unavailable with msg, which should say to retry, or,
// for a store whose data is damaged (store.ErrCorrupt), data_loss.
func storeFailed(ctx context.Context, log *slog.Logger, what string, tenantID int64, msg string, err error) error {
	if gone := callerGone(ctx, err); gone != nil {
		return gone
	}
	log.ErrorContext(ctx, what, "tenant", tenantID, "error", err)
	if errors.Is(err, store.ErrCorrupt) {
		// "Retry shortly" would be a promise that waiting cannot keep.
		return connect.NewError(connect.CodeDataLoss, storeDamaged).WithCause(err)
	}
	return connect.NewError(connect.CodeUnavailable, msg).WithCause(err)
}
