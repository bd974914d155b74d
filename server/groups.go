package server

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"google.golang.org/protobuf/types/known/timestamppb"

	"github.com/omcp/toolfailure/correlation"
	v1 "github.com/omcp/toolfailure/gen/toolfailure/v1"
	"github.com/omcp/toolfailure/internal/classify"
	"github.com/omcp/toolfailure/internal/classwire"
	"github.com/omcp/toolfailure/internal/fingerprint"
	"github.com/omcp/toolfailure/store"
)

// GroupStore is what ListGroups, GetGroup and SuggestRule need of a backend.
type GroupStore interface {
	ListGroups(ctx context.Context, tenantID int64, q store.GroupQuery) ([]store.Group, error)
	GetGroup(ctx context.Context, tenantID int64, fingerprint string, since, until time.Time) (store.Group, error)
	ListFailures(ctx context.Context, tenantID int64, q store.ListQuery) ([]store.Failure, error)
}

const (
	// defaultGroupWindow is the window of ListGroups and GetGroup when the request names none.
	defaultGroupWindow = 24 * time.Hour
	// recentPerGroup is how many of a group's records GetGroup returns.
	recentPerGroup = 20
	// shadowRecords is how many of a group's newest records GetGroup reads
	// its shadow evidence from.
	shadowRecords = 1000
)

// parseFingerprint accepts a fingerprint with surrounding space and in either case, and refuses
// anything else as invalid_argument naming field.
func parseFingerprint(s, field string) (string, error) {
	fp := strings.ToLower(strings.TrimSpace(s))
	if !fingerprint.Valid(fp) {
		return "", invalid(field, "not a fingerprint (16 hex characters)")
	}
	return fp, nil
}

// groupWindow resolves a request's window: until defaults to now and since to a day before
// until. A window that is empty, reversed or longer than store.MaxGroupWindow is invalid_argument.
func groupWindow(since, until *timestamppb.Timestamp, now time.Time, field string) (time.Time, time.Time, error) {
	u := now
	if until != nil {
		if err := invalidTime(until, field+"until"); err != nil {
			return time.Time{}, time.Time{}, err
		}
		u = until.AsTime()
	}
	s := u.Add(-defaultGroupWindow)
	if since != nil {
		if err := invalidTime(since, field+"since"); err != nil {
			return time.Time{}, time.Time{}, err
		}
		s = since.AsTime()
	}
	switch {
	case !s.Before(u):
		return time.Time{}, time.Time{}, invalid(field+"since", "must be before until")
	case u.Sub(s) > store.MaxGroupWindow:
		return time.Time{}, time.Time{}, invalid(field+"since",
			fmt.Sprintf("the window from since to until is at most %d days", int(store.MaxGroupWindow/(24*time.Hour))))
	}
	return s, u, nil
}

// groupToken is what a ListGroups page token carries: the window of the first page, so that
// later pages count the same records, the order, and the last group of the page.
type groupToken struct {
	V        int    `json:"v"`
	Order    string `json:"o"`
	Since    int64  `json:"s"`
	Until    int64  `json:"u"`
	Count    int64  `json:"c"`
	LastSeen int64  `json:"l"`
	FP       string `json:"f"`
}

func encodeGroupToken(t groupToken) string {
	t.V = pageTokenVersion
	b, _ := json.Marshal(t)
	return base64.RawURLEncoding.EncodeToString(b)
}

// decodeGroupToken reads a page token and checks everything in it that a token ListGroups wrote
// keeps: a window that the first page could have had (valid times, since before until, at most
// store.MaxGroupWindow), a count of at least one and a last-seen time inside the window. A forged
// or tampered token is refused here, so that it never reaches the store.
func decodeGroupToken(s string) (groupToken, error) {
	var t groupToken
	b, err := base64.RawURLEncoding.DecodeString(s)
	if err == nil {
		err = json.Unmarshal(b, &t)
	}
	bad := errors.New("bad page token")
	if err != nil || t.V != pageTokenVersion || !fingerprint.Valid(t.FP) || t.Count < 1 {
		return t, bad
	}
	for _, us := range []int64{t.Since, t.Until, t.LastSeen} {
		if timestamppb.New(time.UnixMicro(us)).CheckValid() != nil {
			return t, bad
		}
	}
	since, until := time.UnixMicro(t.Since), time.UnixMicro(t.Until)
	if store.CheckGroupWindow(since, until) != nil || t.LastSeen < t.Since || t.LastSeen >= t.Until {
		return t, bad
	}
	return t, nil
}

func (s *failureService) ListGroups(ctx context.Context, req *v1.ListGroupsRequest) (*v1.ListGroupsResponse, error) {
	p, err := principal(ctx)
	if err != nil {
		return nil, err
	}
	f := req.GetFilter()
	order := req.GetOrderBy()
	if order == "" {
		order = store.GroupsByCount
	}
	q := store.GroupQuery{OrderBy: order, Limit: int(req.GetPageSize())}
	if q.Limit == 0 {
		q.Limit = defaultPageSize
	}
	if tok := req.GetPageToken(); tok != "" {
		t, err := decodeGroupToken(tok)
		if err != nil {
			return nil, errBadPageToken
		}
		if t.Order != order {
			return nil, invalid("orderBy", "differs from the first page's")
		}
		q.Filter.Since, q.Filter.Until = time.UnixMicro(t.Since).UTC(), time.UnixMicro(t.Until).UTC()
		q.After = &store.GroupCursor{Count: t.Count, LastSeen: time.UnixMicro(t.LastSeen).UTC(), Fingerprint: t.FP}
	} else {
		since, until, err := groupWindow(f.GetSince(), f.GetUntil(), s.cfg.Now(), "filter.")
		if err != nil {
			return nil, err
		}
		q.Filter.Since, q.Filter.Until = since, until
	}
	q.Filter.Tool = f.GetTool()
	q.Filter.Class = classwire.Name(f.GetClass())
	q.Filter.Code = f.GetCode()
	q.Filter.Server = f.GetServer()
	q.Filter.Unclassified = f.GetUnclassified()
	q.Limit++ // one more than a page tells whether another follows
	groups, err := s.cfg.Store.ListGroups(ctx, p.TenantID, q)
	if errors.Is(err, store.ErrInvalid) {
		// The store's words name internal numbers (the tenant's); the caller gets the field.
		if req.GetPageToken() != "" {
			return nil, errBadPageToken
		}
		return nil, invalid("filter", "not a window or filter the service can list")
	}
	if err != nil {
		return nil, storeFailed(ctx, "list groups", p.TenantID, "listing groups failed; retry shortly", err)
	}
	res := &v1.ListGroupsResponse{}
	if len(groups) == q.Limit {
		groups = groups[:len(groups)-1]
		last := groups[len(groups)-1]
		res.NextPageToken = encodeGroupToken(groupToken{
			Order: order, Since: q.Filter.Since.UnixMicro(), Until: q.Filter.Until.UnixMicro(),
			Count: last.Count, LastSeen: last.LastSeen.UnixMicro(), FP: last.Fingerprint,
		})
	}
	for _, g := range groups {
		res.Groups = append(res.Groups, groupProto(g))
	}
	return res, nil
}

func (s *failureService) GetGroup(ctx context.Context, req *v1.GetGroupRequest) (*v1.GetGroupResponse, error) {
	p, err := principal(ctx)
	if err != nil {
		return nil, err
	}
	fp, err := parseFingerprint(req.GetFingerprint(), "fingerprint")
	if err != nil {
		return nil, err
	}
	since, until, err := groupWindow(req.GetSince(), req.GetUntil(), s.cfg.Now(), "")
	if err != nil {
		return nil, err
	}
	g, err := s.cfg.Store.GetGroup(ctx, p.TenantID, fp, since, until)
	if errors.Is(err, store.ErrNotFound) {
		// Another tenant's fingerprint answers exactly like an unknown one.
		return nil, notFound("no failures with this fingerprint in the window")
	}
	if err != nil {
		return nil, storeFailed(ctx, "get group", p.TenantID, lookupFailed, err)
	}
	// The shadow evidence and the recent records come from one read of the newest records, held
	// to the byte budget of a ListFailures page (ShadowRecords says how many it was).
	records, err := s.cfg.Store.ListFailures(ctx, p.TenantID, store.ListQuery{
		Filter: store.Filter{Fingerprint: fp, Since: since, Until: until}, Limit: shadowRecords,
		MaxBytes: s.cfg.Limits.MaxListBytes,
	})
	if err != nil {
		return nil, storeFailed(ctx, "get group records", p.TenantID, lookupFailed, err)
	}
	evidence, err := store.SumShadow(records)
	if err != nil {
		return nil, internal(shadowUnreadable, err)
	}
	res := &v1.GetGroupResponse{Group: groupProto(g), ShadowRecords: int64(len(records))}
	for _, e := range evidence {
		res.Shadow = append(res.Shadow, &v1.ShadowEvidence{RuleId: e.RuleID, Class: classwire.ToProto(classify.Class(e.Class)), Code: e.Code,
			Matched: int64(e.Matched), Differs: int64(e.Differs)})
	}
	for _, f := range records[:min(len(records), recentPerGroup)] {
		pf, err := failureProto(f, s.cfg.TraceURL)
		if err != nil {
			return nil, err
		}
		res.Recent = append(res.Recent, pf)
	}
	return res, nil
}

func groupProto(g store.Group) *v1.Group {
	return &v1.Group{
		Fingerprint:         g.Fingerprint,
		Tool:                g.Sample.Tool,
		Class:               classwire.ToProto(classify.Class(g.Sample.Class)),
		Code:                g.Sample.Code,
		RuleId:              g.Sample.RuleID,
		Template:            fingerprint.Template(store.ErrorFields(g.Sample.Error).Message),
		Count:               g.Count,
		FirstSeen:           timestamppb.New(g.FirstSeen),
		LastSeen:            timestamppb.New(g.LastSeen),
		SampleCorrelationId: correlation.ID(g.Sample.ID).String(),
		Server:              g.Sample.Server,
	}
}
