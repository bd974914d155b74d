package mcpproxy

import (
	"fmt"
	"testing"
	"time"
)

// TestTaskTableBounds holds the task memory to its two bounds with a clock
// the test sets: the cap forgets the oldest first, and a task older than the
// expiry is forgotten however few there are.
func TestTaskTableBounds(t *testing.T) {
	t0 := time.Date(2026, 7, 28, 10, 0, 0, 0, time.UTC)
	tt := newTaskTable(3, time.Hour)
	c := &call{tool: "export", meta: map[string]any{"traceparent": "tp", "progressToken": 7, "com.example/big": "x"}}
	for i := range 5 {
		evicted := tt.add(fmt.Sprintf("t%d", i), c, t0.Add(time.Duration(i)*time.Minute))
		want := 0
		if i >= 3 {
			want = 1 // full: the oldest makes room
		}
		if evicted != want {
			t.Errorf("add t%d forgot %d, want %d", i, evicted, want)
		}
	}
	if n := tt.len(); n != 3 {
		t.Fatalf("%d tasks remembered, cap 3", n)
	}
	now := t0.Add(5 * time.Minute)
	for i, want := range []bool{false, false, true, true, true} {
		if got := tt.get(fmt.Sprintf("t%d", i), now) != nil; got != want {
			t.Errorf("t%d remembered %v, want %v", i, got, want)
		}
	}
	e := tt.get("t4", now)
	if _, ok := e.meta["progressToken"]; ok || e.meta["traceparent"] != "tp" || len(e.meta) != 1 {
		t.Errorf("remembered _meta %v: only what classification reads", e.meta)
	}

	// t2 was created at +2m, t4 at +4m: an hour later t2 is gone, t4 not.
	later := t0.Add(time.Hour + 3*time.Minute)
	if tt.get("t2", later) != nil || tt.get("t4", later) == nil {
		t.Errorf("at +1h3m: t2 %v (created +2m), t4 %v (created +4m)", tt.get("t2", later) != nil, tt.get("t4", later) != nil)
	}
	if n := tt.len(); n != 1 {
		t.Errorf("%d tasks remembered after expiry, want 1", n)
	}

	// A reused ID belongs to the newer call; forget drops a task.
	tt.add("t4", &call{tool: "other"}, later)
	if e := tt.get("t4", later); e == nil || e.tool != "other" || tt.len() != 1 {
		t.Errorf("a reused ID: %+v, %d remembered", e, tt.len())
	}
	tt.forget("t4")
	if tt.len() != 0 {
		t.Errorf("forget left %d", tt.len())
	}
}
