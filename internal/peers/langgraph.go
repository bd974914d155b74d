package peers

import (
	"slices"
	"strings"
)

// LangGraph is LangGraph's default_retry_on, the retry_on of a RetryPolicy
// unless one is given (langgraph 1.2.11, libs/langgraph/langgraph/_internal/_retry.py,
// https://github.com/langchain-ai/langgraph/blob/f09cfe8ffc1eeffd68f4b628ed69c30f7cad229f/libs/langgraph/langgraph/_internal/_retry.py):
// a ConnectionError is retried; an httpx.HTTPStatusError when its status is
// 5xx; a requests.HTTPError when `500 <= status < 600 if exc.response else
// True`, which is True for every HTTPError that raise_for_status raises,
// since a requests Response with a status of 400 or more is falsy
// (Response.__bool__ is Response.ok); then ValueError, TypeError,
// ArithmeticError, ImportError, LookupError, NameError, SyntaxError,
// RuntimeError, ReferenceError, StopIteration, StopAsyncIteration and
// OSError (with their subclasses) are not retried, and every other
// exception is.
//
// What it sees: the exception type, read as the Python class of that name
// (pythonClasses; an unknown or non-Python type is a plain Exception). An
// error with no type is read as httpx's HTTPStatusError when it has a status
// (raise_for_status), as the OSError subclass that Python raises for its
// errno name when it has one (ECONNREFUSED → ConnectionRefusedError, a
// ConnectionError; ETIMEDOUT → TimeoutError, an OSError), and otherwise as a
// plain Exception: a message-only error is retried.
var LangGraph = Peer{
	Name:    "LangGraph default_retry_on",
	Version: "langgraph 1.2.11",
	Rule:    "retries a ConnectionError, httpx's HTTPStatusError when 5xx, requests' HTTPError always (its response is falsy), and any other exception except ValueError, TypeError, ArithmeticError, ImportError, LookupError, NameError, SyntaxError, RuntimeError, ReferenceError, StopIteration, StopAsyncIteration, OSError",
	Source:  "https://github.com/langchain-ai/langgraph/blob/f09cfe8ffc1eeffd68f4b628ed69c30f7cad229f/libs/langgraph/langgraph/_internal/_retry.py",
	Sees:    "the exception type as a Python class (unknown: Exception); without one, a status as httpx's HTTPStatusError, an errno name as Python's OSError for it; a message-only error is retried",
	Decide:  retryOnly(langGraphRetries),
}

// The kinds of Python exception that default_retry_on tells apart.
const (
	pyException       = iota // anything else: retried
	pyConnectionError        // ConnectionError and its subclasses: retried
	pyHTTPXStatus            // httpx.HTTPStatusError: 5xx
	pyRequestsHTTP           // requests.HTTPError: retried (its response is falsy)
	pyExcluded               // one of the fixed list, or a subclass: not retried
)

func langGraphRetries(f Failure) bool {
	switch pythonClass(f) {
	case pyHTTPXStatus:
		return f.HTTPStatus >= 500 && f.HTTPStatus < 600
	case pyExcluded:
		return false
	default: // ConnectionError, requests.HTTPError, any other exception
		return true
	}
}

// pythonClass reads the failure as the Python exception default_retry_on is
// given.
func pythonClass(f Failure) int {
	if f.Type != "" {
		if k, ok := pythonClasses[f.Type]; ok {
			return k
		}
		if k, ok := pythonClasses[f.Name()]; ok && !strings.Contains(f.Type, ".") {
			return k
		}
		if k, ok := errnoClass(f.Name()); ok {
			return k
		}
		return pyException
	}
	if f.HTTPStatus != 0 {
		return pyHTTPXStatus
	}
	for _, c := range f.Codes {
		if k, ok := errnoClass(c); ok {
			return k
		}
	}
	return pyException
}

// errnoClass is the kind of the OSError subclass that Python raises for an
// errno name (PEP 3151): the connection errors are ConnectionError
// subclasses; every other errno, a timeout and a failed name lookup
// (socket.gaierror) among them, is an OSError.
func errnoClass(name string) (int, bool) {
	switch name {
	case "ECONNREFUSED", "ECONNRESET", "ECONNABORTED", "EPIPE", "ESHUTDOWN":
		return pyConnectionError, true
	}
	if slices.Contains(osErrnos, name) {
		return pyExcluded, true
	}
	return 0, false
}

// osErrnos are the other POSIX errno names, and the getaddrinfo codes
// (socket.gaierror), as Node.js and the C library spell them.
var osErrnos = []string{"E2BIG", "EACCES", "EADDRINUSE", "EADDRNOTAVAIL", "EAGAIN", "EBADF", "EBUSY", "ECANCELED",
	"ECHILD", "EDQUOT", "EEXIST", "EFBIG", "EHOSTDOWN", "EHOSTUNREACH", "EINTR", "EINVAL", "EIO", "EISDIR", "ELOOP",
	"EMFILE", "EMSGSIZE", "ENAMETOOLONG", "ENETDOWN", "ENETRESET", "ENETUNREACH", "ENFILE", "ENOENT", "ENOEXEC",
	"ENOMEM", "ENOSPC", "ENOSYS", "ENOTCONN", "ENOTDIR", "ENOTEMPTY", "ENOTSOCK", "ENOTSUP", "EOPNOTSUPP", "EPERM",
	"EPROTO", "EROFS", "ESPIPE", "ESRCH", "ETIMEDOUT", "ETXTBSY", "EXDEV", "ENOTFOUND", "EAI_AGAIN", "EAI_NONAME",
	"EAI_FAIL"}

// pythonClasses are Python exception classes by their qualified name, and
// the builtins also by their bare name: the classes of default_retry_on's
// list and their common subclasses in the standard library and in the HTTP
// and validation libraries that tools use.
var pythonClasses = func() map[string]int {
	m := map[string]int{}
	add := func(k int, names ...string) {
		for _, n := range names {
			m[n] = k
		}
	}
	add(pyConnectionError, "ConnectionError", "ConnectionRefusedError", "ConnectionResetError", "ConnectionAbortedError",
		"BrokenPipeError")
	add(pyExcluded,
		// builtins in the list, and their subclasses
		"ValueError", "UnicodeError", "UnicodeDecodeError", "UnicodeEncodeError", "UnicodeTranslateError",
		"TypeError", "ArithmeticError", "ZeroDivisionError", "OverflowError", "FloatingPointError",
		"ImportError", "ModuleNotFoundError", "LookupError", "KeyError", "IndexError", "NameError", "UnboundLocalError",
		"SyntaxError", "IndentationError", "TabError", "RuntimeError", "NotImplementedError", "RecursionError",
		"PythonFinalizationError", "ReferenceError", "StopIteration", "StopAsyncIteration",
		"OSError", "IOError", "EnvironmentError", "FileNotFoundError", "FileExistsError", "PermissionError",
		"IsADirectoryError", "NotADirectoryError", "TimeoutError", "BlockingIOError", "ChildProcessError",
		"InterruptedError", "ProcessLookupError",
		// the standard library
		"json.JSONDecodeError", "json.decoder.JSONDecodeError", "decimal.InvalidOperation", "decimal.DivisionByZero",
		"socket.gaierror", "socket.herror", "socket.timeout", "ssl.SSLError", "ssl.SSLCertVerificationError",
		"ssl.SSLZeroReturnError", "urllib.error.URLError", "urllib.error.HTTPError", "asyncio.TimeoutError",
		"asyncio.exceptions.TimeoutError", "concurrent.futures.TimeoutError", "subprocess.CalledProcessError",
		"builtins.ValueError", "builtins.TypeError", "builtins.KeyError", "builtins.RuntimeError", "builtins.OSError",
		// requests' exceptions are IOErrors (requests.RequestException), except HTTPError below
		"requests.RequestException", "requests.exceptions.RequestException", "requests.ConnectionError",
		"requests.exceptions.ConnectionError", "requests.Timeout", "requests.exceptions.Timeout",
		"requests.exceptions.ReadTimeout", "requests.exceptions.ConnectTimeout", "requests.exceptions.SSLError",
		"requests.exceptions.ProxyError", "requests.exceptions.TooManyRedirects", "requests.exceptions.InvalidURL",
		"requests.exceptions.MissingSchema", "requests.exceptions.ChunkedEncodingError",
		"requests.exceptions.JSONDecodeError", "requests.exceptions.InvalidJSONError",
		// aiohttp's connection errors are OSErrors, not ConnectionErrors
		"aiohttp.ClientOSError", "aiohttp.ClientConnectorError", "aiohttp.client_exceptions.ClientOSError",
		"aiohttp.client_exceptions.ClientConnectorError",
		// pydantic's ValidationError is a ValueError
		"pydantic.ValidationError", "pydantic_core.ValidationError", "pydantic_core._pydantic_core.ValidationError",
		"pydantic.error_wrappers.ValidationError")
	add(pyHTTPXStatus, "httpx.HTTPStatusError", "httpx._exceptions.HTTPStatusError")
	add(pyRequestsHTTP, "requests.HTTPError", "requests.exceptions.HTTPError")
	return m
}()
