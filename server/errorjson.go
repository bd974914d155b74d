package server

import (
	"fmt"

	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/types/known/structpb"

	v1 "github.com/omcp/toolfailure/gen/toolfailure/v1"
	"github.com/omcp/toolfailure/internal/redact"
)

// redactedError is the raw error as received, with every secret that redaction recognises
// replaced, as the JSON object that is stored (protojson, the API's field names), and its
// redacted message and type, which the record's fingerprint is computed from, so that they are
// redacted once. Details are redacted as decoded JSON (redact.Value): a value under a sensitive
// key is replaced whole, every other string is redacted. details is e's details as decoded for
// classification (ClassifyInput), so that they are converted once. The details have passed
// checkDetails, which refuses what JSON cannot hold (NaN, ±Inf).
func redactedError(e *v1.RawError, details any) (_ []byte, message, typ string, err error) {
	r := &v1.RawError{
		Message:     redact.String(e.GetMessage()),
		Type:        redact.String(e.GetType()),
		HttpStatus:  e.HttpStatus,
		GrpcCode:    e.GrpcCode,
		JsonrpcCode: e.JsonrpcCode,
		RetryAfter:  redact.String(e.GetRetryAfter()),
		Attributes:  redact.Map(e.GetAttributes()),
	}
	if e.GetDetails() != nil {
		if r.Details, err = structpb.NewValue(redact.Value(details)); err != nil {
			return nil, "", "", fmt.Errorf("details: %w", err)
		}
	}
	b, err := protojson.Marshal(r)
	if err != nil {
		return nil, "", "", fmt.Errorf("details: %w", err)
	}
	return b, r.Message, r.Type, nil
}

// annotationsJSON is a as it is stored: protojson, the hints that were set by their JSON names.
func annotationsJSON(a *v1.ToolAnnotations) []byte {
	b, _ := protojson.Marshal(a) // four optional booleans always encode
	return b
}
