package server

import (
	"context"
	"io"
	"strconv"
	"time"
	"unicode/utf8"

	"connectrpc.com/connect/v2/connectproto"
	"google.golang.org/protobuf/types/known/timestamppb"

	v1 "github.com/omcp/toolfailure/gen/toolfailure/v1"
)

// jsonCodec is Connect's protobuf JSON codec with one direct path: the ClassifyResponse that
// answers every Classify is written without protojson's reflection, which spent more on that
// one small message (its meta Struct above all) than the whole classification does
// (BenchmarkClassifyResponseJSON compares them). Every other message goes to protojson, and so
// does a ClassifyResponse that the direct path could not write exactly as protojson would (a
// string that is not UTF-8, a timestamp out of range, a number JSON cannot hold), so that
// protojson reports the error as before. TestClassifyResponseJSON holds it to protojson. It
// stays hand-written because a durable Classify meets its CPU budget (`toolfailure bench`) only
// with it and the two other direct paths (quickvalid.go, errorjson.go): with protojson and
// protovalidate in their place, scripts/bench-compare measured the service over the budget.
type jsonCodec struct {
	*connectproto.JSONCodec
}

func (c jsonCodec) MarshalWrite(ctx context.Context, dst io.Writer, msg any) error {
	if r, ok := msg.(*v1.ClassifyResponse); ok {
		var buf []byte
		if w, ok := dst.(interface{ AvailableBuffer() []byte }); ok {
			buf = w.AvailableBuffer()
		}
		if b, ok := appendClassifyResponse(buf[:0], r); ok {
			_, err := dst.Write(b)
			return err
		}
	}
	return c.JSONCodec.MarshalWrite(ctx, dst, msg)
}

// appendClassifyResponse writes r as protojson does, with the fields in field-number order and
// those at their zero value left out. It reports false when it cannot.
func appendClassifyResponse(b []byte, r *v1.ClassifyResponse) ([]byte, bool) {
	w := objectWriter{b: append(b, '{')}
	if tf := r.GetToolFailure(); tf != nil {
		w.key("toolFailure")
		var ok bool
		if w.b, ok = appendToolFailure(w.b, tf); !ok {
			return nil, false
		}
	}
	if m := r.GetMeta(); m != nil {
		w.key("meta")
		var err error
		if w.b, err = appendStruct(w.b, m, asIs); err != nil {
			return nil, false
		}
	}
	w.str("ruleId", r.GetRuleId())
	return append(w.b, '}'), !w.bad
}

func appendToolFailure(b []byte, tf *v1.ToolFailure) ([]byte, bool) {
	w := objectWriter{b: append(b, '{')}
	if c := tf.GetClass(); c != 0 {
		w.key("class")
		if name, known := v1.Class_name[int32(c)]; known {
			w.b = appendJSONString(w.b, name)
		} else {
			w.b = strconv.AppendInt(w.b, int64(c), 10)
		}
	}
	w.str("code", tf.GetCode())
	if tf.GetRetryable() {
		w.key("retryable")
		w.b = append(w.b, "true"...)
	}
	if ts := tf.GetRetryNotBefore(); ts != nil {
		if ts.CheckValid() != nil {
			return nil, false
		}
		w.key("retryNotBefore")
		w.b = appendTimestamp(w.b, ts)
	}
	w.str("correlationId", tf.GetCorrelationId())
	w.str("agentGuidance", tf.GetAgentGuidance())
	return append(w.b, '}'), !w.bad
}

// appendTimestamp writes a valid ts as protojson does: RFC 3339 in UTC with 0, 3, 6 or 9
// digits of fraction.
func appendTimestamp(b []byte, ts *timestamppb.Timestamp) []byte {
	s, n := ts.GetSeconds(), ts.GetNanos()
	layout := "2006-01-02T15:04:05"
	switch {
	case n == 0:
	case n%1e6 == 0:
		layout += ".000"
	case n%1e3 == 0:
		layout += ".000000"
	default:
		layout += ".000000000"
	}
	b = append(b, '"')
	b = time.Unix(s, int64(n)).UTC().AppendFormat(b, layout)
	return append(b, 'Z', '"')
}

// objectWriter writes the members of a JSON object, a comma before each but the first.
type objectWriter struct {
	b   []byte
	n   int
	bad bool // a string is not UTF-8, which protojson would refuse
}

func (w *objectWriter) key(name string) {
	if w.n > 0 {
		w.b = append(w.b, ',')
	}
	w.n++
	w.b = append(w.b, '"')
	w.b = append(w.b, name...)
	w.b = append(w.b, '"', ':')
}

// int writes an integer member, unless it is not set.
func (w *objectWriter) int(name string, v *int32) {
	if v != nil {
		w.key(name)
		w.b = strconv.AppendInt(w.b, int64(*v), 10)
	}
}

// str writes a string member, unless it is empty.
func (w *objectWriter) str(name, v string) {
	if v == "" {
		return
	}
	w.bad = w.bad || !utf8.ValidString(v)
	w.key(name)
	w.b = appendJSONString(w.b, v)
}
