package classwire_test

import (
	"testing"

	v1 "github.com/omcp/toolfailure/gen/toolfailure/v1"
	"github.com/omcp/toolfailure/internal/class"
	"github.com/omcp/toolfailure/internal/classwire"
)

func TestRoundTrip(t *testing.T) {
	t.Parallel()
	for _, c := range []class.Class{class.Capability, class.Reliability, class.Governance} {
		p := classwire.ToProto(c)
		if p == v1.Class_CLASS_UNSPECIFIED || classwire.FromProto(p) != c || classwire.Word(p) != string(c) {
			t.Errorf("%s → %v → %q", c, p, classwire.FromProto(p))
		}
		// The enum's own name, as protojson writes it, reads back as the word.
		if got := classwire.Name(p.String()); got != string(c) {
			t.Errorf("Name(%q) = %q, want %q", p.String(), got, c)
		}
	}
	// Every enum value but UNSPECIFIED has a word: a value added to the
	// .proto without one here fails.
	for n, name := range v1.Class_name {
		if n != 0 && classwire.FromProto(v1.Class(n)) == "" {
			t.Errorf("enum value %s has no word", name)
		}
	}
	if classwire.ToProto("transient") != v1.Class_CLASS_UNSPECIFIED || classwire.Word(v1.Class(99)) != "unknown" {
		t.Error("unknown classes must map to UNSPECIFIED and unknown")
	}
	for in, want := range map[string]string{"governance": "governance", " Governance ": "governance", "CLASS_GOVERNANCE": "governance", "bogus": "bogus", "": ""} {
		if got := classwire.Name(in); got != want {
			t.Errorf("Name(%q) = %q, want %q", in, got, want)
		}
	}
}
