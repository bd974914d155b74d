package ruleset

import (
	"testing"

	"buf.build/gen/go/bufbuild/protovalidate/protocolbuffers/go/buf/validate"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"

	v1 "github.com/omcp/toolfailure/gen/toolfailure/v1"
)

// TestRequestBounds: the field sizes that price a rule within its set's budget are the API's own
// limits, as the .proto declares them; were the API to take more, the estimate would be low.
func TestRequestBounds(t *testing.T) {
	t.Parallel()
	rules := func(m proto.Message, name string) *validate.FieldRules {
		f := m.ProtoReflect().Descriptor().Fields().ByName(protoreflect.Name(name))
		if f == nil {
			t.Fatalf("no field %s", name)
		}
		r, _ := proto.GetExtension(f.Options(), validate.E_Field).(*validate.FieldRules)
		if r == nil {
			t.Fatalf("%s has no buf.validate rules", name)
		}
		return r
	}
	req, raw := &v1.ClassifyRequest{}, &v1.RawError{}
	attrs := rules(raw, "attributes").GetMap()
	for _, c := range []struct {
		name      string
		got, want uint64
	}{
		{"tool", maxToolBytes, rules(req, "tool").GetString_().GetMaxBytes()},
		{"server", maxServerBytes, rules(req, "server").GetString_().GetMaxBytes()},
		{"error.message", maxMessageBytes, rules(raw, "message").GetString_().GetMaxBytes()},
		{"error.type", maxTypeBytes, rules(raw, "type").GetString_().GetMaxBytes()},
		{"error.retryAfter", maxRetryAfterBytes, rules(raw, "retry_after").GetString_().GetMaxBytes()},
		{"error.attributes", maxAttributes, attrs.GetMaxPairs()},
		{"error.attributes keys", maxAttrKeyBytes, attrs.GetKeys().GetString_().GetMaxBytes()},
		{"error.attributes values", maxAttrValueBytes, attrs.GetValues().GetString_().GetMaxBytes()},
	} {
		if c.want == 0 || c.got != c.want {
			t.Errorf("%s: priced at %d bytes, the API takes %d", c.name, c.got, c.want)
		}
	}
}
