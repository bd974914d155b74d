package server

import (
	"context"
	"encoding/base64"
	"errors"
	"strings"

	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/types/known/timestamppb"

	"github.com/omcp/toolfailure/correlation"
	v1 "github.com/omcp/toolfailure/gen/toolfailure/v1"
	"github.com/omcp/toolfailure/internal/classify"
	"github.com/omcp/toolfailure/internal/classwire"
	"github.com/omcp/toolfailure/internal/telemetry"
	"github.com/omcp/toolfailure/store"
)

type failureService struct {
	cfg Config
}

const (
	defaultPageSize = 50
	// pageTokenVersion prefixes page tokens so that their format can change
	// without old tokens being misread.
	pageTokenVersion = 1
)

func (s *failureService) GetFailure(ctx context.Context, req *v1.GetFailureRequest) (*v1.GetFailureResponse, error) {
	p, err := principal(ctx)
	if err != nil {
		return nil, err
	}
	// The same forgiving reading as the CLI and the web page: IDs are pasted from tickets and
	// chat (any case, spaces, no tf_, or the one tf_ token of a longer text).
	id, err := correlation.ParseLoose(req.GetCorrelationId())
	if err != nil {
		msg := "not a correlation ID (tf_ followed by 27 characters)"
		switch {
		case errors.Is(err, correlation.ErrSeveral):
			msg = "the text holds more than one correlation ID; send one"
		case errors.Is(err, correlation.ErrCheckMissing):
			msg = "the check character is missing (tf_ followed by 27 characters; this one has 26): copy the whole ID"
		case errors.Is(err, correlation.ErrChecksum):
			msg = "check character does not match; the ID was probably mistyped"
		}
		return nil, invalid("correlationId", msg)
	}
	// An ID that parsed is the one a user quoted, found or not; what does not parse may be any
	// text a user pasted, and is not logged.
	noteCorrelationID(ctx, id)
	f, err := s.cfg.Store.GetFailure(ctx, p.TenantID, id)
	if errors.Is(err, store.ErrNotFound) {
		// Another tenant's ID answers exactly like an unknown one.
		return nil, notFound("no failure with this correlation ID")
	}
	if err != nil {
		return nil, storeFailed(ctx, "get failure", p.TenantID, lookupFailed, err)
	}
	pf, err := failureProto(f, s.cfg.TraceURL)
	if err != nil {
		return nil, err
	}
	return &v1.GetFailureResponse{Failure: pf}, nil
}

func (s *failureService) ListFailures(ctx context.Context, req *v1.ListFailuresRequest) (*v1.ListFailuresResponse, error) {
	p, err := principal(ctx)
	if err != nil {
		return nil, err
	}
	q := store.ListQuery{Limit: int(req.GetPageSize())}
	if q.Limit == 0 {
		q.Limit = defaultPageSize
	}
	if tok := req.GetPageToken(); tok != "" {
		after, err := decodePageToken(tok)
		if err != nil {
			return nil, errBadPageToken
		}
		q.After = &after
	}
	if f := req.GetFilter(); f != nil {
		q.Filter = store.Filter{
			Tool:    f.GetTool(),
			Class:   classwire.Name(f.GetClass()),
			Code:    f.GetCode(),
			TraceID: strings.ToLower(f.GetTraceId()),
			Server:  f.GetServer(),
		}
		if fp := f.GetFingerprint(); fp != "" {
			fp, err := parseFingerprint(fp, "filter.fingerprint")
			if err != nil {
				return nil, err
			}
			q.Filter.Fingerprint = fp
		}
		if f.Since != nil {
			if err := invalidTime(f.Since, "filter.since"); err != nil {
				return nil, err
			}
			q.Filter.Since = f.Since.AsTime()
		}
		if f.Until != nil {
			if err := invalidTime(f.Until, "filter.until"); err != nil {
				return nil, err
			}
			q.Filter.Until = f.Until.AsTime()
		}
	}
	// Ask for one more than a page to learn whether another page exists
	// without a second query. The byte budget ends a page of large records
	// early; the store then stops reading after the first record that does
	// not fit, which plays the extra row's part.
	pageSize := q.Limit
	q.Limit++
	q.MaxBytes = s.cfg.Limits.MaxListBytes
	rows, err := s.cfg.Store.ListFailures(ctx, p.TenantID, q)
	if err != nil {
		return nil, storeFailed(ctx, "list failures", p.TenantID, "listing failed; retry shortly", err)
	}
	res := &v1.ListFailuresResponse{}
	if n, more := store.PageEnd(rows, pageSize, q.MaxBytes); more {
		rows = rows[:n]
		res.NextPageToken = encodePageToken(rows[len(rows)-1].ID)
	}
	for _, f := range rows {
		pf, err := failureProto(f, s.cfg.TraceURL)
		if err != nil {
			return nil, err
		}
		res.Failures = append(res.Failures, pf)
	}
	return res, nil
}

func encodePageToken(id [16]byte) string {
	return base64.RawURLEncoding.EncodeToString(append([]byte{pageTokenVersion}, id[:]...))
}

func decodePageToken(tok string) ([16]byte, error) {
	var id [16]byte
	b, err := base64.RawURLEncoding.DecodeString(tok)
	if err != nil || len(b) != 17 || b[0] != pageTokenVersion {
		return id, errors.New("bad page token")
	}
	copy(id[:], b[1:])
	return id, nil
}

// shadowUnreadable is the answer of a record whose stored shadow outcomes do not decode.
const shadowUnreadable = "decode stored shadow outcomes"

func failureProto(f store.Failure, traceURL *telemetry.TraceURLTemplate) (*v1.Failure, error) {
	pf := &v1.Failure{
		CorrelationId: correlation.ID(f.ID).String(),
		Tool:          f.Tool,
		Server:        f.Server,
		Class:         classwire.ToProto(classify.Class(f.Class)),
		Code:          f.Code,
		Retryable:     f.Retryable,
		AgentGuidance: f.AgentGuidance,
		RuleId:        f.RuleID,
		RuleVersion:   f.RuleVersion,
		TraceId:       f.TraceID,
		SpanId:        f.SpanID,
		TraceUrl:      traceURL.Expand(f.TraceID, f.SpanID),
		Fingerprint:   f.Fingerprint,
		CreatedAt:     timestamppb.New(f.CreatedAt),
		OccurredAt:    timestamppb.New(f.OccurredAt),
	}
	if !f.RetryNotBefore.IsZero() {
		pf.RetryNotBefore = timestamppb.New(f.RetryNotBefore)
	}
	for _, id := range f.SameCallIDs() {
		pf.SameCallIds = append(pf.SameCallIds, correlation.ID(id).String())
	}
	if len(f.Shadow) > 0 {
		shadows, err := store.DecodeShadow(f.Shadow)
		if err != nil {
			return nil, internal(shadowUnreadable, err)
		}
		for _, sh := range shadows {
			pf.Shadow = append(pf.Shadow, &v1.ShadowOutcome{RuleId: sh.RuleID, Class: classwire.ToProto(classify.Class(sh.Class)), Code: sh.Code, Retryable: sh.Retryable})
		}
	}
	if len(f.Error) > 0 {
		pf.Error = &v1.RawError{}
		if err := (protojson.UnmarshalOptions{DiscardUnknown: true}).Unmarshal(f.Error, pf.Error); err != nil {
			return nil, internal("decode stored error", err)
		}
	}
	if len(f.ToolAnnotations) > 0 {
		pf.ToolAnnotations = &v1.ToolAnnotations{}
		if err := (protojson.UnmarshalOptions{DiscardUnknown: true}).Unmarshal(f.ToolAnnotations, pf.ToolAnnotations); err != nil {
			return nil, internal("decode stored annotations", err)
		}
	}
	return pf, nil
}
