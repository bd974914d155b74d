package bench

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptrace"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/omcp/toolfailure/internal/apikey"
	"github.com/omcp/toolfailure/store"
	"github.com/omcp/toolfailure/store/postgres"
)

// The noisy neighbour: what one tenant (A) can send to hurt another (B). The chaos test of
// cmd/toolfailure and `toolfailure bench isolation` both drive it, the first to check that no one
// gets a server error and no acknowledged ID is lost, the second to time tenant B beside it.

// RPC paths of the Connect JSON protocol.
const (
	ClassifyPath     = "/toolfailure.v1.ClassifierService/Classify"
	GetFailurePath   = "/toolfailure.v1.FailureService/GetFailure"
	ListFailuresPath = "/toolfailure.v1.FailureService/ListFailures"
	ListGroupsPath   = "/toolfailure.v1.FailureService/ListGroups"
	ReplaceRulesPath = "/toolfailure.v1.RuleService/ReplaceRules"
)

// HostileToolPrefix starts the tool name of every record the hostile load can store, so that a
// listing of another tenant can be told apart from the hostile tenant's own.
const HostileToolPrefix = "noisy_"

// PrepareTenants migrates the database at databaseURL and creates each named tenant with one key
// of every scope; it returns the keys' secrets in the order of names.
func PrepareTenants(ctx context.Context, databaseURL string, names ...string) ([]string, error) {
	s, err := postgres.Open(ctx, databaseURL)
	if err != nil {
		return nil, err
	}
	defer s.Close()
	if err := s.Migrate(ctx); err != nil {
		return nil, err
	}
	keys := make([]string, len(names))
	for i, name := range names {
		t, err := s.EnsureTenant(ctx, name)
		if err != nil {
			return nil, err
		}
		k, err := apikey.New()
		if err != nil {
			return nil, err
		}
		if _, err := s.CreateAPIKey(ctx, store.APIKey{ID: k.ID, TenantID: t.ID, Hash: k.Hash, Scopes: apikey.AllScopes}); err != nil {
			return nil, err
		}
		keys[i] = k.Secret
	}
	return keys, nil
}

// heavyRules is n rules of issue 31, item 3: each splits the whole message, and none is filed under
// an indexed value, so that every request of the tenant reaches all of them.
func heavyRules(n int) []byte {
	type outcome struct {
		Class string `json:"class"`
		Code  string `json:"code"`
	}
	type rule struct {
		Name     string  `json:"name"`
		Priority int     `json:"priority"`
		When     string  `json:"when"`
		Then     outcome `json:"then"`
	}
	rules := make([]rule, n)
	for i := range rules {
		rules[i] = rule{Name: fmt.Sprintf("split-%04d", i), Priority: n - i,
			When: fmt.Sprintf(`error.message.split(" ").size() == %d`, 100000+i),
			Then: outcome{Class: "governance", Code: "policy_blocked"}}
	}
	b, _ := json.Marshal(map[string]any{"rules": rules})
	return b
}

// crossedAt finds the rule at which a refused set crosses the rule budget.
var crossedAt = regexp.MustCompile(`rules\[(\d+)\] "split-\d+": the rule set could cost`)

// SaveHeaviestRules gives the key's tenant the heaviest set of expensive rules that the save-time
// budget accepts: it offers 2,000 rules that split the message, reads from the refusal the rule
// at which the budget is crossed, and saves the rules before it. It returns how many were saved.
func SaveHeaviestRules(ctx context.Context, c *http.Client, base, key string) (int, error) {
	status, body, err := post(ctx, c, base+ReplaceRulesPath, key, heavyRules(2000), nil)
	if err != nil {
		return 0, err
	}
	if status == http.StatusOK {
		return 2000, nil
	}
	var refusal struct{ Message string }
	_ = json.Unmarshal(body, &refusal)
	m := crossedAt.FindStringSubmatch(refusal.Message)
	if m == nil {
		return 0, fmt.Errorf("ReplaceRules of 2,000 heavy rules: HTTP %d %.300s; want a refusal naming where the rule budget is crossed", status, body)
	}
	n, _ := strconv.Atoi(m[1])
	if n == 0 {
		return 0, errors.New("the rule budget takes not even one heavy rule")
	}
	status, body, err = post(ctx, c, base+ReplaceRulesPath, key, heavyRules(n), nil)
	if err != nil {
		return 0, err
	}
	if status != http.StatusOK {
		return 0, fmt.Errorf("ReplaceRules of the %d heavy rules before the crossing: HTTP %d %.300s", n, status, body)
	}
	return n, nil
}

// HostileKind is one kind of hostile request.
type HostileKind int

const (
	// OversizedDetails: details past their 256 KiB limit (1 MiB of [{},{},…], a 300 KiB string)
	// and a body past the 1 MiB request limit.
	OversizedDetails HostileKind = iota
	// DeepNesting: details, or an unknown field, nested thousands of levels deep.
	DeepNesting
	// MalformedJSON: bodies that are not JSON, are truncated, have the wrong types, invalid UTF-8
	// or a lone surrogate.
	MalformedJSON
	// ForgedPageToken: ListFailures and ListGroups with forged tokens: random bytes, another
	// tenant's token, the tenant's own token tampered with, windows and counts out of range.
	ForgedPageToken
	// CancelledCaller: a Classify that the heavy rules must evaluate on a 64 KiB message, whose
	// caller hangs up as soon as the request is sent.
	CancelledCaller
	// CallerDeadline: the same with a deadline of 0, 1 or 5 ms (Connect-Timeout-Ms).
	CallerDeadline
	// HeavyClassify: the same, waited for: the most a request of the tenant can cost.
	HeavyClassify
	hostileKinds
)

// HostileKinds lists every kind, in the order a hostile caller takes them.
var HostileKinds = func() []HostileKind {
	k := make([]HostileKind, hostileKinds)
	for i := range k {
		k[i] = HostileKind(i)
	}
	return k
}()

func (k HostileKind) String() string {
	switch k {
	case OversizedDetails:
		return "oversized-details"
	case DeepNesting:
		return "deep-nesting"
	case MalformedJSON:
		return "malformed-json"
	case ForgedPageToken:
		return "forged-page-token"
	case CancelledCaller:
		return "cancelled-caller"
	case CallerDeadline:
		return "caller-deadline"
	case HeavyClassify:
		return "heavy-classify"
	}
	return "kind-" + strconv.Itoa(int(k))
}

// Outcome is the answer to one hostile request.
type Outcome struct {
	Kind   HostileKind
	Status int    // 0 when there was no answer (the caller hung up)
	Code   string // the Connect error code, "" on success
	// ID is the correlation ID of an acknowledged Classify.
	ID string
	// Fault, when set, is what was wrong: a server error (HTTP 5xx, or Connect internal, unknown,
	// unavailable or data_loss) other than the deadline_exceeded a caller's own deadline earns, a
	// connection the service dropped, or a listing that showed another tenant's records.
	Fault string
}

// heavyMessage is a 64 KiB message of words, the largest the service accepts: each heavy rule
// splits it into 13,107 strings.
var heavyMessage = strings.Repeat("word ", 13107)

// Hostile sends tenant A's hostile requests. It is safe for concurrent use.
type Hostile struct {
	Client    *http.Client
	Base, Key string
	// ForeignToken is a real ListFailures page token of another tenant, replayed as a forgery
	// (optional).
	ForeignToken string

	n atomic.Uint64 // picks the variant of each kind in turn
}

// Send sends one request of kind k and judges the answer.
func (h *Hostile) Send(ctx context.Context, k HostileKind) Outcome {
	i := int(h.n.Add(1))
	o := Outcome{Kind: k}
	var (
		path   = ClassifyPath
		body   []byte
		header map[string]string
		// deadline: the request carries its own deadline, and deadline_exceeded is its due.
		deadline bool
	)
	switch k {
	case OversizedDetails:
		body = bigBodies()[i%3]
	case DeepNesting:
		body = deepBodies()[i%3]
	case MalformedJSON:
		bodies := []string{`{not json`, `{"tool":"noisy_m","error":{"message":"x"`, `{"tool":123,"error":{}}`,
			"\xff\xfe\x00garbage", `{"tool":"noisy_m","error":{"message":"\ud800"}}`, ``, `null`, `[]`,
			`{"tool":"noisy_m","error":{"httpStatus":"five hundred"}}`, `{"tool":"noisy_m","tool":"noisy_m2","error":{}}`,
			`{"tool":"noisy_m","error":{"message":"` + "\xc3\x28" + `"}}`, `{"tool":"noisy_m","error":{"httpStatus":1e400}}`}
		body = []byte(bodies[i%len(bodies)])
	case ForgedPageToken:
		path, body = h.forged(ctx, i)
	case CancelledCaller:
		return h.cancelled(ctx, i)
	case CallerDeadline:
		deadline = true
		header = map[string]string{"Connect-Timeout-Ms": []string{"0", "1", "5"}[i%3]}
		body = heavyBodies()[i%len(heavyBodies())]
	case HeavyClassify:
		body = heavyBodies()[i%len(heavyBodies())]
	default:
		o.Fault = "unknown kind"
		return o
	}
	status, answer, err := post(ctx, h.Client, h.Base+path, h.Key, body, header)
	if err != nil {
		if ctx.Err() == nil {
			o.Fault = "no answer: " + err.Error()
		}
		return o
	}
	o.Status, o.Code = status, errorCode(status, answer)
	o.Fault = serverFault(status, o.Code, deadline, answer)
	if o.Fault == "" && status == http.StatusOK {
		switch path {
		case ClassifyPath:
			o.ID = correlationID(answer)
		case ListFailuresPath, ListGroupsPath:
			o.Fault = foreignRecords(answer)
		}
	}
	return o
}

// The large bodies are made once: the load generator shares the machine with the service, and
// every byte it builds per request is CPU taken from the service it measures.
var (
	// bigBodies: details of 1 MiB of [{},{},…] and of a 300 KiB string, past their 256 KiB limit,
	// and a 2 MiB body, past the 1 MiB request limit.
	bigBodies = sync.OnceValue(func() [][]byte {
		return [][]byte{
			[]byte(`{"tool":"noisy_big","error":{"details":[` + strings.Repeat("{},", (1<<20-64)/3-1) + `{}]}}`),
			[]byte(`{"tool":"noisy_big","error":{"details":{"s":"` + strings.Repeat("x", 300<<10) + `"}}}`),
			[]byte(`{"tool":"noisy_big","error":{"message":"` + strings.Repeat("y", 2<<20) + `"}}`),
		}
	})
	// deepBodies: details nested 20,000 objects and 100,000 arrays deep, and an unknown field
	// 100,000 arrays deep.
	deepBodies = sync.OnceValue(func() [][]byte {
		const depth = 20000
		return [][]byte{
			[]byte(`{"tool":"noisy_deep","error":{"details":` + strings.Repeat(`{"a":`, depth) + `1` + strings.Repeat(`}`, depth) + `}}`),
			[]byte(`{"tool":"noisy_deep","error":{"details":` + strings.Repeat(`[`, 5*depth) + strings.Repeat(`]`, 5*depth) + `}}`),
			[]byte(`{"tool":"noisy_deep","unknown":` + strings.Repeat(`[`, 5*depth) + strings.Repeat(`]`, 5*depth) + `}`),
		}
	})
	// heavyBodies: Classify calls with the 64 KiB message, under eight tool names.
	heavyBodies = sync.OnceValue(func() [][]byte {
		out := make([][]byte, 8)
		for i := range out {
			out[i], _ = json.Marshal(map[string]any{"tool": fmt.Sprintf("%sheavy_%d", HostileToolPrefix, i),
				"error": map[string]any{"message": heavyMessage, "httpStatus": 500}})
		}
		return out
	})
)

// forged is a ListFailures or ListGroups request with a forged page token.
func (h *Hostile) forged(ctx context.Context, i int) (path string, body []byte) {
	b64 := base64.RawURLEncoding.EncodeToString
	list := func(tok string) (string, []byte) {
		b, _ := json.Marshal(map[string]any{"pageSize": 5, "pageToken": tok})
		return ListFailuresPath, b
	}
	groups := func(tok string) (string, []byte) {
		b, _ := json.Marshal(map[string]any{"pageSize": 5, "pageToken": tok})
		return ListGroupsPath, b
	}
	switch i % 9 {
	case 0:
		return list(b64(append([]byte{1}, bytes.Repeat([]byte{0xff}, 16)...)))
	case 1:
		return list(b64([]byte(strings.Repeat("\x00forged", 6))))
	case 2:
		if h.ForeignToken != "" {
			return list(h.ForeignToken)
		}
		return list("!!!not-base64!!!")
	case 3:
		// The tenant's own token, tampered with.
		_, own, err := post(ctx, h.Client, h.Base+ListFailuresPath, h.Key, []byte(`{"pageSize":1}`), nil)
		var page struct{ NextPageToken string }
		if err == nil && json.Unmarshal(own, &page) == nil && len(page.NextPageToken) > 4 {
			t := []byte(page.NextPageToken)
			t[len(t)/2] ^= 0x01
			return list(string(t))
		}
		return list(b64([]byte{2, 0, 0}))
	case 4:
		return list(strings.Repeat("A", 300)) // over the 256-byte limit
	case 5:
		return groups(b64([]byte(`{"v":1,"s":-62135596800000000,"u":253402300799999999,"c":1,"l":0,"f":"0123456789abcdef"}`)))
	case 6:
		return groups(b64([]byte(`{"v":1,"s":0,"u":1000,"c":9223372036854775807,"l":500,"f":"0123456789abcdef"}`)))
	case 7:
		return groups(b64([]byte(`{"v":1,"s":1,"u":0,"c":-1,"l":-5,"f":"' OR 1=1 --"}`)))
	default:
		return groups(b64(bytes.Repeat([]byte{0xfe}, 64)))
	}
}

// cancelled sends a heavy Classify and hangs up as soon as the request is written.
func (h *Hostile) cancelled(ctx context.Context, i int) Outcome {
	o := Outcome{Kind: CancelledCaller}
	cctx, cancel := context.WithCancel(ctx)
	defer cancel()
	cctx = httptrace.WithClientTrace(cctx, &httptrace.ClientTrace{WroteRequest: func(httptrace.WroteRequestInfo) { cancel() }})
	status, answer, err := post(cctx, h.Client, h.Base+ClassifyPath, h.Key, heavyBodies()[i%len(heavyBodies())], nil)
	if err != nil {
		return o // the expected end: the caller left
	}
	// The answer came before the hang-up took effect: it must still be sound.
	o.Status, o.Code = status, errorCode(status, answer)
	o.Fault = serverFault(status, o.Code, false, answer)
	if o.Fault == "" && status == http.StatusOK {
		o.ID = correlationID(answer)
	}
	return o
}

// serverFault says what is wrong with an answer that is the service's fault, or "".
func serverFault(status int, code string, deadline bool, answer []byte) string {
	switch code {
	case "internal", "unknown", "unavailable", "data_loss":
		return fmt.Sprintf("HTTP %d %s: %.200s", status, code, answer)
	}
	if status >= 500 && !(deadline && code == "deadline_exceeded") {
		return fmt.Sprintf("HTTP %d: %.200s", status, answer)
	}
	return ""
}

// foreignRecords reports a listing that shows a record whose tool the hostile tenant never used.
func foreignRecords(answer []byte) string {
	var page struct {
		Failures []struct{ Tool, CorrelationID string }
		Groups   []struct{ Tool string }
	}
	if err := json.Unmarshal(answer, &page); err != nil {
		return "listing is not JSON: " + err.Error()
	}
	for _, f := range page.Failures {
		if !strings.HasPrefix(f.Tool, HostileToolPrefix) {
			return fmt.Sprintf("a forged page token listed another tenant's record %s (tool %q)", f.CorrelationID, f.Tool)
		}
	}
	for _, g := range page.Groups {
		if !strings.HasPrefix(g.Tool, HostileToolPrefix) {
			return fmt.Sprintf("a forged page token listed another tenant's group (tool %q)", g.Tool)
		}
	}
	return ""
}

// Classify sends one Classify and returns the correlation ID it acknowledged. A Classify not
// acknowledged is an error, and fault is set when the service is to blame.
func Classify(ctx context.Context, c *http.Client, base, key string, body []byte) (id, fault string, err error) {
	status, answer, err := post(ctx, c, base+ClassifyPath, key, body, nil)
	if err != nil {
		return "", "", err
	}
	if status != http.StatusOK {
		return "", serverFault(status, errorCode(status, answer), false, answer), fmt.Errorf("HTTP %d: %.200s", status, answer)
	}
	if id = correlationID(answer); id == "" {
		return "", "", fmt.Errorf("acknowledged without a correlation ID: %.200s", answer)
	}
	return id, "", nil
}

// QuietRequests are tenant B's Classify bodies: the benchmark's mix of realistic errors.
func QuietRequests() []string { return requestMix }

// FirstPageToken returns the key's tenant's first ListFailures nextPageToken at page size 1 ("" when
// it has fewer than two records).
func FirstPageToken(ctx context.Context, c *http.Client, base, key string) (string, error) {
	status, answer, err := post(ctx, c, base+ListFailuresPath, key, []byte(`{"pageSize":1}`), nil)
	if err != nil {
		return "", err
	}
	if status != http.StatusOK {
		return "", fmt.Errorf("ListFailures: HTTP %d %.200s", status, answer)
	}
	var page struct{ NextPageToken string }
	if err := json.Unmarshal(answer, &page); err != nil {
		return "", err
	}
	return page.NextPageToken, nil
}

// post sends a Connect unary JSON request and reads the whole answer.
func post(ctx context.Context, c *http.Client, url, key string, body []byte, header map[string]string) (int, []byte, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, url, bytes.NewReader(body))
	if err != nil {
		return 0, nil, err
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Authorization", "Bearer "+key)
	for k, v := range header {
		req.Header.Set(k, v)
	}
	res, err := c.Do(req)
	if err != nil {
		return 0, nil, err
	}
	defer res.Body.Close()
	answer, err := io.ReadAll(io.LimitReader(res.Body, 64<<20))
	if err != nil {
		return 0, nil, err
	}
	return res.StatusCode, answer, nil
}

// errorCode is the Connect error code of an answer that is not a success.
func errorCode(status int, answer []byte) string {
	if status == http.StatusOK {
		return ""
	}
	var e struct{ Code string }
	_ = json.Unmarshal(answer, &e)
	return e.Code
}

func correlationID(answer []byte) string {
	var r struct {
		ToolFailure struct {
			CorrelationID string `json:"correlationId"`
		} `json:"toolFailure"`
	}
	_ = json.Unmarshal(answer, &r)
	return r.ToolFailure.CorrelationID
}
