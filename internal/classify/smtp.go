package classify

// SMTP replies (RFC 5321) and enhanced mail system status codes (RFC 3463,
// the IANA "Enumerated Status Codes" registry). Mail tools and e-mail
// APIs pass the receiving server's reply through as text: "451 4.7.1
// Greylisting in action, please come back later", "550 5.1.1 <x@y>: user
// unknown", "SMTPRecipientsRefused: (452, b'4.2.2 over quota')". The first
// digit is the server's own verdict on retrying: 4 means "try again later"
// (a transient failure, whatever the words: greylisting, a busy server, a
// mailbox over quota for now), 5 means permanent. The same three digits
// read as an HTTP status would say the opposite (451 "unavailable for legal
// reasons", 421 "misdirected request"), so a message that is an SMTP reply
// never gives an HTTP status.

// smtpReply is what parseSMTP found: the basic reply code (0 when absent)
// and the enhanced status code class.subject.detail (class 0 when absent).
type smtpReply struct {
	basic          uint16
	detail         uint16
	class, subject uint8
}

// smtpScanBytes is how much of a message is searched for a reply: the
// reply comes first, after at most a library's prefix.
const smtpScanBytes = 2 << 10

// parseSMTP finds an SMTP reply in an error message. It takes:
//
//   - an enhanced status code right after a basic reply code of the same
//     class ("550 5.1.1", "451-4.7.1"), anywhere in the message;
//   - an enhanced status code on its own, or a basic reply code on its own,
//     when the message or the type speaks of mail ("smtp", "mailbox",
//     "recipient", …), so that "Node 4.2.0" or "listening on :450" is not
//     read as a reply.
func parseSMTP(msg, typ string) (smtpReply, bool) {
	if len(msg) > smtpScanBytes {
		msg = msg[:smtpScanBytes]
	}
	var lone smtpReply // an enhanced code without a basic code before it
	for i := 0; i+4 < len(msg); i++ {
		c := msg[i]
		if (c != '2' && c != '4' && c != '5') || msg[i+1] != '.' || !smtpTokenStart(msg, i) {
			continue
		}
		subject, j, ok := smtpNumber(msg, i+2)
		if !ok || j >= len(msg) || msg[j] != '.' {
			continue
		}
		detail, end, ok := smtpNumber(msg, j+1)
		if !ok || !smtpTokenEnd(msg, end) || subject > 7 {
			continue
		}
		r := smtpReply{class: c - '0', subject: uint8(subject), detail: uint16(detail)}
		if i >= 4 && (msg[i-1] == ' ' || msg[i-1] == '-') {
			if b, ok := smtpBasicAt(msg, i-4); ok && b/100 == int(r.class) {
				r.basic = uint16(b)
				return r, true
			}
		}
		if lone.class == 0 {
			lone = r
		}
	}
	if lone.class != 0 && mentions(msg, typ, mailWords) {
		return lone, true
	}
	for i := 0; i+3 <= len(msg); i++ {
		if b, ok := smtpBasicAt(msg, i); ok && smtpCodeStart(msg, i) && smtpCodeEnd(msg, i+3) && !afterHTTPWord(msg, i) {
			// Only now look for the words: most messages hold no
			// such code, and those pay nothing more than the scan.
			if mentions(msg, typ, smtpWords) {
				return smtpReply{basic: uint16(b)}, true
			}
			return smtpReply{}, false
		}
	}
	return smtpReply{}, false
}

// afterHTTPWord reports whether the code at i follows "HTTP" or "status"
// closely: an e-mail API's HTTP status, not the mail server's reply.
func afterHTTPWord(s string, i int) bool {
	w := s[max(0, i-12):i]
	return containsFold(w, "http") || containsFold(w, "status")
}

// smtpNumber reads one to three digits at i.
func smtpNumber(s string, i int) (n, end int, ok bool) {
	end = i
	for end < len(s) && end-i < 3 && isDigit(s[end]) {
		n = n*10 + int(s[end]-'0')
		end++
	}
	return n, end, end > i
}

// smtpBasicAt reads a basic reply code at i: 2xx, 4xx or 5xx whose second
// digit is 0 to 5 (RFC 5321 §4.2.1).
func smtpBasicAt(s string, i int) (int, bool) {
	if i < 0 || i+3 > len(s) {
		return 0, false
	}
	a, b, c := s[i], s[i+1], s[i+2]
	if (a != '2' && a != '4' && a != '5') || b < '0' || b > '5' || !isDigit(c) {
		return 0, false
	}
	if i+3 < len(s) && isDigit(s[i+3]) || i > 0 && isDigit(s[i-1]) {
		return 0, false
	}
	return int(a-'0')*100 + int(b-'0')*10 + int(c-'0'), true
}

// smtpTokenStart: an enhanced code is not the tail of a version, an
// address or a word ("v5.1.1", "10.4.2.1").
func smtpTokenStart(s string, i int) bool {
	return i == 0 || !isWordByte(s[i-1]) && s[i-1] != '.'
}

// smtpTokenEnd: nor the head of a longer dotted number ("4.2.0.1").
func smtpTokenEnd(s string, i int) bool {
	if i == len(s) {
		return true
	}
	if isWordByte(s[i]) {
		return false
	}
	return s[i] != '.' || i+1 == len(s) || !isDigit(s[i+1])
}

// smtpCodeStart and smtpCodeEnd delimit a basic reply code standing on
// its own: after a space or an opening bracket or quote, before a space,
// a hyphen (a multi-line reply) or punctuation. A port ("host:587") or an
// address ("10.0.0.250") does not qualify.
func smtpCodeStart(s string, i int) bool {
	if i == 0 {
		return true
	}
	switch s[i-1] {
	case ' ', '(', '[', '"', '\'', ',', '=', '\t', '\n':
		return true
	}
	return false
}

func smtpCodeEnd(s string, i int) bool {
	if i == len(s) {
		return true
	}
	switch s[i] {
	case ' ', '-', ',', ')', ']', ':', ';', '\t', '\n', '\'', '"':
		return true
	}
	return false
}

// mailWords say that an error concerns sending mail: enough to read an
// enhanced status code on its own. smtpWords say that it comes from an
// SMTP conversation: enough to read a bare three-digit code, which could
// otherwise be an HTTP status.
var (
	mailWords = append([]string{"mailbox", "recipient", "mail delivery", "e-mail", "email", "sender address", "delivery status"}, smtpWords...)
	smtpWords = []string{"smtp", "rcpt", "mail from", "helo", "greylist", "mail server", "postfix", "sendmail", "exim"}
)

// mentions reports whether the message or the type holds one of words.
func mentions(msg, typ string, words []string) bool {
	if containsFold(typ, "smtp") {
		return true
	}
	for _, w := range words {
		if containsFold(msg, w) {
			return true
		}
	}
	return false
}

// containsFold reports whether s contains the lower-case ASCII word w,
// ignoring ASCII case, without allocating.
func containsFold(s, w string) bool {
	for i := 0; i+len(w) <= len(s); i++ {
		j := 0
		for ; j < len(w); j++ {
			c := s[i+j]
			if 'A' <= c && c <= 'Z' {
				c += 'a' - 'A'
			}
			if c != w[j] {
				break
			}
		}
		if j == len(w) {
			return true
		}
	}
	return false
}

// ruleSMTP reads an SMTP reply. A transient reply (4xx, or enhanced class
// 4) is reliability whatever its words; a permanent one (5xx) keeps the
// meaning its enhanced code, then its words, then its basic code give.
// A permanent reply none of them explains is left to the later rules.
func ruleSMTP(s *signals) (kind, bool) {
	r := s.smtp
	if !s.hasSMTP {
		return kNone, false
	}
	class := int(r.class)
	if class == 0 {
		class = int(r.basic / 100)
	}
	switch class {
	case 4:
		return kDeferred, true
	case 5:
	default:
		return kNone, false
	}
	if r.class == 5 {
		if k := smtpEnhancedKind(int(r.subject), int(r.detail)); k != kNone {
			return k, true
		}
	}
	// The words of an otherwise unspecific permanent reply ("550 5.7.0
	// Authentication required", "550 relay not permitted").
	for _, t := range []textSet{tAuth, tStorage, tPolicy, tPermission, tTooLarge, tNotFound, tUnsupportedStrong} {
		if s.textHas(t) {
			return textSets[t].kind, true
		}
	}
	if r.class == 5 && r.subject == 7 {
		// Security or policy status: a refusal by policy, unless the
		// basic code asks for authentication (530, 535) or a stronger
		// mechanism (534, 538).
		if k := smtpBasicKind(int(r.basic)); k == kAuth || k == kSetup {
			return k, true
		}
		return kPolicy, true
	}
	if k := smtpBasicKind(int(r.basic)); k != kNone {
		return k, true
	}
	return kNone, false
}

// smtpEnhancedKind maps the permanent enhanced status codes whose meaning
// is specific (RFC 3463 and the IANA registry). The unspecific ones
// (X.0.0, "other …") give kNone.
func smtpEnhancedKind(subject, detail int) kind {
	switch subject {
	case 1: // addressing
		switch detail {
		case 1, 2, 6, 10:
			return kNotFound // no such mailbox or domain, moved, null MX
		case 3, 4, 7, 8:
			return kInvalid // bad address syntax, ambiguous address, bad sender
		}
	case 2: // mailbox
		switch detail {
		case 1:
			return kNotFound // mailbox disabled, not accepting messages
		case 2:
			return kStorageFull
		case 3:
			return kTooLarge
		}
	case 3: // mail system
		switch detail {
		case 1:
			return kStorageFull
		case 3:
			return kUnsupported
		case 4:
			return kTooLarge
		}
	case 5: // protocol
		switch detail {
		case 1, 2, 4, 6:
			return kInvalid
		case 3:
			return kTooLarge // too many recipients
		case 5:
			return kUnsupported
		}
	case 6: // content
		switch detail {
		case 1, 3, 7, 8, 9:
			return kUnsupported // media, conversion, non-ASCII addresses not supported
		}
	case 7: // security and policy
		switch detail {
		case 1, 2, 20, 21, 22, 23, 24, 25, 26, 27, 28, 29:
			return kPolicy // refused by policy; sender authentication (DKIM, SPF, DMARC) failed
		case 3, 4, 6, 30:
			return kUnsupported
		case 8:
			return kAuth
		case 9, 10, 11, 12, 13, 14:
			return kSetup // a stronger mechanism, encryption or an account change is needed
		case 16:
			return kTooLarge
		case 17, 18:
			return kNotFound
		}
	}
	return kNone
}

// smtpBasicKind maps the permanent basic reply codes (RFC 5321 §4.2.3,
// RFC 4954 for the authentication ones).
func smtpBasicKind(code int) kind {
	switch code {
	case 500, 501, 503, 553, 555:
		return kInvalid
	case 502, 504:
		return kUnsupported
	case 530, 535:
		return kAuth
	case 534, 538:
		return kSetup
	case 550, 551:
		return kNotFound
	case 552:
		return kStorageFull
	case 554:
		return kPolicy
	}
	return kNone
}
