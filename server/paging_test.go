package server_test

import (
	"context"
	"encoding/json"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/omcp/toolfailure/correlation"
	"github.com/omcp/toolfailure/store"
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
				_, _, err = b.store.InsertFailure(ctx, store.Failure{
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
