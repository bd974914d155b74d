package ui_test

import (
	"fmt"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/omcp/toolfailure/internal/ui/uitest"
	"github.com/omcp/toolfailure/store"
)

// TestListByteBudget: with records larger than the byte budget allows on one page, the list
// ends each page early with a link to the next, every record is reached page by page, each page
// holds at least one record, and the overview still counts them all.
func TestListByteBudget(t *testing.T) {
	t.Parallel()
	// Each record below counts about 1.3 KiB (store.RecordSize): two fit in the budget, a third
	// does not.
	b := uitest.Setup(t, uitest.Options{MaxListBytes: 3 << 10})
	now := time.Now()
	big := []byte(`{"message":"` + strings.Repeat("x", 1<<10) + `"}`)
	var ids []string
	for i := range 5 {
		ids = append(ids, b.Insert(t, b.Acme, store.Failure{Tool: "big", Class: "reliability", Code: "retryable_transient_error",
			Error: big, CreatedAt: now.Add(-time.Duration(5-i) * time.Minute)}))
	}
	huge := []byte(`{"message":"` + strings.Repeat("y", 8<<10) + `"}`)
	ids = append(ids, b.Insert(t, b.Acme, store.Failure{Tool: "big", Class: "reliability", Code: "retryable_transient_error",
		Error: huge, CreatedAt: now.Add(-10 * time.Minute)}))
	br := b.NewBrowser(t)
	br.SignIn(b.LookupKey)

	next := regexp.MustCompile(`href="([^"]+)" rel="next"`)
	seen := map[string]bool{}
	path := "/ui/failures"
	for page := 1; path != ""; page++ {
		if page > len(ids) {
			t.Fatalf("more pages than records")
		}
		res := br.Get(path)
		rows := strings.Count(res.Body, `<tr>`) - 1
		if rows < 1 || rows > 2 {
			t.Fatalf("page %d has %d rows, want 1 or 2 within the byte budget", page, rows)
		}
		for _, id := range ids {
			if strings.Contains(res.Body, id) {
				if seen[id] {
					t.Errorf("page %d repeats %s", page, id)
				}
				seen[id] = true
			}
		}
		path = ""
		if m := next.FindStringSubmatch(res.Body); m != nil {
			path = strings.ReplaceAll(m[1], "&amp;", "&")
		}
	}
	if len(seen) != len(ids) {
		t.Errorf("the pages listed %d of %d records", len(seen), len(ids))
	}

	res := br.Get("/ui/")
	if want := fmt.Sprintf("<strong>%d</strong> failures", len(ids)); !strings.Contains(res.Body, want) {
		t.Errorf("the overview does not count every record across its byte-limited reads: no %q", want)
	}
}
