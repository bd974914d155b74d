package server_test

import (
	"context"
	"errors"
	"fmt"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"connectrpc.com/connect/v2"
	"google.golang.org/protobuf/types/known/timestamppb"

	v1 "github.com/omcp/toolfailure/gen/toolfailure/v1"
	"github.com/omcp/toolfailure/internal/classify"
	"github.com/omcp/toolfailure/store"
)

var fingerprintPattern = regexp.MustCompile(`^[0-9a-f]{16}$`)

// classifyMany reports one failure per message and returns the correlation IDs.
func classifyMany(t *testing.T, b *bundle, tool string, status *int32, msgs ...string) []string {
	t.Helper()
	var ids []string
	for _, m := range msgs {
		res, err := b.classifier(b.allKey).Classify(context.Background(), &v1.ClassifyRequest{
			Tool: tool, Error: &v1.RawError{Message: m, HttpStatus: status},
		})
		if err != nil {
			t.Fatalf("Classify(%q): %v", m, err)
		}
		ids = append(ids, res.GetToolFailure().GetCorrelationId())
	}
	return ids
}

func TestGroupsEndToEnd(t *testing.T) {
	t.Parallel()
	b := setup(t)
	ctx := context.Background()
	status := int32(404)
	orders := classifyMany(t, b, "get_order", &status, "order 1 not found", "order 22 not found", "order 333 not found", "Order 4444 not found", "order 5 not found")
	invoices := classifyMany(t, b, "get_order", &status, "invoice 7 not found", "invoice 8 not found", "invoice 9 not found")
	jams := classifyMany(t, b, "frobnicate", nil, "frobnicator jammed at 10.0.0.7:8080", "frobnicator jammed at db-2.internal:8080")
	fc := b.failures(b.lookupKey)

	got, err := fc.GetFailure(ctx, &v1.GetFailureRequest{CorrelationId: orders[0]})
	if err != nil {
		t.Fatal(err)
	}
	fp := got.GetFailure().GetFingerprint()
	if !fingerprintPattern.MatchString(fp) {
		t.Fatalf("fingerprint %q is not 16 lower-case hex characters", fp)
	}
	list, err := fc.ListFailures(ctx, &v1.ListFailuresRequest{Filter: &v1.FailureFilter{Fingerprint: fp}})
	if err != nil {
		t.Fatal(err)
	}
	if len(list.GetFailures()) != len(orders) {
		t.Fatalf("filter.fingerprint: %d records, want %d", len(list.GetFailures()), len(orders))
	}
	for _, f := range list.GetFailures() {
		if f.GetFingerprint() != fp {
			t.Fatalf("record %s has fingerprint %s", f.GetCorrelationId(), f.GetFingerprint())
		}
	}

	groups, err := fc.ListGroups(ctx, &v1.ListGroupsRequest{})
	if err != nil {
		t.Fatal(err)
	}
	gs := groups.GetGroups()
	if len(gs) != 3 || gs[0].GetCount() != 5 || gs[1].GetCount() != 3 || gs[2].GetCount() != 2 {
		t.Fatalf("groups = %v", gs)
	}
	if g := gs[0]; g.GetFingerprint() != fp || g.GetTemplate() != "Order <num> not found" && g.GetTemplate() != "order <num> not found" ||
		g.GetTool() != "get_order" || g.GetSampleCorrelationId() != orders[4] || !g.GetFirstSeen().AsTime().Before(g.GetLastSeen().AsTime()) {
		t.Fatalf("first group = %v", g)
	}
	if gs[1].GetSampleCorrelationId() != invoices[2] || gs[2].GetTemplate() != "frobnicator jammed at <host>" {
		t.Fatalf("groups = %v", gs)
	}

	// unclassified: only groups that the documented default decided.
	un, err := fc.ListGroups(ctx, &v1.ListGroupsRequest{Filter: &v1.GroupFilter{Unclassified: true}})
	if err != nil {
		t.Fatal(err)
	}
	found := false
	for _, g := range un.GetGroups() {
		if !slices.Contains(store.UnclassifiedRuleIDs, g.GetRuleId()) {
			t.Fatalf("unclassified group decided by %q", g.GetRuleId())
		}
		found = found || g.GetTool() == "frobnicate"
	}
	if !found {
		t.Fatalf("the frobnicator group is not among the unclassified: %v", un.GetGroups())
	}

	// Paging by last seen, one group a page.
	var seen []string
	req := &v1.ListGroupsRequest{OrderBy: "last_seen", PageSize: 1}
	for range 5 {
		page, err := fc.ListGroups(ctx, req)
		if err != nil {
			t.Fatal(err)
		}
		for _, g := range page.GetGroups() {
			seen = append(seen, g.GetSampleCorrelationId())
		}
		if page.GetNextPageToken() == "" {
			break
		}
		req.PageToken = page.GetNextPageToken()
	}
	if want := []string{jams[1], invoices[2], orders[4]}; fmt.Sprint(seen) != fmt.Sprint(want) {
		t.Fatalf("pages by last seen: %v, want %v", seen, want)
	}

	g, err := fc.GetGroup(ctx, &v1.GetGroupRequest{Fingerprint: strings.ToUpper(fp)})
	if err != nil {
		t.Fatal(err)
	}
	if g.GetGroup().GetCount() != 5 || len(g.GetRecent()) != 5 || g.GetRecent()[0].GetCorrelationId() != orders[4] {
		t.Fatalf("GetGroup = %v", g)
	}

	// Another tenant's fingerprint is not_found, exactly like an unknown one.
	other := b.failures(b.otherAllKey)
	_, errOther := other.GetGroup(ctx, &v1.GetGroupRequest{Fingerprint: fp})
	_, errUnknown := fc.GetGroup(ctx, &v1.GetGroupRequest{Fingerprint: "0123456789abcdef"})
	for _, err := range []error{errOther, errUnknown} {
		if connect.CodeOf(err) != connect.CodeNotFound {
			t.Fatalf("err = %v, want not_found", err)
		}
	}
	if errOther.Error() != errUnknown.Error() {
		t.Fatalf("another tenant's fingerprint answers %q, an unknown one %q", errOther, errUnknown)
	}
	og, err := other.ListGroups(ctx, &v1.ListGroupsRequest{})
	if err != nil || len(og.GetGroups()) != 0 {
		t.Fatalf("other tenant's groups: %v, %v", og, err)
	}
}

// TestGroupsServerFilter: filter.server narrows the groups to one MCP server's records (counts,
// sample and all), grouping itself still ignores the server, and each group names the server of
// its sample.
func TestGroupsServerFilter(t *testing.T) {
	t.Parallel()
	b := setup(t)
	ctx := context.Background()
	classify := func(key, server, msg string) string {
		t.Helper()
		res, err := b.classifier(key).Classify(ctx, &v1.ClassifyRequest{Tool: "search", Server: server, Error: &v1.RawError{Message: msg}})
		if err != nil {
			t.Fatal(err)
		}
		return res.GetToolFailure().GetCorrelationId()
	}
	// Which record is a group's newest depends on IDs that are random within a millisecond, so
	// the checks below hold whichever it is.
	serverOf := map[string]string{}
	for i, server := range []string{"mail-mcp", "mail-mcp", "docs-mcp"} {
		serverOf[classify(b.allKey, server, fmt.Sprintf("index %d unavailable", i))] = server
	}
	classify(b.otherAllKey, "mail-mcp", "index 9 unavailable")
	fc := b.failures(b.lookupKey)

	all, err := fc.ListGroups(ctx, &v1.ListGroupsRequest{})
	if err != nil {
		t.Fatal(err)
	}
	if gs := all.GetGroups(); len(gs) != 1 || gs[0].GetCount() != 3 || gs[0].GetServer() != serverOf[gs[0].GetSampleCorrelationId()] {
		t.Fatalf("without a filter: %v, want one group of 3 naming its sample's server", gs)
	}
	mine, err := fc.ListGroups(ctx, &v1.ListGroupsRequest{Filter: &v1.GroupFilter{Server: "mail-mcp"}})
	if err != nil {
		t.Fatal(err)
	}
	if gs := mine.GetGroups(); len(gs) != 1 || gs[0].GetCount() != 2 || gs[0].GetServer() != "mail-mcp" || serverOf[gs[0].GetSampleCorrelationId()] != "mail-mcp" {
		t.Fatalf("filter.server mail-mcp: %v, want this tenant's 2 records of mail-mcp", gs)
	}
	// The JSON name is filter.server, and the group carries "server".
	status, res := b.post(t, "/toolfailure.v1.FailureService/ListGroups", b.lookupKey, `{"filter": {"server": "docs-mcp"}}`)
	gs, _ := res["groups"].([]any)
	if status != 200 || len(gs) != 1 || gs[0].(map[string]any)["server"] != "docs-mcp" || gs[0].(map[string]any)["count"] != "1" {
		t.Fatalf("ListGroups over JSON: %d %v", status, res)
	}
}

func TestGroupsBadInput(t *testing.T) {
	t.Parallel()
	b := setup(t)
	ctx := context.Background()
	fc := b.failures(b.lookupKey)
	now := time.Now()
	cases := map[string]struct {
		call  func() error
		field string
	}{
		"malformed fingerprint": {func() error {
			_, err := fc.GetGroup(ctx, &v1.GetGroupRequest{Fingerprint: "not-a-fingerprint"})
			return err
		}, "fingerprint"},
		"malformed filter.fingerprint": {func() error {
			_, err := fc.ListFailures(ctx, &v1.ListFailuresRequest{Filter: &v1.FailureFilter{Fingerprint: "0123"}})
			return err
		}, "filter.fingerprint"},
		"ten-year window": {func() error {
			_, err := fc.ListGroups(ctx, &v1.ListGroupsRequest{Filter: &v1.GroupFilter{Since: timestamppb.New(now.AddDate(-10, 0, 0))}})
			return err
		}, "filter.since"},
		"reversed window": {func() error {
			_, err := fc.GetGroup(ctx, &v1.GetGroupRequest{Fingerprint: "0123456789abcdef", Since: timestamppb.New(now), Until: timestamppb.New(now.Add(-time.Hour))})
			return err
		}, "since"},
		"page size of a million": {func() error {
			_, err := fc.ListGroups(ctx, &v1.ListGroupsRequest{PageSize: 1_000_000})
			return err
		}, "pageSize"},
		"filter.server too long": {func() error {
			_, err := fc.ListGroups(ctx, &v1.ListGroupsRequest{Filter: &v1.GroupFilter{Server: strings.Repeat("s", 257)}})
			return err
		}, "filter.server"},
		"unknown order": {func() error {
			_, err := fc.ListGroups(ctx, &v1.ListGroupsRequest{OrderBy: "random"})
			return err
		}, "orderBy"},
		"forged page token": {func() error {
			_, err := fc.ListGroups(ctx, &v1.ListGroupsRequest{PageToken: "AAAA"})
			return err
		}, "pageToken"},
	}
	for name, c := range cases {
		err := c.call()
		var ce *connect.Error
		if !errors.As(err, &ce) || ce.Code() != connect.CodeInvalidArgument || !strings.Contains(ce.Message(), c.field) {
			t.Errorf("%s: err = %v, want invalid_argument naming %s", name, err, c.field)
		}
	}
	// The JSON names are the contract's.
	status, res := b.post(t, "/toolfailure.v1.FailureService/ListGroups", b.lookupKey, `{"filter": {"unclassified": true}, "orderBy": "count", "pageSize": 10}`)
	if status != 200 {
		t.Fatalf("ListGroups over JSON: %d %v", status, res)
	}
}

func TestUnclassifiedRuleIDsAreTheClassifiers(t *testing.T) {
	want := []string{"", classify.DefaultRuleID, classify.ModelRuleID}
	if fmt.Sprint(store.UnclassifiedRuleIDs) != fmt.Sprint(want) {
		t.Fatalf("store.UnclassifiedRuleIDs = %q, want %q", store.UnclassifiedRuleIDs, want)
	}
}
