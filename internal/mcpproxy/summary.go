package mcpproxy

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"strconv"

	"connectrpc.com/connect/v2"
	segjson "github.com/segmentio/encoding/json"
	"google.golang.org/protobuf/proto"

	toolfailurev1 "github.com/omcp/toolfailure/gen/toolfailure/v1"
	"github.com/omcp/toolfailure/mcpfailure"
)

// # What the service is sent
//
// A failed result goes to the client as the upstream wrote it, whatever its
// size or depth; what goes to the service for classification must fit the
// service's limits, or the service refuses it and the result goes out
// without the key. The service takes error.details up to 32 levels deep and
// 256 KiB, a tool name up to 256 bytes; the middleware's own caps drop
// details over 64 KiB whole. So the proxy sends a summary of a failed
// result instead of the result: its text (the first 16 KiB), and its
// structuredContent cut to fit (summarize), which keeps what classification
// reads (the top-level members, reason codes and statuses, the first
// elements of a list) and says what it left out. A request the service
// still refuses as invalid (a deployment with tighter limits) goes again
// once, without details (fittingClassifier). The record the service keeps
// holds the summary; the client's result is untouched.

const (
	// maxStructuredDepth bounds the nesting of the structuredContent sent:
	// a container deeper than this becomes a note. The service counts
	// error.details.structuredContent's own level as 1, so the deepest
	// value sent is at level 25, within its 32.
	maxStructuredDepth = 24
	// maxStructuredBytes bounds the structuredContent sent, as
	// encoding/json writes it: within the middleware's 64 KiB for
	// error.details, and the service's 256 KiB.
	maxStructuredBytes = 32 << 10
	// maxNameBytes is the service's limit on the tool and server labels.
	maxNameBytes = 256
	// bareMessageBytes is the message of the second, bare request.
	bareMessageBytes = 4 << 10
)

// summaryCaps are the caps of one summary: the longest string and the most
// members or elements of one object or array kept.
type summaryCaps struct{ str, elems int }

// summaryLadder is tried in order; the first summary that keeps everything
// within maxStructuredBytes is sent, else the last: the tighter caps keep
// more of what is shallow (one long list no longer uses up the bytes that
// the members after it needed).
var summaryLadder = []summaryCaps{{4096, 512}, {1024, 64}, {256, 16}, {64, 4}}

// summarize returns the value of raw (valid JSON) cut to fit what the
// service takes; nil when nothing of it fits.
func summarize(raw []byte) any {
	var fallback any
	for _, caps := range summaryLadder {
		s := summarizer{caps: caps, budget: maxStructuredBytes}
		v := s.value(raw, 0)
		b, err := json.Marshal(v)
		if err != nil || len(b) > maxStructuredBytes {
			continue
		}
		if !s.exhausted {
			return v
		}
		fallback = v
	}
	return fallback
}

// summarizer builds one summary. spent counts the bytes written so far, an
// estimate a little over what encoding/json writes; past the budget, what
// remains is left out (and exhausted set).
type summarizer struct {
	caps      summaryCaps
	budget    int
	spent     int
	exhausted bool
}

func (s *summarizer) value(raw []byte, level int) any {
	switch raw[0] {
	case '{':
		if level >= maxStructuredDepth {
			return s.note(fmt.Sprintf("(an object nested deeper than %d levels, left out)", maxStructuredDepth))
		}
		return s.object(raw, level)
	case '[':
		if level >= maxStructuredDepth {
			return s.note(fmt.Sprintf("(an array nested deeper than %d levels, left out)", maxStructuredDepth))
		}
		return s.array(raw, level)
	case '"':
		str, err := decodeString(raw)
		if err != nil {
			str = ""
		}
		return s.note(truncateNote(str, s.caps.str))
	case 't':
		s.spent += 4
		return true
	case 'f':
		s.spent += 5
		return false
	case 'n':
		s.spent += 4
		return nil
	}
	s.spent += len(raw)
	if f, err := strconv.ParseFloat(string(raw), 64); err == nil {
		return f
	}
	return string(raw) // past float64 (1e400): its text
}

func (s *summarizer) object(raw []byte, level int) map[string]any {
	out := map[string]any{}
	s.spent += 2
	left := 0
	_ = eachMember(raw, func(name, v []byte) {
		if len(out) >= s.caps.elems || s.spent >= s.budget {
			if s.spent >= s.budget {
				s.exhausted = true
			}
			left++
			return
		}
		key := truncateNote(string(name), s.caps.str)
		s.spent += jsonLen(key) + 2
		out[key] = s.value(v, level+1)
	})
	if left > 0 {
		out["…"] = s.note(fmt.Sprintf("(%d more members left out)", left))
	}
	return out
}

func (s *summarizer) array(raw []byte, level int) []any {
	out := []any{}
	s.spent += 2
	left := 0
	eachElement(raw, func(v []byte) {
		if len(out) >= s.caps.elems || s.spent >= s.budget {
			if s.spent >= s.budget {
				s.exhausted = true
			}
			left++
			return
		}
		s.spent++
		out = append(out, s.value(v, level+1))
	})
	if left > 0 {
		out = append(out, s.note(fmt.Sprintf("(%d more elements left out)", left)))
	}
	return out
}

// note counts a string the summary holds.
func (s *summarizer) note(str string) string {
	s.spent += jsonLen(str) + 1
	return str
}

// jsonLen is the length of str as encoding/json writes it.
func jsonLen(str string) int {
	b, err := json.Marshal(str)
	if err != nil {
		return 6 * len(str)
	}
	return len(b)
}

// truncateNote shortens str to n bytes and says so.
func truncateNote(str string, n int) string {
	if len(str) <= n {
		return str
	}
	return fmt.Sprintf("%s… (%d bytes in all)", truncate(str, n), len(str))
}

// summarizeData is the details of a JSON-RPC error's data, as summarize
// cuts them; nil when there are none.
func summarizeData(data json.RawMessage) any {
	i := skipSpace(data, 0)
	if i == len(data) || isNull(data) || !segjson.Valid(data) {
		return nil
	}
	return summarize(data[i:])
}

// fittingClassifier is the Classifier the proxy sends failures to: it fits
// each request to the service's limits on names (an empty tool name, a
// label over 256 bytes), and when the service still refuses a request as
// invalid, sends it once more with no details and a short message, so that
// the failure gets its correlation ID anyway. A service that is down or
// slow is not asked twice: that is the fail-open path, unchanged.
type fittingClassifier struct {
	next mcpfailure.Classifier
	log  *slog.Logger
}

func (f fittingClassifier) Classify(ctx context.Context, req *toolfailurev1.ClassifyRequest) (*toolfailurev1.ClassifyResponse, error) {
	fitNames(req)
	res, err := f.next.Classify(ctx, req)
	if err == nil || connect.CodeOf(err) != connect.CodeInvalidArgument || ctx.Err() != nil {
		return res, err
	}
	bare := proto.CloneOf(req)
	e := bare.GetError()
	if e == nil {
		e = &toolfailurev1.RawError{}
		bare.Error = e
	}
	e.Details = nil
	e.Attributes = nil
	e.Message = truncate(e.Message, bareMessageBytes)
	e.Type = truncate(e.Type, maxNameBytes)
	if e.Message == "" && e.Type == "" && e.HttpStatus == nil && e.GrpcCode == nil && e.JsonrpcCode == nil {
		e.Message = "tool reported an error without a message"
	}
	f.log.Warn("toolfailure proxy: the toolfailure service refused a failure report as invalid; sent it again without details",
		slog.String("tool", req.GetTool()), slog.Any("error", err))
	return f.next.Classify(ctx, bare)
}

// fitNames gives the tool and server labels a form the service accepts.
func fitNames(req *toolfailurev1.ClassifyRequest) {
	if req.Tool == "" {
		req.Tool = "(unnamed)"
	}
	req.Tool = truncate(req.Tool, maxNameBytes)
	req.Server = truncate(req.Server, maxNameBytes)
}
