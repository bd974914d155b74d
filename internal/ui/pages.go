package ui

import (
	"bytes"
	"cmp"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/omcp/toolfailure/correlation"
	"github.com/omcp/toolfailure/internal/apikey"
	"github.com/omcp/toolfailure/internal/auth"
	"github.com/omcp/toolfailure/internal/classify"
	"github.com/omcp/toolfailure/store"
)

const (
	listPageSize = 50
	// nearbyWindow is how far either side of a failure the page looks for
	// others of the same tool and code: wide enough to see a burst, narrow
	// enough that the list is about the same incident.
	nearbyWindow = time.Hour
	nearbyLimit  = 20
)

// failureRow is one line of a list of failures.
type failureRow struct {
	ID      string
	URL     string
	Tool    string
	Server  string
	Class   string
	Code    string
	Created time.Time
}

func rowOf(f store.Failure) failureRow {
	id := correlation.ID(f.ID).String()
	return failureRow{ID: id, URL: basePath + "failures/" + id, Tool: f.Tool, Server: f.Server, Class: f.Class, Code: f.Code, Created: f.CreatedAt}
}

func (h *handler) page(p auth.Principal, title, nav string, data any) pageData {
	return pageData{Title: title, Tenant: p.TenantName, KeyID: p.KeyID, Nav: nav, Data: data}
}

func (h *handler) storeUnavailable(w http.ResponseWriter, r *http.Request, what string, err error) {
	h.cfg.Logger.ErrorContext(r.Context(), "ui: "+what, "error", err)
	h.renderError(w, r, http.StatusServiceUnavailable, "Service unavailable", "The failure store is not answering right now. Try again shortly.")
}

// lookup takes whatever was pasted into the ID box and goes to the failure.
func (h *handler) lookup(w http.ResponseWriter, r *http.Request, p auth.Principal) {
	raw := r.URL.Query().Get("id")
	if strings.TrimSpace(raw) == "" {
		http.Redirect(w, r, basePath, http.StatusSeeOther)
		return
	}
	id, err := correlation.ParseLoose(raw)
	if err != nil {
		h.badID(w, r, p, raw, err)
		return
	}
	http.Redirect(w, r, basePath+"failures/"+id.String(), http.StatusSeeOther)
}

// badID explains why a pasted ID was refused. A check-character mismatch
// is named as such: the ID has the right shape but a character is wrong,
// which is a typo to fix, not an ID that does not exist.
func (h *handler) badID(w http.ResponseWriter, r *http.Request, p auth.Principal, raw string, err error) {
	heading := "Not a correlation ID"
	msg := "Correlation IDs look like tf_01JDQ7Z5Q8R3M2V9X4K6N0T1BCV: tf_ followed by 27 letters and digits. Spaces, dashes, lower case and a missing tf_ are fine."
	switch {
	case errors.Is(err, correlation.ErrCheckMissing):
		heading = "Check character missing"
		msg = "This ID has 26 characters after tf_, one short: its last character (the check character) was probably lost when it was copied. Copy the whole ID again."
	case errors.Is(err, correlation.ErrChecksum):
		heading = "Check character does not match"
		msg = "This ID has the right shape, but its last character (the check character) does not match the rest: one character was probably mistyped or two were swapped. Compare it with the original, character by character."
	}
	d := h.page(p, heading, "", errorData{Heading: heading, Message: msg})
	d.LookupValue = raw
	d.LookupError = heading
	h.render(w, r, http.StatusBadRequest, "error", d)
}

// failureView is the failure page.
type failureView struct {
	ID             string
	Tool           string
	Server         string
	Class          string
	ClassMeaning   string
	Code           string
	Guidance       string
	Retryable      bool
	RetryNotBefore time.Time
	RuleID         string
	RuleURL        string
	RuleVersion    int64
	Created        time.Time
	Occurred       time.Time
	TraceID        string
	SpanID         string
	TraceURL       string
	Error          errorView
	Annotations    []keyValue
	Nearby         []failureRow
	NearbyMore     bool
	NearbyURL      string
	ProblemURL     string
	Fingerprint    string
	// SameCall links the other records of this call: a call retried across a database outage
	// can have two IDs, both valid (docs/reference.md, "Idempotency across an outage").
	SameCall []idLink
}

// idLink is a correlation ID and the URL of its failure page.
type idLink struct{ ID, URL string }

type keyValue struct{ Key, Value string }

// errorView is the redacted raw error as stored. It is decoded only to lay
// it out; every value still goes through html/template's escaping.
type errorView struct {
	Message     string
	Type        string
	HTTPStatus  string
	GRPCCode    string
	JSONRPCCode string
	RetryAfter  string
	Details     string
	Attributes  []keyValue
	Raw         string
}

var classMeaning = map[string]string{
	store.ClassCapability:  "The call cannot succeed as made. Change the call; do not repeat it.",
	store.ClassReliability: "A problem outside the caller's control that may pass. Retried only when retryable and the tool is idempotent.",
	store.ClassGovernance:  "Refused by authentication, permission, policy or a required human step. Only a person can change the outcome.",
}

func (h *handler) failure(w http.ResponseWriter, r *http.Request, p auth.Principal) {
	raw := r.PathValue("id")
	id, err := correlation.ParseLoose(raw)
	if err != nil {
		h.badID(w, r, p, raw, err)
		return
	}
	if canonical := id.String(); raw != canonical {
		http.Redirect(w, r, basePath+"failures/"+canonical, http.StatusSeeOther)
		return
	}
	f, err := h.cfg.Store.GetFailure(r.Context(), p.TenantID, id)
	if errors.Is(err, store.ErrNotFound) {
		// Another tenant's failure answers exactly like an unknown one.
		d := h.page(p, "Failure not found", "", errorData{
			Heading: "No failure with this ID",
			Message: fmt.Sprintf("Tenant %s has no failure %s. Correlation IDs belong to one tenant: check that you signed in with a key of the tenant whose server reported it.", p.TenantName, id),
		})
		h.render(w, r, http.StatusNotFound, "error", d)
		return
	}
	if err != nil {
		h.storeUnavailable(w, r, "get failure", err)
		return
	}
	v := failureView{
		ID: id.String(), Tool: f.Tool, Server: f.Server, Class: f.Class, ClassMeaning: classMeaning[f.Class], Code: f.Code,
		Guidance: f.AgentGuidance, Retryable: f.Retryable, RetryNotBefore: f.RetryNotBefore,
		RuleID: f.RuleID, RuleVersion: f.RuleVersion, Created: f.CreatedAt, Occurred: f.OccurredAt,
		TraceID: f.TraceID, SpanID: f.SpanID, TraceURL: h.cfg.TraceURL.Expand(f.TraceID, f.SpanID),
		Error: errorViewOf(f.Error), Annotations: annotationsOf(f.ToolAnnotations),
	}
	if f.RuleID != "" {
		v.RuleURL = ruleURL(f.RuleID)
	}
	v.ProblemURL, v.Fingerprint = problemURL(f), f.Fingerprint
	for _, same := range f.SameCallIDs() {
		sid := correlation.ID(same).String()
		v.SameCall = append(v.SameCall, idLink{ID: sid, URL: basePath + "failures/" + sid})
	}

	// Other failures of the same tool and code around that time, from the same MCP server when the
	// record names one (store.NearbyFilter says why).
	filter := store.NearbyFilter(f, nearbyWindow)
	rows, err := h.cfg.Store.ListFailures(r.Context(), p.TenantID, store.ListQuery{Filter: filter, Limit: nearbyLimit + 2, MaxBytes: h.cfg.MaxListBytes})
	if err != nil {
		h.storeUnavailable(w, r, "list nearby failures", err)
		return
	}
	if n, more := store.PageEnd(rows, nearbyLimit+1, h.cfg.MaxListBytes); more {
		// Cut short by the byte budget: the list links to the rest.
		rows, v.NearbyMore = rows[:n], true
	}
	for _, o := range rows {
		if o.ID == f.ID {
			continue
		}
		if len(v.Nearby) == nearbyLimit {
			v.NearbyMore = true
			break
		}
		v.Nearby = append(v.Nearby, rowOf(o))
	}
	v.NearbyURL = listURL(listFilter{Tool: f.Tool, Server: f.Server, Code: f.Code, Since: formatInputTime(filter.Since), Until: formatInputTime(filter.Until)}, "")
	h.render(w, r, http.StatusOK, "failure", h.page(p, f.Tool+": "+f.Class+" / "+f.Code, "failures", v))
}

func ruleURL(id string) string {
	parts := strings.Split(id, "/")
	for i, s := range parts {
		parts[i] = url.PathEscape(s)
	}
	return basePath + "rules/" + strings.Join(parts, "/")
}

func errorViewOf(raw json.RawMessage) errorView {
	var v errorView
	if len(raw) == 0 {
		return v
	}
	var pretty bytes.Buffer
	if json.Indent(&pretty, raw, "", "  ") == nil {
		v.Raw = pretty.String()
	} else {
		v.Raw = string(raw)
	}
	var e struct {
		Message     string            `json:"message"`
		Type        string            `json:"type"`
		HTTPStatus  *int64            `json:"httpStatus"`
		GRPCCode    *int64            `json:"grpcCode"`
		JSONRPCCode *int64            `json:"jsonrpcCode"`
		RetryAfter  string            `json:"retryAfter"`
		Details     json.RawMessage   `json:"details"`
		Attributes  map[string]string `json:"attributes"`
	}
	if json.Unmarshal(raw, &e) != nil {
		return v
	}
	v.Message, v.Type, v.RetryAfter = e.Message, e.Type, e.RetryAfter
	if e.HTTPStatus != nil {
		v.HTTPStatus = strconv.FormatInt(*e.HTTPStatus, 10)
		if t := http.StatusText(int(*e.HTTPStatus)); t != "" {
			v.HTTPStatus += " " + t
		}
	}
	if e.GRPCCode != nil {
		v.GRPCCode = strconv.FormatInt(*e.GRPCCode, 10)
		if *e.GRPCCode >= 0 && *e.GRPCCode < int64(len(grpcCodeNames)) {
			v.GRPCCode += " " + grpcCodeNames[*e.GRPCCode]
		}
	}
	if e.JSONRPCCode != nil {
		v.JSONRPCCode = strconv.FormatInt(*e.JSONRPCCode, 10)
	}
	if len(e.Details) > 0 && string(e.Details) != "null" {
		var d bytes.Buffer
		if json.Indent(&d, e.Details, "", "  ") == nil {
			v.Details = d.String()
		}
	}
	for k, val := range e.Attributes {
		v.Attributes = append(v.Attributes, keyValue{k, val})
	}
	slices.SortFunc(v.Attributes, func(a, b keyValue) int { return cmp.Compare(a.Key, b.Key) })
	return v
}

var grpcCodeNames = []string{"OK", "CANCELLED", "UNKNOWN", "INVALID_ARGUMENT", "DEADLINE_EXCEEDED", "NOT_FOUND",
	"ALREADY_EXISTS", "PERMISSION_DENIED", "RESOURCE_EXHAUSTED", "FAILED_PRECONDITION", "ABORTED", "OUT_OF_RANGE",
	"UNIMPLEMENTED", "INTERNAL", "UNAVAILABLE", "DATA_LOSS", "UNAUTHENTICATED"}

// annotationsOf lists the tool's MCP annotations in the order the MCP
// specification defines them, then any others.
func annotationsOf(raw json.RawMessage) []keyValue {
	if len(raw) == 0 {
		return nil
	}
	var m map[string]any
	if json.Unmarshal(raw, &m) != nil {
		return []keyValue{{"(unreadable)", string(raw)}}
	}
	var out []keyValue
	order := []string{"title", "readOnlyHint", "destructiveHint", "idempotentHint", "openWorldHint"}
	for _, k := range order {
		if v, ok := m[k]; ok {
			out = append(out, keyValue{k, fmt.Sprint(v)})
			delete(m, k)
		}
	}
	var rest []keyValue
	for k, v := range m {
		b, _ := json.Marshal(v)
		rest = append(rest, keyValue{k, string(b)})
	}
	slices.SortFunc(rest, func(a, b keyValue) int { return cmp.Compare(a.Key, b.Key) })
	return append(out, rest...)
}

// listFilter is the list page's form, as typed.
type listFilter struct {
	Tool, Server, Class, Code, Trace, Since, Until string
}

func (f listFilter) query() url.Values {
	q := url.Values{}
	for k, v := range map[string]string{"tool": f.Tool, "server": f.Server, "class": f.Class, "code": f.Code, "trace": f.Trace, "since": f.Since, "until": f.Until} {
		if v != "" {
			q.Set(k, v)
		}
	}
	return q
}

func listURL(f listFilter, after string) string {
	q := f.query()
	if after != "" {
		q.Set("after", after)
	}
	if len(q) == 0 {
		return basePath + "failures"
	}
	return basePath + "failures?" + q.Encode()
}

type listView struct {
	Filter   listFilter
	Classes  []string
	Errors   map[string]string
	Rows     []failureRow
	Paged    bool // not the first page
	NextURL  string
	FirstURL string
	Any      bool // any filter set
}

// inputTimeLayout is what <input type="datetime-local"> sends.
const inputTimeLayout = "2006-01-02T15:04"

func formatInputTime(t time.Time) string { return t.UTC().Format(inputTimeLayout) }

func parseInputTime(s string) (time.Time, error) {
	s = strings.TrimSpace(s)
	for _, layout := range []string{inputTimeLayout, "2006-01-02T15:04:05", time.RFC3339, "2006-01-02"} {
		if t, err := time.ParseInLocation(layout, s, time.UTC); err == nil {
			return t, nil
		}
	}
	return time.Time{}, errors.New("use YYYY-MM-DDTHH:MM (UTC)")
}

func (h *handler) list(w http.ResponseWriter, r *http.Request, p auth.Principal) {
	qs := r.URL.Query()
	f := listFilter{
		Tool:   strings.TrimSpace(qs.Get("tool")),
		Server: strings.TrimSpace(qs.Get("server")),
		Class:  strings.TrimSpace(strings.ToLower(qs.Get("class"))),
		Code:   strings.TrimSpace(qs.Get("code")),
		Trace:  strings.ToLower(strings.TrimSpace(qs.Get("trace"))),
		Since:  strings.TrimSpace(qs.Get("since")),
		Until:  strings.TrimSpace(qs.Get("until")),
	}
	v := listView{Filter: f, Classes: []string{store.ClassCapability, store.ClassReliability, store.ClassGovernance}, Errors: map[string]string{}}
	v.Any = len(f.query()) > 0
	q := store.ListQuery{Filter: store.Filter{Tool: f.Tool, Server: f.Server, Code: f.Code, TraceID: f.Trace}, Limit: listPageSize + 1, MaxBytes: h.cfg.MaxListBytes}
	if f.Class != "" {
		if !slices.Contains(v.Classes, f.Class) {
			v.Errors["class"] = "Choose capability, reliability or governance."
		}
		q.Filter.Class = f.Class
	}
	if f.Trace != "" {
		if b, err := hex.DecodeString(f.Trace); err != nil || len(b) != 16 {
			v.Errors["trace"] = "A trace ID is 32 hexadecimal characters."
		}
	}
	if f.Since != "" {
		t, err := parseInputTime(f.Since)
		if err != nil {
			v.Errors["since"] = "Not a time: " + err.Error() + "."
		}
		q.Filter.Since = t
	}
	if f.Until != "" {
		t, err := parseInputTime(f.Until)
		if err != nil {
			v.Errors["until"] = "Not a time: " + err.Error() + "."
		}
		q.Filter.Until = t
	}
	if after := qs.Get("after"); after != "" {
		id, err := correlation.ParseLoose(after)
		if err != nil {
			v.Errors["after"] = "The page link is damaged; start again from the newest failures."
		} else {
			a := [16]byte(id)
			q.After = &a
			v.Paged = true
		}
	}
	v.FirstURL = listURL(f, "")
	if len(v.Errors) > 0 {
		h.render(w, r, http.StatusBadRequest, "list", h.page(p, "Failures", "failures", v))
		return
	}
	rows, err := h.cfg.Store.ListFailures(r.Context(), p.TenantID, q)
	if err != nil {
		h.storeUnavailable(w, r, "list failures", err)
		return
	}
	// One more than a page tells whether another follows; a page of large records ends early, at
	// the byte budget, and the record that did not fit plays that part.
	if n, more := store.PageEnd(rows, listPageSize, q.MaxBytes); more {
		rows = rows[:n]
		v.NextURL = listURL(f, correlation.ID(rows[len(rows)-1].ID).String())
	}
	for _, row := range rows {
		v.Rows = append(v.Rows, rowOf(row))
	}
	h.render(w, r, http.StatusOK, "list", h.page(p, "Failures", "failures", v))
}

type ruleView struct {
	ID          string
	Baseline    bool
	Default     bool
	Description string
	Tenant      *Rule
	NeedsScope  bool
	NotFound    bool
	Unavailable bool
}

func (h *handler) rule(w http.ResponseWriter, r *http.Request, p auth.Principal) {
	id := r.PathValue("id")
	v := ruleView{ID: id}
	status := http.StatusOK
	switch {
	case id == classify.DefaultRuleID:
		v.Baseline, v.Default = true, true
		v.Description = "No rule matched the error, so the documented default applied: the failure is reported without a more specific diagnosis. A tenant rule can classify errors like this one."
	case strings.HasPrefix(id, "baseline/"):
		v.Baseline = true
		for _, b := range classify.BaselineRules() {
			if b.ID == id {
				v.Description = b.Description
			}
		}
		if v.Description == "" {
			v.NotFound = true
			status = http.StatusNotFound
		}
	case !p.Has(apikey.ScopeRules):
		// Reading a tenant's rules takes the rules scope in the API; the
		// UI does not widen what a lookup key may see.
		v.NeedsScope = true
	case h.cfg.Rules == nil:
		v.Unavailable = true
	default:
		rule, err := h.cfg.Rules(r.Context(), p.TenantID, id)
		switch {
		case errors.Is(err, store.ErrNotFound):
			v.NotFound = true
			status = http.StatusNotFound
		case err != nil:
			h.storeUnavailable(w, r, "get rule", err)
			return
		default:
			v.Tenant = &rule
		}
	}
	h.render(w, r, status, "rule", h.page(p, "Rule "+id, "", v))
}

func className(c string) string {
	switch c {
	case store.ClassCapability, store.ClassReliability, store.ClassGovernance:
		return c
	}
	return "unknown"
}

func queryEscape(s string) string { return url.QueryEscape(s) }
