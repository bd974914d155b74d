package classify_test

import (
	"testing"
	"time"

	"github.com/omcp/toolfailure/internal/classify"
)

// SMTP replies: the first digit decides retrying (4 transient, 5
// permanent), the enhanced status code says why; the three digits are
// never read as an HTTP status (451 is not "unavailable for legal
// reasons", 421 not "misdirected request").
func TestSMTPReplies(t *testing.T) {
	now := time.Date(2026, 6, 3, 10, 0, 0, 0, time.UTC)
	cases := []struct {
		msg, typ    string
		class       classify.Class
		code        string
		retryable   bool
		viaSMTPRule bool
	}{
		// Transient: retried later by the same call, whatever the words.
		{msg: "451 4.7.1 Greylisting in action, please come back later", class: classify.Reliability, code: classify.CodeRetryableTransient, retryable: true, viaSMTPRule: true},
		{msg: "450 4.2.0 <a@example.com>: Recipient address rejected: Greylisted", class: classify.Reliability, code: classify.CodeRetryableTransient, retryable: true, viaSMTPRule: true},
		{msg: "421 4.7.0 Try again later, closing connection.", class: classify.Reliability, code: classify.CodeRetryableTransient, retryable: true, viaSMTPRule: true},
		{msg: "452 4.2.2 The email account that you tried to reach is over quota.", class: classify.Reliability, code: classify.CodeRetryableTransient, retryable: true, viaSMTPRule: true},
		{msg: "SMTP error: 451 4.4.1 Temporary lookup failure", class: classify.Reliability, code: classify.CodeRetryableTransient, retryable: true, viaSMTPRule: true},
		{msg: "smtp: 451 Requested action aborted: local error in processing", class: classify.Reliability, code: classify.CodeRetryableTransient, retryable: true, viaSMTPRule: true},
		{msg: "{'a@example.com': (450, b'4.2.1 Mailbox busy, try later')}", typ: "smtplib.SMTPRecipientsRefused", class: classify.Reliability, code: classify.CodeRetryableTransient, retryable: true, viaSMTPRule: true},
		{msg: "Mail delivery deferred: 4.4.7 Message delayed", class: classify.Reliability, code: classify.CodeRetryableTransient, retryable: true, viaSMTPRule: true},
		{msg: "451-4.3.0 Mail server temporarily rejected message.", class: classify.Reliability, code: classify.CodeRetryableTransient, retryable: true, viaSMTPRule: true},
		// Permanent: the enhanced code's meaning.
		{msg: "550 5.1.1 The email account that you tried to reach does not exist.", class: classify.Capability, code: classify.CodeResourceNotFound, viaSMTPRule: true},
		{msg: "Error: 5.1.1 unknown recipient", class: classify.Capability, code: classify.CodeResourceNotFound, viaSMTPRule: true},
		{msg: "553 5.1.3 Bad recipient address syntax", class: classify.Capability, code: classify.CodeInvalidInput, viaSMTPRule: true},
		{msg: "552 5.2.2 Mailbox full", class: classify.Governance, code: classify.CodeUserActionRequired, viaSMTPRule: true},
		{msg: "552 5.3.4 Message size exceeds fixed limit", class: classify.Capability, code: classify.CodeInvalidInput, viaSMTPRule: true},
		{msg: "535 5.7.8 Username and Password not accepted", class: classify.Governance, code: classify.CodeAuthRequired, viaSMTPRule: true},
		{msg: "550 5.7.1 Unauthenticated email is not accepted from this domain", class: classify.Governance, code: classify.CodePolicyBlocked, viaSMTPRule: true},
		{msg: "550 5.7.26 This message does not pass authentication checks (SPF and DKIM both do not pass)", class: classify.Governance, code: classify.CodePolicyBlocked, viaSMTPRule: true},
		{msg: "530 5.7.0 Authentication required", class: classify.Governance, code: classify.CodeAuthRequired, viaSMTPRule: true},
		{msg: "502 5.5.1 Unrecognized command", class: classify.Capability, code: classify.CodeInvalidInput, viaSMTPRule: true},
		{msg: "SMTP error 550: Requested action not taken: mailbox unavailable", class: classify.Capability, code: classify.CodeResourceNotFound, viaSMTPRule: true},
		{msg: "smtp: 550 relay not permitted", class: classify.Governance, code: classify.CodePermissionDenied, viaSMTPRule: true},
		// Not SMTP replies: versions, addresses, ports and HTTP statuses
		// of e-mail APIs keep their own reading.
		{msg: "unsupported engine: requires Node 4.2.0 or later", class: classify.Capability},
		{msg: "user with email a@example.com already exists (HTTP 409)", class: classify.Capability, code: classify.CodeInvalidInput},
		{msg: "dial tcp 10.0.4.250:25: connect: connection refused", typ: "*net.OpError", class: classify.Reliability, code: classify.CodeRetryableTransient, retryable: true},
		{msg: "email API returned HTTP 503 Service Unavailable", class: classify.Reliability, code: classify.CodeRetryableTransient},
	}
	for _, c := range cases {
		in := &classify.Input{Error: classify.RawError{Message: c.msg, Type: c.typ}}
		o := classify.Baseline(in, now)
		if o.Class != c.class || c.code != "" && o.Code != c.code || o.Retryable != c.retryable {
			t.Errorf("%q: got %s/%s retryable=%v by %s, want %s/%s retryable=%v", c.msg, o.Class, o.Code, o.Retryable, o.RuleID, c.class, c.code, c.retryable)
		}
		if got := o.RuleID == "baseline/smtp-reply"; got != c.viaSMTPRule {
			t.Errorf("%q: decided by %s; SMTP rule expected: %v", c.msg, o.RuleID, c.viaSMTPRule)
		}
		if err := o.Validate(); err != nil {
			t.Errorf("%q: %v", c.msg, err)
		}
	}
}

// A database that knows the user but refuses the command ("not
// authorized on db to execute command", MongoDB's wording) is a missing
// grant, not missing credentials.
func TestDatabaseNotAuthorizedOnIsPermission(t *testing.T) {
	now := time.Date(2026, 6, 3, 10, 0, 0, 0, time.UTC)
	for _, in := range []classify.RawError{
		{Message: "not authorized on admin to execute command { listDatabases: 1 }"},
		{Message: "MongoServerError: not authorized on mydb to execute command { insert: \"users\" }"},
		{Message: "Unauthorized: not authorized on test to execute command { find: \"orders\" }"},
		{Message: "not authorized on reports to execute command", Type: "MongoServerError"},
	} {
		o := classify.Baseline(&classify.Input{Error: in}, now)
		if o.Class != classify.Governance || o.Code != classify.CodePermissionDenied {
			t.Errorf("%q: got %s/%s by %s, want governance/permission_denied", in.Message, o.Class, o.Code, o.RuleID)
		}
	}
	// The credentials themselves missing stays auth_required.
	o := classify.Baseline(&classify.Input{Error: classify.RawError{Message: "command find requires authentication"}}, now)
	if o.Code != classify.CodeAuthRequired {
		t.Errorf("requires authentication: got %s/%s by %s, want auth_required", o.Class, o.Code, o.RuleID)
	}
}
