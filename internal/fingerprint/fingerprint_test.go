package fingerprint

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
	"unicode/utf8"
)

func i32(v int32) *int32 { return &v }

func TestTemplatePlaceholders(t *testing.T) {
	cases := []struct{ in, want string }{
		{"order 12345 not found", "order <num> not found"},
		{"retry in 30s or 250ms", "retry in <num> or <num>"},
		{"version 1.2.3 is too old", "version <host> is too old"},
		{"user 7f3c2a9e-1b2d-4c5e-9f00-aa11bb22cc33 is locked", "user <uuid> is locked"},
		{"connect to db-3.internal.example.com:5432 failed", "connect to <host> failed"},
		{"dial tcp 10.0.4.17:443: i/o timeout", "dial tcp <host>: i/o timeout"},
		{"no mailbox for jane.doe@example.org.", "no mailbox for <email>."},
		{"open /var/lib/app/data/17.db: permission denied", "open <path>: permission denied"},
		{`field "customer_name" is required`, "field <str> is required"},
		{"field 'customer_name' is required", "field <str> is required"},
		{"can't reach the upstream", "can't reach the upstream"},
		{"token expired at 2026-11-30T12:00:01.123Z", "token expired at <time>"},
		{"GET https://api.example.com/v1/items?id=9 returned 502", "GET <url> returned <num>"},
		{"request req_8f3K2q failed", "request <id> failed"},
		{"object 0xdeadbeef freed twice", "object <hex> freed twice"},
		{"commit 9fceb02d0ae598e95dc970b74767f19372d61af8 missing", "commit <hex> missing"},
		{"ids 1, 2, 3 and 4 are unknown", "ids <num> and <num> are unknown"},
		{"ids [1, 22, 333] are unknown", "ids [<num>] are unknown"},
		{"  many   spaces\n\there ", "many spaces here"},
		{"rate 99.5% over limit 1,000", "rate <num> over limit <num>"},
		{"", ""},
	}
	for _, c := range cases {
		if got := Template(c.in); got != c.want {
			t.Errorf("Template(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}

func TestTemplateBounded(t *testing.T) {
	long := strings.Repeat("word ", 10000) + "é"
	if got := Template(long); len(got) > MaxTemplate {
		t.Fatalf("template of %d bytes, want at most %d", len(got), MaxTemplate)
	}
	// A cut never splits a UTF-8 sequence.
	s := strings.Repeat("é ", 3000)
	if got := Template(s); !utf8.ValidString(got) || len(got) > MaxTemplate || len(got) < MaxTemplate-3 {
		t.Fatalf("bad cut: %d bytes, valid UTF-8 %v", len(got), utf8.ValidString(got))
	}
}

func TestFingerprintStability(t *testing.T) {
	base := Input{Tool: "get_order", Type: "NotFound", HTTPStatus: i32(404), Message: "order 12345 not found"}
	fp, _ := Of(base)
	if !Valid(fp) {
		t.Fatalf("fingerprint %q is not 16 lower-case hex characters", fp)
	}
	same := base
	same.Message = "Order 987 not found"
	if got, _ := Of(same); got != fp {
		t.Errorf("same template, other variable part: %s != %s", got, fp)
	}
	for name, mut := range map[string]func(*Input){
		"tool":     func(in *Input) { in.Tool = "get_invoice" },
		"type":     func(in *Input) { in.Type = "Gone" },
		"http":     func(in *Input) { in.HTTPStatus = i32(410) },
		"no http":  func(in *Input) { in.HTTPStatus = nil },
		"grpc":     func(in *Input) { in.GRPCCode = i32(5) },
		"jsonrpc":  func(in *Input) { in.JSONRPCCode = i32(-32001) },
		"template": func(in *Input) { in.Message = "order 12345 not shipped" },
	} {
		in := base
		mut(&in)
		if got, _ := Of(in); got == fp {
			t.Errorf("%s changed but the fingerprint did not", name)
		}
	}
	// Fixed value: the fingerprint is stored, so it must not change between releases unnoticed.
	if fp != mustFP(t, base) {
		t.Fatal("not deterministic")
	}
}

func mustFP(t *testing.T, in Input) string {
	t.Helper()
	fp, _ := Of(in)
	return fp
}

func TestValid(t *testing.T) {
	for s, want := range map[string]bool{
		"0123456789abcdef": true, "0123456789ABCDEF": false, "0123456789abcde": false,
		"0123456789abcdefa": false, "0123456789abcdeg": false, "": false,
	} {
		if Valid(s) != want {
			t.Errorf("Valid(%q) = %v", s, !want)
		}
	}
}

// labelled is one record of the labelled set: its true group and what a fingerprint sees.
type labelled struct {
	group int
	in    Input
}

// slot values: each call returns another variable part of the same kind, in the forms different
// languages and libraries print it.
func slots(r *rand.Rand) map[string]func() string {
	pick := func(xs ...string) string { return xs[r.IntN(len(xs))] }
	hexs := func(n int) string {
		const a = "0123456789abcdef"
		b := make([]byte, n)
		for i := range b {
			b[i] = a[r.IntN(16)]
		}
		return string(b)
	}
	return map[string]func() string{
		"num": func() string { return fmt.Sprint(r.IntN(1_000_000)) },
		"big": func() string {
			return pick(fmt.Sprint(r.IntN(9000)+1000), fmt.Sprintf("%d,%03d", r.IntN(90)+1, r.IntN(1000)))
		},
		"dec": func() string { return fmt.Sprintf("%.*f", r.IntN(3)+1, r.Float64()*1000) },
		"dur": func() string {
			return pick(fmt.Sprintf("%ds", r.IntN(120)+1), fmt.Sprintf("%dms", r.IntN(5000)+1), fmt.Sprintf("%.1fs", r.Float64()*30))
		},
		"uuid": func() string { return hexs(8) + "-" + hexs(4) + "-4" + hexs(3) + "-a" + hexs(3) + "-" + hexs(12) },
		"hex":  func() string { return pick("0x"+hexs(r.IntN(8)+4), hexs(40)) },
		"host": func() string {
			return pick(fmt.Sprintf("db-%d.internal", r.IntN(20)), fmt.Sprintf("api%d.example.com", r.IntN(9)), fmt.Sprintf("10.%d.%d.%d", r.IntN(255), r.IntN(255), r.IntN(255)),
				fmt.Sprintf("cache.eu-west-%d.example.net:%d", r.IntN(3)+1, 6379+r.IntN(3)))
		},
		"email": func() string {
			return pick("jane", "bob.smith", "ops+alerts", "x_y") + fmt.Sprintf("%d@", r.IntN(99)) + pick("example.com", "corp.example.org")
		},
		"path": func() string {
			return pick("/var/lib/app/", "/tmp/", "/home/u/", "./data/", `C:\Users\app\`) + fmt.Sprintf("f%d.json", r.IntN(1000))
		},
		"q": func() string {
			v := pick("customer name", "sku", "ZX-44", "amount_due", "dueDate", "hello world")
			return pick(`"`+v+`"`, `'`+v+`'`, "`"+v+"`")
		},
		"time": func() string {
			return pick(fmt.Sprintf("2026-%02d-%02dT%02d:%02d:%02dZ", r.IntN(12)+1, r.IntN(28)+1, r.IntN(24), r.IntN(60), r.IntN(60)),
				fmt.Sprintf("2026-%02d-%02d %02d:%02d:%02d.%03d+02:00", r.IntN(12)+1, r.IntN(28)+1, r.IntN(24), r.IntN(60), r.IntN(60), r.IntN(1000)),
				fmt.Sprintf("%02d:%02d:%02d", r.IntN(24), r.IntN(60), r.IntN(60)))
		},
		"id": func() string { return pick("req_", "ord-", "cus_", "inv_") + hexs(6) + fmt.Sprint(r.IntN(9)) },
		"url": func() string {
			return fmt.Sprintf("https://api.example.com/v%d/items/%d?page=%d", r.IntN(3)+1, r.IntN(1e6), r.IntN(9))
		},
		"list": func() string { return strings.Repeat(fmt.Sprint(r.IntN(99))+", ", r.IntN(4)) + fmt.Sprint(r.IntN(99)) },
	}
}

// groupSpecs are the true groups. Several differ from another only in the tool, the type, a
// status code or one fixed word, so that a fingerprint that ignored any of them would merge them.
var groupSpecs = []struct {
	tool, typ string
	http      int32
	msg       string // {slot} marks a variable part
}{
	{"get_order", "NotFound", 404, "order {num} not found"},
	{"get_invoice", "NotFound", 404, "order {num} not found"},
	{"get_order", "Gone", 410, "order {num} not found"},
	{"get_order", "NotFound", 404, "order {num} not shipped"},
	{"get_order", "NotFound", 404, "customer {id} not found"},
	{"get_order", "", 0, "order {num} not found"},
	{"send_mail", "SMTPError", 0, "mailbox {email} unavailable"},
	{"send_mail", "SMTPError", 0, "mailbox {email} full"},
	{"send_mail", "SMTPError", 0, "relay {host} refused the connection"},
	{"send_mail", "", 429, "rate limit exceeded, retry in {dur}"},
	{"send_mail", "", 503, "service unavailable, retry in {dur}"},
	{"query_db", "ECONNREFUSED", 0, "connect ECONNREFUSED {host}"},
	{"query_db", "ECONNRESET", 0, "read ECONNRESET {host}"},
	{"query_db", "", 0, "deadlock detected while updating row {num} in table {q}"},
	{"query_db", "", 0, "duplicate key value violates unique constraint {q}"},
	{"query_db", "", 0, "relation {q} does not exist"},
	{"query_db", "", 0, "column {q} does not exist"},
	{"query_db", "", 0, "canceling statement due to statement timeout after {dur}"},
	{"read_file", "FileNotFoundError", 0, "[Errno 2] No such file or directory: {path}"},
	{"read_file", "PermissionError", 0, "[Errno 13] Permission denied: {path}"},
	{"read_file", "IsADirectoryError", 0, "[Errno 21] Is a directory: {path}"},
	{"write_file", "OSError", 0, "no space left on device while writing {path}"},
	{"fetch_url", "ReadTimeout", 0, "read timeout on {url} after {dur}"},
	{"fetch_url", "ConnectTimeout", 0, "connect timeout on {url} after {dur}"},
	{"fetch_url", "", 502, "upstream {host} returned bad gateway"},
	{"fetch_url", "", 504, "upstream {host} timed out"},
	{"fetch_url", "SSLError", 0, "certificate for {host} expired at {time}"},
	{"fetch_url", "", 301, "moved permanently to {url}"},
	{"create_user", "ValidationError", 422, "field {q} is required"},
	{"create_user", "ValidationError", 422, "field {q} must be at most {num} characters"},
	{"create_user", "ValidationError", 422, "field {q} must be a valid e-mail address, got {q}"},
	{"create_user", "Conflict", 409, "user {email} already exists"},
	{"create_user", "", 403, "caller {id} may not create users in organisation {num}"},
	{"charge_card", "CardError", 402, "card declined: insufficient funds for amount {dec}"},
	{"charge_card", "CardError", 402, "card declined: expired card"},
	{"charge_card", "CardError", 402, "card declined: incorrect cvc"},
	{"charge_card", "IdempotencyError", 409, "idempotency key {uuid} reused with different parameters"},
	{"charge_card", "", 429, "too many requests for account {id}"},
	{"deploy", "", 0, "confirmation required before deploying to production"},
	{"deploy", "", 0, "deployment {uuid} failed at step {num}: image {q} not found"},
	{"deploy", "", 0, "deployment {uuid} failed at step {num}: health check timed out"},
	{"deploy", "", 0, "commit {hex} is not on the release branch"},
	{"search_docs", "", 400, "query too long: {num} tokens, limit {big}"},
	{"search_docs", "", 500, "index shard {num} unavailable on {host}"},
	{"search_docs", "", 500, "index shard {num} corrupted on {host}"},
	{"search_docs", "", 0, "unknown filter keys: {list}"},
	{"list_repos", "", 401, "token expired at {time}"},
	{"list_repos", "", 401, "token revoked"},
	{"list_repos", "", 403, "resource not accessible by integration"},
	{"list_repos", "", 404, "repository {q} not found"},
	{"calendar_add", "", 409, "event overlaps with {id} from {time} to {time}"},
	{"calendar_add", "", 400, "invalid time zone {q}"},
	{"calendar_add", "", 0, "calendar {email} is read-only"},
	{"translate", "", 413, "payload of {big} bytes exceeds the {big} byte limit"},
	{"translate", "", 400, "unsupported language pair {q} to {q}"},
	{"translate", "", 503, "model overloaded, try again in {dur}"},
	{"memory_store", "", 0, "object {hex} freed twice"},
	{"memory_store", "", 0, "key {q} has wrong type, expected {q}"},
	{"memory_store", "", 0, "connection pool exhausted ({num} of {num} in use) on {host}"},
	{"run_code", "TimeoutError", 0, "execution exceeded {dur}"},
	{"run_code", "MemoryError", 0, "execution exceeded {big} MB"},
	{"run_code", "SyntaxError", 0, "unexpected token {q} at line {num} column {num}"},
	{"run_code", "NameError", 0, "name {q} is not defined"},
	{"jsonrpc_tool", "", 0, "method {q} not found"},
}

func labelledSet(perGroup int) []labelled {
	r := rand.New(rand.NewPCG(1, 2))
	sl := slots(r)
	var out []labelled
	for g, spec := range groupSpecs {
		for range perGroup {
			msg := spec.msg
			for strings.Contains(msg, "{") {
				a := strings.IndexByte(msg, '{')
				b := a + strings.IndexByte(msg[a:], '}')
				msg = msg[:a] + sl[msg[a+1:b]]() + msg[b+1:]
			}
			in := Input{Tool: spec.tool, Type: spec.typ, Message: msg}
			if spec.http != 0 {
				in.HTTPStatus = i32(spec.http)
			}
			if spec.tool == "jsonrpc_tool" {
				in.JSONRPCCode = i32(-32601)
			}
			out = append(out, labelled{group: g, in: in})
		}
	}
	return out
}

// TestGroupingPrecisionRecall measures pairwise precision (of the pairs of records that share a
// fingerprint, the share that are in one true group) and recall (of the pairs in one true group,
// the share that share a fingerprint) on the labelled set.
func TestGroupingPrecisionRecall(t *testing.T) {
	set := labelledSet(6)
	if len(set) < 300 || len(groupSpecs) < 60 {
		t.Fatalf("labelled set too small: %d records in %d groups", len(set), len(groupSpecs))
	}
	fps := make([]string, len(set))
	for i, l := range set {
		fps[i], _ = Of(l.in)
	}
	var tp, fp, fn int
	for i := range set {
		for j := i + 1; j < len(set); j++ {
			same, predicted := set[i].group == set[j].group, fps[i] == fps[j]
			switch {
			case same && predicted:
				tp++
			case predicted:
				fp++
				t.Logf("merged: %q | %q", set[i].in.Message, set[j].in.Message)
			case same:
				fn++
				if fn < 20 {
					t.Logf("split: %q -> %q | %q -> %q", set[i].in.Message, Template(set[i].in.Message), set[j].in.Message, Template(set[j].in.Message))
				}
			}
		}
	}
	precision := float64(tp) / float64(tp+fp)
	recall := float64(tp) / float64(tp+fn)
	t.Logf("labelled set: %d records, %d true groups; pairwise precision %.4f, recall %.4f", len(set), len(groupSpecs), precision, recall)
	if precision < 0.95 || recall < 0.95 {
		t.Errorf("precision %.4f, recall %.4f; both must be at least 0.95", precision, recall)
	}
}

func BenchmarkOf(b *testing.B) {
	in := Input{Tool: "fetch_url", Type: "ReadTimeout", HTTPStatus: i32(504),
		Message: "read timeout on https://api.example.com/v1/items/123?page=2 after 30s (request req_8f3k2q, host 10.0.3.4:443)"}
	for b.Loop() {
		Of(in)
	}
}

// Fingerprints are stored with every record and grouped on: an
// implementation change must leave them as they are, byte for byte (a change
// of the normalisation takes a new version prefix instead).
func TestFingerprintsAreStable(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		in   Input
		want string
	}{
		{Input{Tool: "fetch_url", Type: "ReadTimeout", HTTPStatus: i32(504),
			Message: "read timeout on https://api.example.com/v1/items/123?page=2 after 30s (request req_8f3k2q, host 10.0.3.4:443)"}, "cf583b60a4f88f61"},
		{Input{Tool: "read_file", Type: " ENOENT ", Message: "ENOENT: no such file or directory, open '/srv/data/report.csv'"}, "392b59e10aa6df12"},
		{Input{Tool: "run", GRPCCode: i32(14), JSONRPCCode: i32(-32001), Message: "cp: невозможно создать обычный файл '/etc/app.conf': Отказано в доступе"}, "a2a1247562edc213"},
		{Input{Tool: "x", Message: "Straße \xff İstanbul ΣΑΣ"}, "ae4052a60637a090"},
		{Input{Tool: "long", Message: strings.Repeat("Connection Reset By Peer ", 40)}, "3b8ae170b74b6e6d"},
		{Input{}, "827f14dd161f9540"},
	} {
		if got, _ := Of(c.in); got != c.want {
			t.Errorf("Of(%+v) = %s, want %s", c.in, got, c.want)
		}
	}
}

// The shortcut for plain words keeps only words that every placeholder's test keeps too.
func TestPlainWordsAreKept(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(2, 3))
	const alphabet = "abcdefABCDEFxyzXYZ"
	plain := 0
	for range 20000 {
		b := make([]byte, rng.IntN(40))
		for i := range b {
			b[i] = alphabet[rng.IntN(len(alphabet))]
		}
		w := string(b)
		if !plainWord(w) {
			continue
		}
		plain++
		if p := classifyByTests(w); p != "" {
			t.Fatalf("%q is a plain word, but the tests make it %s", w, p)
		}
	}
	for _, w := range []string{"deadbeef", "DeadBeefCafe", strings.Repeat("x", 32), "a1", "a.b", "a-b", "é"} {
		if plainWord(w) {
			t.Errorf("%q counts as a plain word", w)
		}
	}
	if plain < 1000 {
		t.Fatalf("only %d plain words drawn", plain)
	}
}
