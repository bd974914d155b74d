package classify

import (
	"math/rand/v2"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/omcp/toolfailure/internal/racetest"
)

// The prefilters and scanners in front of the regular expressions are only worth having if they
// change cost, not behaviour: a prefilter must never say "cannot match" where its pattern matches,
// and a scanner must find exactly what its pattern finds. These tests check that on random strings
// over alphabets dense in the patterns' own words and characters, plus the tricky cases by hand.
// The Unicode characters that (?i) folds to ASCII letters (the long s and the Kelvin sign) and
// invalid UTF-8 are in every alphabet.

// randomText concatenates 1 to n random tokens.
func randomText(rng *rand.Rand, tokens []string, n int) string {
	var b strings.Builder
	for range 1 + rng.IntN(n) {
		b.WriteString(tokens[rng.IntN(len(tokens))])
	}
	return b.String()
}

// foldTokens are added to every token list: case and Unicode traps.
var foldTokens = []string{"\u017f", "\u212a", "\xff", "\xc5", "é", " ", "_", "x", "X"}

func TestStatusPrefilterIsSound(t *testing.T) {
	t.Parallel()
	check := func(msg string) {
		if hasStatusDigits(msg) {
			return
		}
		for _, re := range httpStatusRes {
			if re.MatchString(msg) {
				t.Fatalf("%q matches %v, but the prefilter skips it", msg, re)
			}
		}
	}
	for _, msg := range []string{"HTTP/1.1 404", "http404", "status=503;", "(429) Too", "502", "error 500é",
		"sk_live_51Hx456789", "code 40001", "v4.0.0", "x: 503 B", "503-", "http/1.1404"} {
		check(msg)
	}
	alphabet := []byte("0123456789 45,:-()_/.aErorHTtpsuc=\u00e9X")
	rng := rand.New(rand.NewPCG(1, 2))
	for range 200_000 {
		b := make([]byte, 1+rng.IntN(14))
		for i := range b {
			b[i] = alphabet[rng.IntN(len(alphabet))]
		}
		check(string(b))
	}
}

// Each of statusMatchers must return where httpStatusRes[i] captures the status, or -1.
func TestStatusMatchersMatchPatterns(t *testing.T) {
	t.Parallel()
	if len(statusMatchers) != len(httpStatusRes) {
		t.Fatalf("%d matchers for %d patterns", len(statusMatchers), len(httpStatusRes))
	}
	check := func(msg string) {
		for i, re := range httpStatusRes {
			want := -1
			if m := re.FindStringSubmatchIndex(msg); m != nil {
				want = m[2]
			}
			if got := statusMatchers[i](msg); got != want {
				t.Fatalf("matcher %d on %q: %d, pattern %v: %d", i, msg, got, re, want)
			}
		}
		if got, want := statusAfterKeyword(msg), httpStatusRes[0].MatchString(msg); want && !got {
			t.Fatalf("%q matches %v, but statusAfterKeyword skips it", msg, httpStatusRes[0])
		}
	}
	for _, msg := range []string{
		"required: 412 MB, available: 87 MB", "error: 404 NOT_FOUND", "failed: 503 Service Unavailable", "size: 500 KiB",
		"x: 404 N", "x: 404 NO", "x: 404 NOT",
		"Request failed with status code 502", "HTTP/1.1 404 Not Found", "http404", "http/1.1404", "Status: 429",
		"status_code=503", "error code: 400", "ErrorCode 403", "response_code 500", "429 Client Error: Too Many Requests",
		"HTTPError: HTTP Error 503: Service Unavailable", "server returned an http 502", "got 404", "(403) Forbidden",
		"Error: 404", "error 500", "error:404", "xerror 500", "404 Not Found", "404, not found", "504 Gateway Time-out",
		"504 gateway timeout", "423 Locked", "423 LOC\u212aED", "503 \u017fervice Unavailable", "  502 Bad Gateway",
		"550 5.1.1 user unknown", "503", "503 ", "503 -", "503 - x", "503 -1", "503 ,:9", "512 x", "511-x", "460 x",
		"foo: 503 Service", "foo: 503 service", "(4044) X", "Error:  404",
		"远程服务器返回错误: (403) 已禁止。", "Non-200 status code (503)", "(500) items", "(401)\n", "(404) -", "(404)  X",
		"(404)x", "(503) \xff", "(403)\nReason: Forbidden", "(403)\t\tX", "(403)\v X", "(401)\r\n",
	} {
		check(msg)
	}
	tokens := append([]string{
		"status", "Status", "STATUS", " code", "_code", "code", "Code", "http", "HTTP", "/1.1", "/2", "error", "Error", "ERROR",
		"error:", "response", " Client Error", " Server Error", "HTTP Error ", "returned ", "responded with ", "received ",
		"got ", "an ", "a ", "http ", "status ", "(", ")", ":", ": ", ",", ", ", "-", " ", "  ", "\t", "\n", "=",
		"404", "503", "429", "500", "4", "5", "0", "1", "9", "52", "510", "511", "512", "550", "5.1.1", "46",
		"Bad Request", "bad request", "Not Found", "NOT FOUND", "Gateway Time-out", "Gateway Timeout", "Gateway Time",
		"Locked", "Too Many Requests", "Service Unavailable", "Request Entity Too Large", "Unauthorized", "A", "Z", "a",
		"已禁止", "\xff", "é", "\r", "\v", "\f",
	}, foldTokens...)
	rng := rand.New(rand.NewPCG(3, 4))
	for range 30_000 {
		check(randomText(rng, tokens, 8))
	}
}

// errnoWordRe is the pattern that nextErrnoWord spells out.
var errnoWordRe = regexp.MustCompile(`\b(?:E[A-Z0-9]{3,}(?:_[A-Z0-9]+)*|UND_ERR_[A-Z_]+|ERR_[A-Z0-9_]+)\b`)

func TestErrnoWordsMatchPattern(t *testing.T) {
	t.Parallel()
	check := func(msg string) {
		want := errnoWordRe.FindAllString(msg, 8)
		var got []string
		for rest := msg; len(got) < 8; {
			w, after, ok := nextErrnoWord(rest)
			if !ok {
				break
			}
			got = append(got, w)
			rest = after
		}
		if !slices.Equal(got, want) {
			t.Fatalf("errno words of %q: %q, pattern: %q", msg, got, want)
		}
	}
	for _, msg := range []string{"read ECONNRESET", "getaddrinfo EAI_AGAIN api.example.com", "E2BIG", "EABC_", "EAB_C",
		"EABC__D", "UND_ERR_SOCKET", "UND_ERR_1", "ERR_", "ERR_X_", "xECONNRESET", "ECONNRESETx", "ECONNRESET_1_2",
		"Eé", "ECONN\u212aRESET", "E1 E2 E3 E4 E5 E6 E7 E8 E9 EAAA EBBB ECCC EDDD EEEE EFFF EGGG EHHH EIII"} {
		check(msg)
	}
	tokens := append([]string{"E", "ECONN", "RESET", "A", "Z", "1", "2BIG", "_", "__", "ERR", "ERR_", "UND", "UND_",
		"UND_ERR_", "EAI_AGAIN", "e", "err", "-", ".", ":", "9"}, foldTokens...)
	rng := rand.New(rand.NewPCG(5, 6))
	for range 50_000 {
		check(randomText(rng, tokens, 10))
	}
}

// Prefilters of patterns that stay: where the pattern matches, the prefilter must say maybe.
func TestPrefiltersAreSound(t *testing.T) {
	t.Parallel()
	type pair struct {
		re    *regexp.Regexp
		maybe func(string) bool
	}
	pairs := []pair{
		{errnoNumberRe, errnoNumberWords.in},
		{retryPhraseRe, mayHaveRetryPhrase},
		{httpStatusRes[3], replyWords.in},
		{htmlTitleRe, titleTag.in},
		{grpcGoRe, func(s string) bool { return strings.Contains(s, "code = ") }},
		{grpcPyRe, func(s string) bool { return strings.Contains(s, "StatusCode.") }},
		{grpcNodeRe, func(s string) bool { return s != "" && isDigit(s[0]) }},
		{grpcStatusRe, func(s string) bool { return strings.Contains(s, "grpc") }},
		{jsonrpcRe, func(s string) bool { return strings.Contains(s, "-32") }},
		{sqlstateMsgRe, func(s string) bool { return strings.Contains(s, "SQLSTATE") }},
		{mysqlMsgRe, func(s string) bool { return strings.Contains(s, "Error ") }},
		{oracleMsgRe, func(s string) bool { return strings.Contains(s, "ORA-") }},
		{mysqlTupleRe, func(s string) bool { return strings.HasPrefix(s, "(") }},
	}
	tokens := append([]string{
		"errno", "Errno", "ERRNO", "[", "]", "(", ")", "winerror", "WinError", "os error", "OS Error", "=", ":", "-", "2",
		"111", "10061", "try", "Try", "retry", "trying", "wait", "Waiting", "available", "reset", "Resets", "back", "again",
		"AGAIN", " in ", " after ", " for ", "-after", "_after", "IN ", " For ", "AFTER", "After", "WAIT", "xin", "fore", "in", "\"", "'", "about ", "~", ".", ";", "\n", "20", "s",
		"returned", "responded with", "received", "got", "an", "status", "http", "404", "503", "<title>", "<TITLE>", "<Title>",
		"code = ", "Unavailable", " desc = ", "StatusCode.", "UNAVAILABLE", "14 ", "UNAVAILABLE: ", "grpc-status", "grpc_status",
		"MCP error ", "json-rpc", "JSONRPC", " error", "-32602", "-32", "SQLSTATE", "40001", "[23505]", "Error ", "1213",
		" (", "ORA-", "00060", "(1205, '", ", \"", "\\b", "3",
	}, foldTokens...)
	rng := rand.New(rand.NewPCG(7, 8))
	for range racetest.Rounds(30_000) {
		s := randomText(rng, tokens, 10)
		for _, p := range pairs {
			if p.re.MatchString(s) && !p.maybe(s) {
				t.Fatalf("%q matches %v, but its prefilter skips it", s, p.re)
			}
		}
		// prose's test for an HTML page must equal searching the lowered text.
		lower := strings.ToLower(s)
		if got, want := htmlMarkers.in(s), strings.Contains(lower, "<html") || strings.Contains(lower, "<!doctype"); got != want {
			t.Fatalf("htmlMarkers.in(%q) = %v, want %v", s, got, want)
		}
	}
	for _, s := range []string{"<HTML>", "<!DOCTYPE html>", "<\u212aHTML", "<htm", "x<!doctyp"} {
		lower := strings.ToLower(s)
		if got, want := htmlMarkers.in(s), strings.Contains(lower, "<html") || strings.Contains(lower, "<!doctype"); got != want {
			t.Fatalf("htmlMarkers.in(%q) = %v, want %v", s, got, want)
		}
	}
}

// naiveTextHas is textHas as a search for every phrase in turn, the definition that the phrase
// index must reproduce.
func naiveTextHas(text string, t textSet) bool {
	set := &textSets[t]
	hit := false
	for _, p := range set.phrases {
		if strings.Contains(text, p) {
			hit = true
			break
		}
	}
	for _, p := range set.patterns {
		if hit {
			break
		}
		hit = p.MatchString(text)
	}
	for _, u := range set.unless {
		if hit && strings.Contains(text, u) {
			hit = false
		}
	}
	return hit
}

func TestPhraseIndexMatchesPhrases(t *testing.T) {
	t.Parallel()
	check := func(text string) {
		s := signals{text: text}
		for set := range setCount {
			if got, want := s.textHas(set), naiveTextHas(text, set); got != want {
				t.Fatalf("set %d on %q: %v, want %v", set, text, got, want)
			}
		}
	}
	// Every phrase alone, and next to others, is found.
	var words []string
	for _, set := range textSets {
		for _, p := range slices.Concat(set.phrases, set.unless) {
			check(p + " ")
			check(" x" + p + "x ")
			words = append(words, strings.Fields(p)...)
		}
	}
	words = append(words, "a", "x", "no", "the", "only", "tool", "already", "requires", "require", "found", "can", "1", "42")
	rng := rand.New(rand.NewPCG(9, 10))
	for range 5_000 {
		var b strings.Builder
		b.WriteByte(' ')
		for range 1 + rng.IntN(12) {
			w := words[rng.IntN(len(words))]
			if rng.IntN(5) == 0 {
				w = w[:rng.IntN(len(w)+1)] // a word cut short
			}
			b.WriteString(w)
			if rng.IntN(8) != 0 {
				b.WriteByte(' ')
			}
		}
		b.WriteByte(' ')
		check(b.String())
	}
}

// The firewall and defect rules run each pattern only on a text that holds one of its literals
// (the firewall's in the lowered text): every text a pattern matches must hold one.
func TestWordPrefiltersAreSound(t *testing.T) {
	t.Parallel()
	pairs := []struct {
		re    *regexp.Regexp
		words interface{ Contains(string) bool }
		lower bool
	}{{blockText, blockWords, true}, {challengeText, challengeWords, true}, {scanPendingText, scanWords, true}, {defectText, defectWords, false}}
	tokens := append([]string{
		"已被", "系统", "网站管理员", "设置", "拦截", "屏蔽", "阻止", "！", "。", "\n", "防火墙", "防火牆", "ファイアウォール",
		"방화벽", "攔截", "阻擋", "遮断", "ブロック", "차단", "アプリケーション", "Web", "ウェブ", "により", "请求", "访问", "被",
		"安全规则", "blocked by ", "the ", "our ", "WAF", "firewall", "security ", "policy", "request ", "was ", "virus",
		"detected", "found", "scan ", "in progress", "pending", "human", "robot", "captcha", "病毒", "检测到", "ウイルス", "検出",
		"Warning", "Notice", ": ", "Undefined ", "array key", "index", "variable", "** (", "KeyError", ")", "MatchError",
		"FunctionClauseError", "('", " (", "NullPointerException", "java.lang.", "Uncaught ", "panicked at ", "unwrap()",
		"заблокирован", "ы ", "системой ", "защиты", "bloqueada", "bloqueado", " por ", "el ", "la ", "cortafuegos", "bloquée par ",
		"pare-feu", "vom ", "von der ", "blockiert", "aus Sicherheitsgründen ", "Firewall ",
		"(104,1)", "(12)", "Internal Error", "Internal error", " 200611031", "URW1147", "Fatal error: ", "TypeError",
		"Please ", "please ", "submit ", "a ", "full ", "bug report", "report the issue", " with ", "above output", "Assertion failed: ",
		"send us ", "the ", "crash dump", "core dump", "preprocessed file", "Пожалуйста, ", "отправьте нам ", "файл", "дамп",
	}, foldTokens...)
	rng := rand.New(rand.NewPCG(9, 10))
	// A sample under the race detector; scripts/test runs it at full size without it.
	for range racetest.Rounds(50_000) {
		s := randomText(rng, tokens, 8)
		for _, p := range pairs {
			text := s
			if p.lower {
				text = strings.ToLower(s)
			}
			if p.re.MatchString(s) && !p.words.Contains(text) {
				t.Fatalf("%q matches %v, but its literals skip it", s, p.re)
			}
		}
	}
}
