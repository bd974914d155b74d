package server_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/omcp/toolfailure/correlation"
	v1 "github.com/omcp/toolfailure/gen/toolfailure/v1"
	"github.com/omcp/toolfailure/server"
	"github.com/omcp/toolfailure/store"
	"github.com/omcp/toolfailure/store/storetest"
	"google.golang.org/protobuf/proto"
)

// TestFullPageHasNextPageToken: a page of the largest size with more
// records behind it says so. The store once capped the one-extra-row probe
// at the page maximum, so pageSize 1000 over 1,005 records answered 1,000
// records and no nextPageToken, and every listing stopped there silently.
func TestFullPageHasNextPageToken(t *testing.T) {
	t.Parallel()
	b := setup(t)
	ctx := context.Background()
	tenant, err := b.store.EnsureTenant(ctx, "acme")
	if err != nil {
		t.Fatal(err)
	}
	const n = store.MaxPageSize + 5
	base := time.Date(2026, 3, 1, 0, 0, 0, 0, time.UTC)
	var wg sync.WaitGroup
	errs := make(chan error, n)
	ids := make(chan int, n)
	for i := range n {
		ids <- i
	}
	close(ids)
	for range 8 {
		wg.Go(func() {
			for i := range ids {
				id, err := correlation.New(base.Add(time.Duration(i) * time.Millisecond))
				if err != nil {
					errs <- err
					return
				}
				_, _, err = storetest.Insert(ctx, b.store, store.Failure{
					TenantID: tenant.ID, ID: id, Tool: "read_file",
					Class: store.ClassCapability, Code: "resource_not_found",
					Error: json.RawMessage(`{"message":"no such file"}`),
				})
				if err != nil {
					errs <- err
					return
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatalf("insert: %v", err)
	}

	list := func(body string) (records int, token string) {
		t.Helper()
		status, res := b.post(t, listPath, b.lookupKey, body)
		if status != 200 {
			t.Fatalf("ListFailures(%s): %d %v", body, status, res)
		}
		fs, _ := res["failures"].([]any)
		token, _ = res["nextPageToken"].(string)
		return len(fs), token
	}
	got, token := list(fmt.Sprintf(`{"pageSize": %d}`, store.MaxPageSize))
	if got != store.MaxPageSize || token == "" {
		t.Fatalf("first page: %d records, nextPageToken %q; want %d and a token", got, token, store.MaxPageSize)
	}
	got, token = list(fmt.Sprintf(`{"pageSize": %d, "pageToken": %q}`, store.MaxPageSize, token))
	if got != 5 || token != "" {
		t.Fatalf("second page: %d records, nextPageToken %q; want 5 and none", got, token)
	}
}

// classifyLarge stores n records through Classify, each with about size bytes of details, and
// returns their correlation IDs, oldest first.
func classifyLarge(t *testing.T, b *bundle, n, size int) []string {
	t.Helper()
	var ids []string
	for i := range n {
		body, err := json.Marshal(map[string]any{
			"tool":  "export_report",
			"error": map[string]any{"message": fmt.Sprintf("report %d too large", i), "details": map[string]any{"blob": strings.Repeat("x", size)}},
		})
		if err != nil {
			t.Fatal(err)
		}
		status, res := b.post(t, classifyPath, b.reportKey, string(body))
		if status != http.StatusOK {
			t.Fatalf("Classify: %d %v", status, res)
		}
		ids = append(ids, metaOf(t, res)["correlationId"].(string))
	}
	return ids
}

// listAllPages follows nextPageToken from the first ListFailures page of pageSize and returns
// the IDs of each page and the size of each answer's body.
func listAllPages(t *testing.T, b *bundle, pageSize int) (pages [][]string, bodies []int) {
	t.Helper()
	token := ""
	for len(pages) <= 100 {
		body := fmt.Sprintf(`{"pageSize": %d, "pageToken": %q}`, pageSize, token)
		req, _ := http.NewRequest(http.MethodPost, b.url+listPath, strings.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Authorization", "Bearer "+b.lookupKey)
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		raw, _ := io.ReadAll(res.Body)
		_ = res.Body.Close()
		if res.StatusCode != http.StatusOK {
			t.Fatalf("ListFailures(%s): %d %s", body, res.StatusCode, raw)
		}
		var out struct {
			Failures []struct {
				CorrelationID string `json:"correlationId"`
			} `json:"failures"`
			NextPageToken string `json:"nextPageToken"`
		}
		if err := json.Unmarshal(raw, &out); err != nil {
			t.Fatal(err)
		}
		var ids []string
		for _, f := range out.Failures {
			ids = append(ids, f.CorrelationID)
		}
		pages = append(pages, ids)
		bodies = append(bodies, len(raw))
		if out.NextPageToken == "" {
			return pages, bodies
		}
		token = out.NextPageToken
	}
	t.Fatal("paging does not end")
	return nil, nil
}

// TestListFailuresByteBudget: a page of large records ends at the byte budget with a
// nextPageToken, however many records pageSize allows, and paging still returns every record
// once, newest first. Without the budget, 64 records of ~570 KiB made one 36 MB answer.
func TestListFailuresByteBudget(t *testing.T) {
	t.Parallel()
	b := setup(t)
	const record = 200 << 10
	ids := classifyLarge(t, b, 14, record)
	slices.Reverse(ids)

	pages, bodies := listAllPages(t, b, store.MaxPageSize)
	if len(pages) < 2 {
		t.Fatalf("%d records of %d KiB came in one page of %d bytes; want pages cut at %d bytes", len(ids), record>>10, bodies[0], server.DefaultMaxListBytes)
	}
	if got := slices.Concat(pages...); !slices.Equal(got, ids) {
		t.Fatalf("paging returned %d records %v, want %d newest first %v", len(got), got, len(ids), ids)
	}
	for i, n := range bodies {
		// The budget counts records as stored; the answer's JSON differs from that by little.
		if n > server.DefaultMaxListBytes+64<<10 {
			t.Errorf("page %d: %d bytes, over the budget of %d", i, n, server.DefaultMaxListBytes)
		}
		if i < len(pages)-1 && len(pages[i]) < server.DefaultMaxListBytes/(record+4<<10) {
			t.Errorf("page %d: %d records; the budget holds more", i, len(pages[i]))
		}
	}
}

// TestListFailuresRecordOverBudget: a record larger than the whole budget still comes back, alone
// on its page, and the page says that more follow.
func TestListFailuresRecordOverBudget(t *testing.T) {
	t.Parallel()
	b := setupWith(t, func(c *server.Config) { c.Limits.MaxListBytes = 64 << 10 })
	ids := classifyLarge(t, b, 3, 100<<10)
	slices.Reverse(ids)
	pages, _ := listAllPages(t, b, 50)
	if len(pages) != 3 {
		t.Fatalf("%d pages %v, want one record per page", len(pages), pages)
	}
	for i, p := range pages {
		if len(p) != 1 || p[0] != ids[i] {
			t.Fatalf("page %d = %v, want [%s]", i, p, ids[i])
		}
	}
}

// TestGetGroupByteBudget: GetGroup reads a group's newest records for its shadow evidence and
// its recent records within the byte budget of a ListFailures page, so that a group of large
// records gives a bounded answer (it read up to 1,000 records whatever their size).
func TestGetGroupByteBudget(t *testing.T) {
	t.Parallel()
	b := setupWith(t, func(c *server.Config) { c.Limits.MaxListBytes = 256 << 10 })
	const record = 100 << 10
	ids := classifyLarge(t, b, 8, record)
	fc := b.failures(b.lookupKey)
	got, err := fc.GetFailure(t.Context(), &v1.GetFailureRequest{CorrelationId: ids[0]})
	if err != nil {
		t.Fatal(err)
	}
	group, err := fc.GetGroup(t.Context(), &v1.GetGroupRequest{Fingerprint: got.GetFailure().GetFingerprint()})
	if err != nil {
		t.Fatal(err)
	}
	if n := group.GetGroup().GetCount(); n != int64(len(ids)) {
		t.Fatalf("the group counts %d records, want %d", n, len(ids))
	}
	read, recent := group.GetShadowRecords(), len(group.GetRecent())
	if read < 1 || read > 3 || recent != int(read) {
		t.Errorf("GetGroup read %d records and returned %d of %d records of %d KiB; want 1 to 3 (a 256 KiB budget), all returned",
			read, recent, len(ids), record>>10)
	}
	if n := proto.Size(group); n > 256<<10+record+64<<10 {
		t.Errorf("GetGroup answered %d bytes, over the budget of %d and one record", n, 256<<10)
	}
}
