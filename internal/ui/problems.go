package ui

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"time"

	"github.com/omcp/toolfailure/internal/auth"
	"github.com/omcp/toolfailure/internal/fingerprint"
	"github.com/omcp/toolfailure/store"
)

const (
	// problemsWindow is the window of the Problems view and the group page.
	problemsWindow = 24 * time.Hour
	problemsLimit  = 100
	problemRecent  = 20
	// problemShadowRecords is how many of a problem's newest failures its
	// shadow evidence is read from.
	problemShadowRecords = 1000
)

// Suggester drafts a rule for one of a tenant's problems: the rules file's YAML and an
// explanation, one sentence a line. The error wraps store.ErrNotFound for an unknown fingerprint.
type Suggester func(ctx context.Context, tenantID int64, fingerprint string) (yaml, explanation string, err error)

// sparkline is a problem's records per hour as bars of an inline SVG: attributes, not styles,
// so that the page needs nothing that the Content-Security-Policy forbids.
type sparkline struct {
	ID    string // for aria-labelledby
	Label string
	Bars  []sparkBar
	Width int
}

type sparkBar struct{ X, Y, H int }

const sparkHeight = 24

func sparklineOf(id string, counts []int64) sparkline {
	s := sparkline{ID: id, Width: 3 * len(counts)}
	var peak, total int64
	for _, c := range counts {
		peak, total = max(peak, c), total+c
	}
	for i, c := range counts {
		if c == 0 {
			continue
		}
		h := max(1, int(c*sparkHeight/max(peak, 1)))
		s.Bars = append(s.Bars, sparkBar{X: 3 * i, Y: sparkHeight - h, H: h})
	}
	s.Label = fmt.Sprintf("%d in the last %d hours, at most %d in one hour", total, len(counts), peak)
	return s
}

type problemRow struct {
	Fingerprint  string
	URL          string
	Tool         string
	Class        string
	Code         string
	RuleID       string
	Unclassified bool
	Template     string
	Count        int64
	LastSeen     time.Time
	Spark        sparkline
}

type problemsView struct {
	Rows         []problemRow
	Unclassified int
	More         bool
}

func unclassified(ruleID string) bool { return slices.Contains(store.UnclassifiedRuleIDs, ruleID) }

func (h *handler) problems(w http.ResponseWriter, r *http.Request, p auth.Principal) {
	until := h.cfg.Now()
	since := until.Add(-problemsWindow)
	groups, err := h.cfg.Store.ListGroups(r.Context(), p.TenantID, store.GroupQuery{
		Filter: store.GroupFilter{Since: since, Until: until}, Limit: problemsLimit + 1})
	if err != nil {
		h.storeUnavailable(w, r, "list groups", err)
		return
	}
	v := problemsView{}
	if len(groups) > problemsLimit {
		groups, v.More = groups[:problemsLimit], true
	}
	fps := make([]string, len(groups))
	for i, g := range groups {
		fps[i] = g.Fingerprint
	}
	hours, err := h.cfg.Store.GroupHours(r.Context(), p.TenantID, fps, since, until)
	if err != nil {
		h.storeUnavailable(w, r, "group hours", err)
		return
	}
	for _, g := range groups {
		row := problemRowOf(g)
		row.Spark = sparklineOf("spark-"+g.Fingerprint, hoursOr(hours[g.Fingerprint], since, until))
		if row.Unclassified {
			v.Unclassified++
		}
		v.Rows = append(v.Rows, row)
	}
	// What nothing classified comes first: those are the problems to teach the service.
	slices.SortStableFunc(v.Rows, func(a, b problemRow) int {
		switch {
		case a.Unclassified == b.Unclassified:
			return 0
		case a.Unclassified:
			return -1
		}
		return 1
	})
	h.render(w, r, http.StatusOK, "problems", h.page(p, "Problems", "problems", v))
}

func hoursOr(counts []int64, since, until time.Time) []int64 {
	if counts == nil {
		return make([]int64, store.HourBuckets(since, until))
	}
	return counts
}

func problemRowOf(g store.Group) problemRow {
	return problemRow{
		Fingerprint: g.Fingerprint, URL: basePath + "problems/" + g.Fingerprint,
		Tool: g.Sample.Tool, Class: g.Sample.Class, Code: g.Sample.Code, RuleID: g.Sample.RuleID,
		Unclassified: unclassified(g.Sample.RuleID),
		Template:     fingerprint.Template(store.ErrorFields(g.Sample.Error).Message),
		Count:        g.Count, LastSeen: g.LastSeen,
	}
}

type problemView struct {
	problemRow
	FirstSeen   time.Time
	RuleURL     string
	Recent      []failureRow
	CanSuggest  bool
	Suggested   bool
	YAML        string
	Explanation []string
	SuggestURL  string
	// Shadow is what the tenant's shadow rules would have decided for the
	// problem's failures, read from the newest ShadowRecords of them.
	Shadow        []store.ShadowEvidence
	ShadowRecords int
}

func (h *handler) problem(w http.ResponseWriter, r *http.Request, p auth.Principal) {
	fp := strings.ToLower(strings.TrimSpace(r.PathValue("fp")))
	if !fingerprint.Valid(fp) {
		d := h.page(p, "Not a fingerprint", "", errorData{Heading: "Not a fingerprint",
			Message: "A problem's fingerprint is 16 hexadecimal characters, such as 3f9a0c1d2e4b5a68. Open the problem from the Problems page or from one of its failures."})
		h.render(w, r, http.StatusBadRequest, "error", d)
		return
	}
	until := h.cfg.Now()
	since := until.Add(-problemsWindow)
	g, err := h.cfg.Store.GetGroup(r.Context(), p.TenantID, fp, since, until)
	if errors.Is(err, store.ErrNotFound) {
		// Another tenant's problem answers exactly like an unknown one.
		d := h.page(p, "Problem not found", "", errorData{Heading: "No such problem in the last 24 hours",
			Message: fmt.Sprintf("Tenant %s has no failures with fingerprint %s in the last 24 hours.", p.TenantName, fp)})
		h.render(w, r, http.StatusNotFound, "error", d)
		return
	}
	if err != nil {
		h.storeUnavailable(w, r, "get group", err)
		return
	}
	v := problemView{problemRow: problemRowOf(g), FirstSeen: g.FirstSeen, CanSuggest: h.cfg.Suggest != nil && p.Has(store.ScopeRules),
		SuggestURL: basePath + "problems/" + fp + "?suggest=1#suggestion"}
	hours, err := h.cfg.Store.GroupHours(r.Context(), p.TenantID, []string{fp}, since, until)
	if err != nil {
		h.storeUnavailable(w, r, "group hours", err)
		return
	}
	v.Spark = sparklineOf("spark-"+fp, hoursOr(hours[fp], since, until))
	if v.RuleID != "" && !v.Unclassified {
		v.RuleURL = ruleURL(v.RuleID)
	}
	records, err := h.cfg.Store.ListFailures(r.Context(), p.TenantID, store.ListQuery{
		Filter: store.Filter{Fingerprint: fp, Since: since, Until: until}, Limit: problemShadowRecords, MaxBytes: h.cfg.MaxListBytes})
	if err != nil {
		h.storeUnavailable(w, r, "list group records", err)
		return
	}
	// Large records end the read early; the page says how many records the evidence is from.
	n, _ := store.PageEnd(records, problemShadowRecords, h.cfg.MaxListBytes)
	records = records[:n]
	for _, f := range records[:min(len(records), problemRecent)] {
		v.Recent = append(v.Recent, rowOf(f))
	}
	if v.Shadow, err = store.SumShadow(records); err != nil {
		h.storeUnavailable(w, r, "shadow evidence", err)
		return
	}
	v.ShadowRecords = len(records)
	if v.CanSuggest && r.URL.Query().Get("suggest") != "" {
		yaml, explanation, err := h.cfg.Suggest(r.Context(), p.TenantID, fp)
		if err != nil {
			h.storeUnavailable(w, r, "suggest rule", err)
			return
		}
		v.Suggested, v.YAML, v.Explanation = true, yaml, strings.Split(explanation, "\n")
	}
	h.render(w, r, http.StatusOK, "problem", h.page(p, "Problem "+fp, "problems", v))
}

// problemOf links a failure page to its problem.
func problemURL(f store.Failure) string {
	if f.Fingerprint == "" {
		return ""
	}
	return basePath + "problems/" + f.Fingerprint
}
