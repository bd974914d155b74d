package corpus_test

import (
	"testing"

	"github.com/omcp/toolfailure/internal/classify"
	"github.com/omcp/toolfailure/internal/corpus"
	"github.com/omcp/toolfailure/internal/ruleset"
)

// Through the baseline packs, as the service runs, an SMTP reply keeps
// its meaning: the words of a transient reply ("over quota", "try again
// later") do not make it permanent, and the mail pack agrees with the
// generic rule that reads the same codes.
func TestMailRepliesThroughPacks(t *testing.T) {
	t.Parallel()
	for _, msg := range []string{
		"451 4.7.1 Greylisting in action, please come back later",
		"421 4.7.0 Try again later, closing connection.",
		"452 4.2.2 The email account that you tried to reach is over quota.",
		"450 4.7.1 Client host rejected: cannot find your hostname",
		"451 4.7.0 Temporary server error. Please try again later. Unauthenticated email is not accepted",
		"SMTP error: 451 4.4.1 Temporary lookup failure",
		"550 5.1.1 The email account that you tried to reach does not exist.",
		"550 5.7.1 Unauthenticated email is not accepted from this domain",
		"552 5.2.2 Mailbox full",
		"535 5.7.8 Username and Password not accepted",
		"552 5.3.4 Message size exceeds fixed limit",
		"553 5.1.3 Bad recipient address syntax",
		"554 5.7.9 Message not accepted for policy reasons: authentication mechanism too weak",
		"550 5.6.1 Media not supported",
	} {
		in := &classify.Input{Error: classify.RawError{Message: msg}}
		var none *ruleset.Set
		got := none.ClassifyWith(classify.DefaultEngine(), in, corpus.Now).Outcome
		want := classify.Baseline(in, corpus.Now)
		if got.Class != want.Class || got.Code != want.Code || got.Retryable != want.Retryable {
			t.Errorf("%q: packs give %s/%s retryable=%v by %s, the generic rule %s/%s retryable=%v by %s",
				msg, got.Class, got.Code, got.Retryable, got.RuleID, want.Class, want.Code, want.Retryable, want.RuleID)
		}
		if want.RuleID != "baseline/smtp-reply" {
			t.Errorf("%q: the generic baseline decided by %s, want baseline/smtp-reply", msg, want.RuleID)
		}
		if msg[0] == '4' || msg[0] == 'S' {
			if got.Class != classify.Reliability || !got.Retryable {
				t.Errorf("%q: a transient SMTP reply came out %s/%s retryable=%v", msg, got.Class, got.Code, got.Retryable)
			}
		}
	}
}
