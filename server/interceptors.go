package server

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"runtime/debug"
	"strings"
	"unicode"

	"buf.build/go/protovalidate"
	"connectrpc.com/connect/v2"
	"google.golang.org/protobuf/proto"
)

// recoverInterceptor turns a handler panic into an internal error, so that
// one bad request can never take the service down or drop a connection.
func recoverInterceptor(log *slog.Logger) connect.ServerInterceptor {
	return func(next connect.ServerFunc) connect.ServerFunc {
		return func(ctx context.Context, spec connect.Spec, stream connect.ServerStream) (err error) {
			defer func() {
				if r := recover(); r != nil {
					log.ErrorContext(ctx, "handler panic", "procedure", spec.Procedure, "panic", fmt.Sprint(r), "stack", string(debug.Stack()))
					err = internal("internal error", nil)
				}
			}()
			return next(ctx, spec, stream)
		}
	}
}

// validateInterceptor enforces the protovalidate rules declared in the
// .proto files on every request message, right after it is decoded.
func validateInterceptor(v protovalidate.Validator) connect.ServerInterceptor {
	return func(next connect.ServerFunc) connect.ServerFunc {
		return func(ctx context.Context, spec connect.Spec, stream connect.ServerStream) error {
			return next(ctx, spec, &validatingStream{ServerStream: stream, v: v})
		}
	}
}

type validatingStream struct {
	connect.ServerStream
	v protovalidate.Validator
}

func (s *validatingStream) Receive(msg any) error {
	if err := s.ServerStream.Receive(msg); err != nil {
		return err
	}
	m, ok := msg.(proto.Message)
	if !ok {
		return nil
	}
	if err := s.v.Validate(m); err != nil {
		return validationError(err)
	}
	return nil
}

// validationError reports every violated rule as "field: message", naming
// fields as they are spelled in JSON, which is what most callers send.
func validationError(err error) error {
	var verr *protovalidate.ValidationError
	if !errors.As(err, &verr) {
		return invalid("", "")
	}
	parts := make([]string, 0, len(verr.Violations))
	for _, v := range verr.Violations {
		field := jsonFieldPath(protovalidate.FieldPathString(v.Proto.GetField()))
		msg := v.Proto.GetMessage()
		if msg == "" {
			msg = v.Proto.GetRuleId()
		}
		if field == "" {
			parts = append(parts, msg)
			continue
		}
		parts = append(parts, field+": "+msg)
	}
	return invalid("", strings.Join(parts, "; "))
}

// jsonFieldPath rewrites a proto field path ("error.http_status") into its
// protojson spelling ("error.httpStatus"). Map keys in brackets are kept.
func jsonFieldPath(path string) string {
	var b strings.Builder
	upper, inKey := false, false
	for _, r := range path {
		switch {
		case r == '[':
			inKey = true
		case r == ']':
			inKey = false
		case r == '_' && !inKey:
			upper = true
			continue
		}
		if upper {
			r = unicode.ToUpper(r)
			upper = false
		}
		b.WriteRune(r)
	}
	return b.String()
}
