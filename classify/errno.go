package classify

import (
	"regexp"
	"strconv"
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
	add(kNetwork, "ECONNRESET", "ECONNABORTED", "EPIPE", "EADDRNOTAVAIL", "EADDRINUSE", "EINTR",
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

var (
	errnoNumberRe = regexp.MustCompile(`(?i)\[(?:errno|winerror) (-?\d+)\]|\(os error (\d+)\)|\berrno[ =:]+(-?\d+)`)
	errnoWordRe   = regexp.MustCompile(`\b(?:E[A-Z0-9]{3,}(?:_[A-Z0-9]+)*|UND_ERR_[A-Z_]+|ERR_[A-Z0-9_]+)\b`)
)

// errnoKind looks for an errno name in Type, in Details codes, and in the
// message ("read ECONNRESET", "[Errno 111] Connection refused").
func (s *signals) errnoKind() (kind, bool) {
	if k, ok := errnoKinds[alnumLower(s.typeRaw)]; ok {
		return k, true
	}
	for _, c := range s.codes {
		if k, ok := errnoKinds[c]; ok {
			return k, true
		}
	}
	msg := clip(s.in.Error.Message)
	for _, w := range errnoWordRe.FindAllString(msg, 8) {
		if k, ok := errnoKinds[alnumLower(w)]; ok {
			return k, true
		}
	}
	if m := errnoNumberRe.FindStringSubmatch(msg); m != nil {
		for _, g := range m[1:] {
			if g == "" {
				continue
			}
			n, _ := strconv.Atoi(g)
			if name, ok := errnoNumbers[n]; ok {
				return errnoKinds[alnumLower(name)], true
			}
		}
	}
	return kNone, false
}
