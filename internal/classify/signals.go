package classify

import (
	"cmp"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"
)

// signals is everything the rules look at, extracted once per Input.
type signals struct {
	in  *Input
	now time.Time

	// Status codes: given, or derived from attributes, details or the
	// message when not given.
	http, grpc, jsonrpc          int32
	hasHTTP, hasGRPC, hasJSONRPC bool

	typeLast string // normalizeCode of the last segment of Type
	typeFull string // Type with only letters and digits, lower case
	typeRaw  string // last segment of Type as written, e.g. "ECONNRESET"

	// codes are normalizeCode'd error codes found in Details, most
	// specific fields first.
	codes []string
	// sqlstate is a SQLSTATE found in Details or the message.
	sqlstate string
	// smtp is the SMTP reply the message carries, if hasSMTP.
	smtp    smtpReply
	hasSMTP bool

	// text is the message, the message-like strings of Details, and the
	// codes and type split into words: lower case, URLs removed, every run
	// of other characters one space, with a space at both ends, so phrases
	// written as " not found" match at word starts.
	text string

	textHits [setCount]int8 // memo for textHas: 0 unknown, 1 yes, -1 no

	// detailTexts are the message-like strings of Details.
	detailTexts []string
	// The result of RetryTime, filled on first use: rules and finish may
	// each ask.
	retryDone bool
	retryOK   bool
	retryAt   time.Time

	// What phrases.scan found in text, filled on the first textHas.
	scanned                              bool
	phraseHits, unlessHits, patternGates uint32
}

const (
	maxTextPart = 8 << 10 // bytes of one message-like string kept for matching
	maxWalk     = 96      // JSON nodes visited in Details
)

// setStatuses copies the error's HTTP, gRPC and JSON-RPC codes, when it
// has them.
func (s *signals) setStatuses() {
	e := &s.in.Error
	if e.HTTPStatus != nil {
		s.http, s.hasHTTP = *e.HTTPStatus, true
	}
	if e.GRPCCode != nil {
		s.grpc, s.hasGRPC = *e.GRPCCode, true
	}
	if e.JSONRPCCode != nil {
		s.jsonrpc, s.hasJSONRPC = *e.JSONRPCCode, true
	}
}

func newSignals(in *Input, now time.Time) *signals {
	s := &signals{in: in, now: now}
	e := &in.Error
	typ := e.Type
	if typ == "" {
		typ = e.Attributes["error.type"]
	}
	if typ == "" {
		// Serialized JavaScript errors carry their class in "name".
		if d, ok := e.Details.(map[string]any); ok {
			if n, ok := d["name"].(string); ok && (strings.HasSuffix(n, "Error") || strings.HasSuffix(n, "Exception")) {
				typ = n
			}
		}
	}
	s.typeRaw = lastSegment(typ)
	s.typeLast = normalizeCode(s.typeRaw)
	s.typeFull = alnumLower(typ)
	s.setStatuses()

	w := walker{budget: maxWalk}
	w.walk(e.Details, 0, "")
	s.codes = w.codes
	s.sqlstate = w.sqlstate
	s.detailTexts = w.texts
	s.smtp, s.hasSMTP = parseSMTP(e.Message, typ)
	s.deriveStatuses(&w)

	// Size the text once: the normalized text is about as long as its parts.
	n := len(clip(e.Message)) + len(s.typeRaw) + 8
	for _, t := range w.texts {
		n += len(t) + 1
	}
	for _, c := range w.rawCodes {
		n += len(c) + 1
	}
	b := textBuilder{b: make([]byte, 0, n+n/4)}
	b.add(e.Message)
	for _, t := range w.texts {
		b.add(t)
	}
	for _, c := range w.rawCodes {
		b.add(c)
	}
	b.add(s.typeRaw)
	s.text = b.String()
	return s
}

// retryTime is RetryTime(s.in, s.now), computed once.
func (s *signals) retryTime() (time.Time, bool) {
	if !s.retryDone {
		s.retryAt, s.retryOK = retryTime(s.in, s.now, s.detailTexts, true)
		s.retryDone = true
	}
	return s.retryAt, s.retryOK
}

// deriveStatuses fills status codes that were not given from OpenTelemetry
// attributes, from status fields in Details, and from well-known message
// shapes ("Request failed with status code 502", "rpc error: code =
// Unavailable", "MCP error -32602"). Many tools report only a message.
func (s *signals) deriveStatuses(w *walker) {
	e := &s.in.Error
	if !s.hasHTTP {
		if v, ok := attrInt(e.Attributes, "http.response.status_code", "http.status_code"); ok && v >= 100 && v < 600 {
			s.http, s.hasHTTP = v, true
		} else if w.http != 0 {
			s.http, s.hasHTTP = w.http, true
		} else if v, ok := httpFromMessage(e.Message); ok && !s.hasSMTP {
			// An SMTP reply's code is not an HTTP status (smtp.go).
			s.http, s.hasHTTP = v, true
		} else if str, ok := e.Details.(string); ok {
			if v, ok := httpFromHTMLTitle(str); ok {
				s.http, s.hasHTTP = v, true
			}
		}
	}
	if !s.hasGRPC {
		if v, ok := attrInt(e.Attributes, "rpc.grpc.status_code"); ok && v >= 0 && v <= 16 {
			s.grpc, s.hasGRPC = v, true
		} else if w.hasGRPC {
			s.grpc, s.hasGRPC = w.grpc, true
		} else if v, ok := grpcFromMessage(e.Message); ok {
			s.grpc, s.hasGRPC = v, true
		}
	}
	if !s.hasJSONRPC {
		if v, ok := attrInt(e.Attributes, "rpc.jsonrpc.error_code"); ok {
			s.jsonrpc, s.hasJSONRPC = v, true
		} else if w.jsonrpc != 0 {
			s.jsonrpc, s.hasJSONRPC = w.jsonrpc, true
		} else if v, ok := jsonrpcFromMessage(e.Message); ok {
			s.jsonrpc, s.hasJSONRPC = v, true
		}
	}
}

func attrInt(attrs map[string]string, keys ...string) (int32, bool) {
	for _, k := range keys {
		if v, ok := attrs[k]; ok {
			v = strings.TrimSpace(v)
			if !isInteger(v) {
				continue // what ParseInt rejects, without its error value
			}
			n, err := strconv.ParseInt(v, 10, 32)
			if err == nil {
				return int32(n), true
			}
		}
	}
	return 0, false
}

var (
	htmlTitleRe  = regexp.MustCompile(`(?i)<title>\s*([45][0-9]{2})\b`)
	titleTag     = newFoldSet(false, "<title>")
	grpcGoRe     = regexp.MustCompile(`\bcode = ([A-Za-z]+) desc = `)
	grpcPyRe     = regexp.MustCompile(`\bStatusCode\.([A-Z_]+)\b`)
	grpcNodeRe   = regexp.MustCompile(`^([0-9]{1,2}) ([A-Z_]{2,}): `)
	grpcStatusRe = regexp.MustCompile(`\bgrpc[-_]status[:=]\s*([0-9]{1,2})\b`)
	jsonrpcRe    = regexp.MustCompile(`(?i)\b(?:mcp|json-?rpc) error:? (-32[0-9]{3})\b`)
)

func httpFromHTMLTitle(body string) (int32, bool) {
	if len(body) > maxTextPart {
		body = body[:maxTextPart]
	}
	if !titleTag.in(body) {
		return 0, false
	}
	if m := htmlTitleRe.FindStringSubmatch(body); m != nil {
		n, _ := strconv.Atoi(m[1])
		return int32(n), true
	}
	return 0, false
}

// grpcNames maps canonical gRPC status names, in any spelling, to codes.
var grpcNames = map[string]int32{
	"ok": 0, "cancelled": 1, "canceled": 1, "unknown": 2, "invalidargument": 3,
	"deadlineexceeded": 4, "notfound": 5, "alreadyexists": 6, "permissiondenied": 7,
	"resourceexhausted": 8, "failedprecondition": 9, "aborted": 10, "outofrange": 11,
	"unimplemented": 12, "internal": 13, "unavailable": 14, "dataloss": 15, "unauthenticated": 16,
}

func grpcFromMessage(msg string) (int32, bool) {
	if len(msg) > maxTextPart {
		msg = msg[:maxTextPart]
	}
	// Each pattern runs only on a message that has its literal; most
	// messages have none of them.
	if strings.Contains(msg, "code = ") {
		if m := grpcGoRe.FindStringSubmatch(msg); m != nil {
			if c, ok := grpcNames[alnumLower(m[1])]; ok {
				return c, true
			}
		}
	}
	if strings.Contains(msg, "StatusCode.") {
		if m := grpcPyRe.FindStringSubmatch(msg); m != nil {
			if c, ok := grpcNames[alnumLower(m[1])]; ok {
				return c, true
			}
		}
	}
	if msg != "" && isDigit(msg[0]) {
		if m := grpcNodeRe.FindStringSubmatch(msg); m != nil {
			c, ok := grpcNames[alnumLower(m[2])]
			if n, _ := strconv.Atoi(m[1]); ok && int32(n) == c {
				return c, true
			}
		}
	}
	if strings.Contains(msg, "grpc") {
		if m := grpcStatusRe.FindStringSubmatch(msg); m != nil {
			if n, _ := strconv.Atoi(m[1]); n <= 16 {
				return int32(n), true
			}
		}
	}
	return 0, false
}

func jsonrpcFromMessage(msg string) (int32, bool) {
	if len(msg) > maxTextPart {
		msg = msg[:maxTextPart]
	}
	if !strings.Contains(msg, "-32") { // the pattern's only literal that case cannot change
		return 0, false
	}
	if m := jsonrpcRe.FindStringSubmatch(msg); m != nil {
		n, _ := strconv.Atoi(m[1])
		return int32(n), true
	}
	return 0, false
}

// walker collects codes, message-like strings and status numbers from
// Details. It visits map keys in sorted order so that results never depend
// on Go's map iteration order, and stops after a fixed number of nodes.
type walker struct {
	budget   int
	codes    []string // normalized, in priority order
	rawCodes []string
	texts    []string
	http     int32
	sqlstate string
	grpc     int32
	hasGRPC  bool
	jsonrpc  int32
}

// codeFields rank the keys that hold error codes: the lower, the more
// specific. ErrorInfo.reason beats error.status, for example: Google sends
// status PERMISSION_DENIED with reason SERVICE_DISABLED.
var codeFields = map[string]int{
	"reason": 0, "reasoncode": 0, "blockreason": 0, "declinecode": 0,
	"code": 1, "errorcode": 1, "errcode": 1, "subcode": 1,
	"type": 2, "errortype": 2, "error": 2, "tag": 2, "name": 3, "status": 3,
}

// textFields are keys whose string values are prose worth matching.
var textFields = map[string]bool{
	"message": true, "msg": true, "errormessage": true, "errmsg": true, "description": true,
	"errordescription": true, "detail": true, "details": true, "title": true, "reason": true,
	"hint": true, "statusmessage": true, "statustext": true, "body": true, "data": true,
	"cause": true, "error": true, "errorsummary": true, "errormessages": true, "localizedmessage": true, "summary": true, "text": true,
}

// containerFields are the keys walked into, in this order of preference.
var containerFields = map[string]int{
	"error": 0, "errors": 1, "details": 2, "data": 3, "cause": 4, "err": 4,
	"response": 5, "body": 5, "metadata": 6, "responsemetadata": 6, "block": 7,
	"structuredcontent": 8, "extensions": 3, "errorinfo": 2, "innererror": 2, "result": 9, "content": 9,
}

func (w *walker) walk(v any, depth int, key string) {
	if w.budget <= 0 || depth > 5 {
		return
	}
	w.budget--
	switch x := v.(type) {
	case string:
		if depth == 0 || textFields[key] || key == "errors" || key == "messages" {
			w.texts = append(w.texts, prose(x))
		}
	case []any:
		for i, e := range x {
			if i >= 8 {
				break
			}
			w.walk(e, depth+1, key)
		}
	case map[string]any:
		w.walkMap(x, depth)
	}
}

func (w *walker) walkMap(m map[string]any, depth int) {
	// The buffers keep a typical error body off the heap.
	var keyBuf [16]string
	keys := keyBuf[:0]
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)

	type field struct {
		rank int
		key  string
	}
	var codeBuf, containerBuf [8]field
	codes, containers := codeBuf[:0], containerBuf[:0]
	for _, k := range keys {
		nk := alnumLower(k)
		val := m[k]
		switch x := val.(type) {
		case string:
			w.stringNumber(nk, x, m)
			if rank, ok := codeFields[nk]; ok && k != "@type" && looksLikeCode(x) {
				codes = append(codes, field{rank, k})
			} else if textFields[nk] {
				w.texts = append(w.texts, prose(x))
			}
		case float64:
			w.numberField(nk, x, m)
		case map[string]any, []any:
			if rank, ok := containerFields[nk]; ok {
				containers = append(containers, field{rank, k})
			}
		}
	}
	byRank := func(a, b field) int { return cmp.Compare(a.rank, b.rank) }
	slices.SortStableFunc(codes, byRank)
	for _, f := range codes {
		raw := lastSegment(m[f.key].(string))
		if c := normalizeCode(raw); c != "" {
			w.codes = append(w.codes, c)
			w.rawCodes = append(w.rawCodes, raw)
		}
	}
	slices.SortStableFunc(containers, byRank)
	for _, f := range containers {
		w.walk(m[f.key], depth+1, alnumLower(f.key))
	}
}

// numberField picks up status codes written as numbers: an HTTP status in
// status/statusCode/httpStatusCode, a JSON-RPC error object's code, a
// gRPC status object's code.
func (w *walker) numberField(nk string, x float64, m map[string]any) {
	if x != float64(int32(x)) {
		return
	}
	n := int32(x)
	switch nk {
	case "status", "statuscode", "httpstatus", "httpstatuscode", "statuscodevalue":
		if w.http == 0 && n >= 400 && n < 600 {
			w.http = n
		}
	case "code":
		_, hasMessage := m["message"]
		_, hasDetails := m["details"]
		_, hasMetadata := m["metadata"]
		switch {
		case n <= -32000 && n >= -32768 && hasMessage:
			if w.jsonrpc == 0 {
				w.jsonrpc = n
			}
		case n >= 400 && n < 600 && hasMessage:
			if w.http == 0 {
				w.http = n
			}
		case n >= 1 && n <= 16 && (hasDetails || hasMetadata) && !hasMessage:
			if !w.hasGRPC {
				w.grpc, w.hasGRPC = n, true
			}
		}
	}
}

// stringNumber picks up numbers written as strings: GitHub's "status":
// "404", and a SQLSTATE in the code field of a PostgreSQL error object
// (node-postgres, asyncpg), recognised by its severity or routine fields.
func (w *walker) stringNumber(nk, x string, m map[string]any) {
	switch nk {
	case "status", "statuscode", "httpstatus", "httpstatuscode":
		if n, ok := atoi(x); ok && w.http == 0 && n >= 400 && n < 600 {
			w.http = int32(n)
		}
	case "sqlstate":
		if isSQLState(x) && w.sqlstate == "" {
			w.sqlstate = x
		}
	case "code":
		_, severity := m["severity"]
		_, routine := m["routine"]
		if (severity || routine) && isSQLState(x) && w.sqlstate == "" {
			w.sqlstate = x
		}
	}
}

func isSQLState(s string) bool {
	if len(s) != 5 {
		return false
	}
	for i := 0; i < 5; i++ {
		if c := s[i]; !(c >= '0' && c <= '9' || c >= 'A' && c <= 'Z') {
			return false
		}
	}
	return true
}

// looksLikeCode accepts short identifiers such as "rate_limit_exceeded",
// "ThrottlingException" or "com.amazonaws…#ResourceNotFoundException", and
// rejects prose and numbers.
func looksLikeCode(s string) bool {
	if len(s) == 0 || len(s) > 120 || strings.ContainsAny(s, " \t\n") {
		return false
	}
	for i := 0; i < len(s); i++ {
		if c := s[i]; c >= 'A' && c <= 'Z' || c >= 'a' && c <= 'z' {
			return true
		}
	}
	return false
}

// prose returns the part of a body worth reading: for an HTML error page,
// its title and headings, not its scripts and styles; otherwise the text.
func prose(s string) string {
	s = clip(s)
	// Neither marker has a letter that lower-cases from outside ASCII, so
	// an ASCII case-insensitive search equals searching strings.ToLower(head).
	if !htmlMarkers.in(s[:min(len(s), 512)]) {
		return s
	}
	var parts []string
	for _, m := range htmlProseRe.FindAllStringSubmatch(s, 4) {
		parts = append(parts, m[1])
	}
	return strings.Join(parts, ". ")
}

var htmlMarkers = newFoldSet(false, "<html", "<!doctype")

var htmlProseRe = regexp.MustCompile(`(?is)<(?:title|h1|h2)[^>]*>([^<]{1,300})<`)

func clip(s string) string {
	if len(s) > maxTextPart {
		return s[:maxTextPart]
	}
	return s
}

// lastSegment strips package and namespace qualifiers and pointer marks:
// "*github.AbuseRateLimitError" → "AbuseRateLimitError",
// "com.amazonaws.dynamodb.v20120810#ResourceNotFoundException" →
// "ResourceNotFoundException", "Errno::ECONNREFUSED" → "ECONNREFUSED".
func lastSegment(s string) string {
	s = strings.TrimSpace(s)
	if i := strings.LastIndexAny(s, ".#:/\\$"); i >= 0 {
		s = s[i+1:]
	}
	return strings.TrimLeft(s, "*_&")
}

// normalizeCode lower-cases, keeps letters and digits, and removes one
// trailing "exception", "error", "exc" or "fault".
func normalizeCode(s string) string {
	n := alnumLower(s)
	for _, suf := range []string{"exception", "error", "exc", "fault"} {
		if len(n) > len(suf) && strings.HasSuffix(n, suf) {
			return n[:len(n)-len(suf)]
		}
	}
	return n
}

func alnumLower(s string) string {
	if isAlnumLower(s) {
		return s // the common case for JSON keys and codes: nothing to copy
	}
	return string(appendAlnumLower(make([]byte, 0, len(s)), s))
}

// isAlnumLower reports whether s has only lower-case ASCII letters and digits.
func isAlnumLower(s string) bool {
	for i := 0; i < len(s); i++ {
		if c := s[i]; !(c >= 'a' && c <= 'z' || c >= '0' && c <= '9') {
			return false
		}
	}
	return true
}

// atoi is strconv.Atoi for the strings that look like integers. Most
// strings that reach it are not, and Atoi's error value allocates.
func atoi(s string) (int, bool) {
	if !isInteger(s) {
		return 0, false
	}
	n, err := strconv.Atoi(s)
	return n, err == nil
}

// isInteger reports whether s is an optional sign and decimal digits, the
// only strings that strconv.Atoi and ParseInt(s, 10, …) may accept.
func isInteger(s string) bool {
	if s != "" && (s[0] == '+' || s[0] == '-') {
		s = s[1:]
	}
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		if !isDigit(s[i]) {
			return false
		}
	}
	return true
}

// appendAlnumLower appends the ASCII letters and digits of s, lower-cased.
// With a buffer on the caller's stack it lets a lookup such as
// errnoKinds[string(appendAlnumLower(buf[:0], w))] run without allocating.
func appendAlnumLower(b []byte, s string) []byte {
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c >= 'a' && c <= 'z', c >= '0' && c <= '9':
			b = append(b, c)
		case c >= 'A' && c <= 'Z':
			b = append(b, c+'a'-'A')
		}
	}
	return b
}

// textBuilder assembles signals.text.
type textBuilder struct {
	b []byte
}

func (t *textBuilder) add(s string) {
	if s == "" {
		return
	}
	s = clip(s)
	if len(t.b) == 0 {
		t.b = append(t.b, ' ')
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		// Drop URLs: paths and query strings are full of words ("not-found",
		// "rate-limits") that say nothing about this failure.
		if c == ':' && strings.HasPrefix(s[i:], "://") {
			t.dropScheme()
			i += 3
			for i < len(s) && !isURLEnd(s[i]) {
				i++
			}
			t.space()
			continue
		}
		switch {
		case c >= 'a' && c <= 'z', c >= '0' && c <= '9':
			t.b = append(t.b, c)
		case c >= 'A' && c <= 'Z':
			// Split camelCase and acronyms: "ResourceNotFound" → "resource
			// not found", "HTTPError" → "http error".
			if i > 0 {
				p := s[i-1]
				nextLower := i+1 < len(s) && s[i+1] >= 'a' && s[i+1] <= 'z'
				if p >= 'a' && p <= 'z' || (p >= 'A' && p <= 'Z' && nextLower) {
					t.space()
				}
			}
			t.b = append(t.b, c+'a'-'A')
		default:
			t.space()
		}
	}
	t.space()
}

func (t *textBuilder) space() {
	if len(t.b) > 0 && t.b[len(t.b)-1] != ' ' {
		t.b = append(t.b, ' ')
	}
}

// dropScheme removes the URL scheme just written ("https", "http+docker").
func (t *textBuilder) dropScheme() {
	i := len(t.b)
	for i > 0 && t.b[i-1] != ' ' {
		i--
	}
	t.b = t.b[:i]
}

func isURLEnd(c byte) bool {
	return c <= ' ' || c == '"' || c == '\'' || c == '<' || c == '>' || c == ')' || c == ']' || c == '}' || c == '`'
}

func (t *textBuilder) String() string {
	if len(t.b) == 0 {
		return " "
	}
	return string(t.b)
}
