package classify

import (
	"regexp"
	"strconv"
	"strings"
)

// errnoKinds maps POSIX errno names, getaddrinfo codes and the error codes
// of Node.js (including undici and axios) to kinds. Keys are alnumLower'd:
// "EAI_AGAIN" → "eaiagain".
var errnoKinds = func() map[string]kind {
	m := map[string]kind{}
	add := func(k kind, names ...string) {
		for _, n := range names {
			m[alnumLower(n)] = k
		}
	}
	// A port or address another process holds: the same call fails the
	// same way while it runs (docs/classification.md, Conflicts).
	add(kExists, "EADDRINUSE")
	add(kNetwork, "ECONNRESET", "ECONNABORTED", "EPIPE", "EADDRNOTAVAIL", "EINTR",
		"ECANCELED", "EPROTO", "ENOTCONN", "ESHUTDOWN", "ENETRESET", "UND_ERR_SOCKET", "UND_ERR_CLOSED",
		"UND_ERR_ABORTED", "ERR_NETWORK", "ERR_CANCELED", "ERR_STREAM_PREMATURE_CLOSE",
		"ERR_HTTP2_STREAM_ERROR", "ERR_HTTP2_GOAWAY_SESSION", "ERR_HTTP2_STREAM_CANCEL",
		"ERR_SOCKET_CLOSED", "ERR_CONNECTION_RESET", "ERR_CONNECTION_CLOSED", "ERR_NETWORK_CHANGED", "ERR_EMPTY_RESPONSE", "ECONNCLOSED", "ERR_STREAM_DESTROYED", "EPROTONOSUPPORT")
	add(kRefused, "ECONNREFUSED", "EHOSTUNREACH", "ENETUNREACH", "ENETDOWN", "EHOSTDOWN",
		"UND_ERR_CONNECT", "ERR_CONNECTION_REFUSED", "ERR_ADDRESS_UNREACHABLE", "ERR_INTERNET_DISCONNECTED")
	add(kDNS, "ENOTFOUND", "EAI_AGAIN", "EAI_NONAME", "EAI_FAIL", "EAI_NODATA", "EAI_ADDRFAMILY",
		"ERR_NAME_NOT_RESOLVED")
	add(kTimeout, "ETIMEDOUT", "ESOCKETTIMEDOUT", "ETIME", "UND_ERR_CONNECT_TIMEOUT",
		"UND_ERR_HEADERS_TIMEOUT", "UND_ERR_BODY_TIMEOUT", "ERR_SOCKET_CONNECTION_TIMEOUT",
		"ECONNTIMEOUT", "ERR_TIMEOUT", "ERR_TIMED_OUT", "ERR_CONNECTION_TIMED_OUT")
	add(kOverloaded, "EMFILE", "ENFILE", "ENOMEM", "ENOBUFS", "EAGAIN", "EWOULDBLOCK")
	add(kContention, "EBUSY", "EDEADLK", "ETXTBSY")
	add(kServer, "ERR_BAD_RESPONSE", "EIO")
	add(kNotFound, "ENOENT", "ENXIO", "ENODEV", "ESRCH")
	add(kInvalid, "ENOTDIR", "EISDIR", "EINVAL", "ENAMETOOLONG", "ELOOP", "ERANGE", "EBADF",
		"ERR_INVALID_ARG_TYPE", "ERR_INVALID_ARG_VALUE", "ERR_INVALID_URL", "ERR_OUT_OF_RANGE",
		"ERR_MISSING_ARGS")
	add(kExists, "EEXIST", "ENOTEMPTY")
	add(kTooLarge, "E2BIG", "EFBIG", "EMSGSIZE", "ERR_FR_MAX_BODY_LENGTH_EXCEEDED")
	add(kPermission, "EACCES", "EPERM", "EROFS")
	add(kStorageFull, "ENOSPC", "EDQUOT")
	add(kUnsupported, "ENOSYS", "ENOTSUP", "EOPNOTSUPP", "EXDEV", "ERR_UNSUPPORTED_ESM_URL_SCHEME",
		"ERR_METHOD_NOT_IMPLEMENTED")
	return m
}()

// errnoNumbers maps errno numbers as Python ("[Errno 111]"), Rust ("os
// error 111") and Windows ("[WinError 10061]") print them. Linux numbers,
// plus the macOS and Windows socket numbers that differ.
var errnoNumbers = map[int]string{
	1: "EPERM", 2: "ENOENT", 4: "EINTR", 5: "EIO", 11: "EAGAIN", 12: "ENOMEM", 13: "EACCES",
	16: "EBUSY", 17: "EEXIST", 20: "ENOTDIR", 21: "EISDIR", 22: "EINVAL", 24: "EMFILE", 28: "ENOSPC",
	30: "EROFS", 32: "EPIPE", 36: "ENAMETOOLONG", 39: "ENOTEMPTY", 98: "EADDRINUSE", 99: "EADDRNOTAVAIL",
	101: "ENETUNREACH", 103: "ECONNABORTED", 104: "ECONNRESET", 110: "ETIMEDOUT", 111: "ECONNREFUSED",
	113: "EHOSTUNREACH", 122: "EDQUOT",
	-2: "EAI_NONAME", -3: "EAI_AGAIN", -5: "EAI_NODATA", 8: "EAI_NONAME", // 8: macOS getaddrinfo
	54: "ECONNRESET", 60: "ETIMEDOUT", 61: "ECONNREFUSED", 65: "EHOSTUNREACH", // macOS
	10054: "ECONNRESET", 10060: "ETIMEDOUT", 10061: "ECONNREFUSED", 10065: "EHOSTUNREACH",
	10051: "ENETUNREACH", 10053: "ECONNABORTED", 11001: "EAI_NONAME", 11002: "EAI_AGAIN",
}

// winErrors maps the Windows system error codes below the socket numbers
// that say the same as an errno (winerror.h).
var winErrors = map[int]string{
	2: "ENOENT", 3: "ENOENT", 5: "EACCES", 19: "EROFS", 32: "EBUSY", 33: "EBUSY", 39: "ENOSPC", 80: "EEXIST",
	112: "ENOSPC", 183: "EEXIST", 1224: "EBUSY", 1450: "ENOMEM",
}

// deniedWords tells an access refusal in a message.
var deniedWords = newFoldSet(false, "denied")

// conflictWords name a conflict that decides over a number in a trace.
var conflictWords = newFoldSet(false, "already exists")

// errnoNumberRe finds errno numbers as Python, Rust and Windows print them;
// every match has one of errnoNumberWords.
var (
	errnoNumberRe    = regexp.MustCompile(`(?i)\[errno (-?\d+)\]|\[winerror (?P<win>-?\d+)\]|\(os error (?P<rust>\d+)\)|\berrno[ =:]+(-?\d+)`)
	winGroup         = errnoNumberRe.SubexpIndex("win")
	rustGroup        = errnoNumberRe.SubexpIndex("rust")
	errnoNumberWords = newFoldSet(false, "errno", "winerror", "os error")
)

// nameLookup are the words that go with Node's ENOTFOUND (getaddrinfo,
// the dns module's queries) when it means a host name that did not
// resolve; Node also prints the name after it ("ENOTFOUND
// api.example.com"). Package managers print ENOTFOUND for a package that
// does not exist ("ENOTFOUND Package jquerry not found"), which no retry
// finds: without either, it is not read as a DNS failure.
var nameLookup = newFoldSet(false, "getaddrinfo", "dns", "lookup", "resolv", "query", "host", "address")

// hostNext reports whether the word after ENOTFOUND is written like a
// host name: a dot inside it (api.example.com, redis.internal:6379).
func hostNext(after string) bool {
	after = strings.TrimLeft(after, " :")
	end := strings.IndexAny(after, " \t\n,;)")
	if end < 0 {
		end = len(after)
	}
	dot := strings.IndexByte(after[:end], '.')
	return dot > 0 && dot < end-1
}

// errnoKind looks for an errno name in Type, in Details codes, and in the
// message ("read ECONNRESET", "[Errno 111] Connection refused").
func (s *signals) errnoKind() (kind, bool) {
	var buf [64]byte
	if k, ok := errnoKinds[string(appendAlnumLower(buf[:0], s.typeRaw))]; ok {
		return k, true
	}
	for _, c := range s.codes {
		if k, ok := errnoKinds[c]; ok {
			return k, true
		}
	}
	msg := clip(s.in.Error.Message)
	found := 0
	for rest := msg; found < 8; {
		w, after, ok := nextErrnoWord(rest)
		if !ok {
			break
		}
		found++
		if k, ok := errnoKinds[string(appendAlnumLower(buf[:0], w))]; ok && (w != "ENOTFOUND" || nameLookup.in(msg) || hostNext(after)) {
			return k, true
		}
		rest = after
	}
	if !errnoNumberWords.in(msg) {
		return kNone, false
	}
	// A number in a trace is the thread's last errno, not always the
	// cause: where the message names a conflict ("stream already exists
	// or busy" beside "[errno=11]"), the words decide.
	if conflictWords.in(msg) {
		return kNone, false
	}
	if m := errnoNumberRe.FindStringSubmatch(msg); m != nil {
		for i, g := range m {
			if i == 0 || g == "" {
				continue
			}
			n, _ := strconv.Atoi(g)
			name, ok := errnoNumbers[n]
			switch {
			case i == winGroup && n < 10000:
				// Below the socket numbers, [WinError N] is a Windows
				// system error code, not an errno.
				name, ok = winErrors[n]
			case i == rustGroup && n == 5 && deniedWords.in(msg):
				// Rust prints Windows codes too: 5 is access denied there,
				// an I/O error on Unix; the message says which.
				name = "EACCES"
			}
			if ok {
				return errnoKinds[alnumLower(name)], true
			}
		}
	}
	return kNone, false
}

// nextErrnoWord returns the first word of s that is written like an errno
// name (ECONNRESET, EAI_AGAIN, E2BIG), an undici code (UND_ERR_SOCKET) or a
// Node.js code (ERR_NETWORK), and the text after it.
//
// It is the regular expression
//
//	\b(?:E[A-Z0-9]{3,}(?:_[A-Z0-9]+)*|UND_ERR_[A-Z_]+|ERR_[A-Z0-9_]+)\b
//
// written out: every alternative starts after a word boundary and consists of
// word characters only, and must be followed by a word boundary, so a match
// is always a whole word (a maximal run of ASCII letters, digits and
// underscores, as \b counts them), and a word matches when one alternative
// spells all of it. Scanning words is linear and allocates nothing; the
// regular expression backtracked over every capital letter.
func nextErrnoWord(s string) (word, rest string, ok bool) {
	i := 0
	for i < len(s) {
		for i < len(s) && !isWordByte(s[i]) {
			i++
		}
		j := i
		for j < len(s) && isWordByte(s[j]) {
			j++
		}
		if j > i && isErrnoWord(s[i:j]) {
			return s[i:j], s[j:], true
		}
		i = j
	}
	return "", "", false
}

func isErrnoWord(w string) bool {
	switch {
	case strings.HasPrefix(w, "UND_ERR_"):
		return len(w) > len("UND_ERR_") && allBytes(w[len("UND_ERR_"):], isUpperOrUnderscore)
	case strings.HasPrefix(w, "ERR_") && len(w) > len("ERR_") && allBytes(w[len("ERR_"):], isUpperDigitOrUnderscore):
		return true
	case len(w) < 4 || w[0] != 'E':
		return false
	}
	// E[A-Z0-9]{3,}(?:_[A-Z0-9]+)*: capitals and digits in groups joined by
	// single underscores, the first group at least three long.
	group := 0
	for i := 1; i < len(w); i++ {
		switch c := w[i]; {
		case c >= 'A' && c <= 'Z' || isDigit(c):
			group++
		case c == '_' && group > 0 && i > 3: // the first group is w[1:i]
			group = 0
		default:
			return false
		}
	}
	return group > 0
}

func isUpperOrUnderscore(c byte) bool      { return c >= 'A' && c <= 'Z' || c == '_' }
func isUpperDigitOrUnderscore(c byte) bool { return isUpperOrUnderscore(c) || isDigit(c) }

func allBytes(s string, f func(byte) bool) bool {
	for i := 0; i < len(s); i++ {
		if !f(s[i]) {
			return false
		}
	}
	return true
}
