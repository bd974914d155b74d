package postgres

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/omcp/toolfailure/internal/pgtest"
)

// The migration lock is per schema: held in one schema, it stops Migrate there and only there.
func TestMigrationLockIsPerSchema(t *testing.T) {
	t.Parallel()
	lockedURL, freeURL := pgtest.URL(t), pgtest.URL(t)

	holder, err := pgx.Connect(t.Context(), lockedURL)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = holder.Close(context.Background()) })
	if _, err := holder.Exec(t.Context(), `SELECT pg_advisory_lock(`+lockKey+`)`); err != nil {
		t.Fatal(err)
	}

	free, err := Open(t.Context(), freeURL)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = free.Close() })
	if err := free.Migrate(t.Context()); err != nil {
		t.Fatalf("Migrate of another schema waited for the lock or failed: %v", err)
	}

	locked, err := Open(t.Context(), lockedURL)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = locked.Close() })
	ctx, cancel := context.WithTimeout(t.Context(), 300*time.Millisecond)
	defer cancel()
	if err := locked.Migrate(ctx); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("Migrate while another session holds the lock: %v, want to wait until the deadline", err)
	}

	// Once released, the waiting side gets through.
	if _, err := holder.Exec(t.Context(), `SELECT pg_advisory_unlock(`+lockKey+`)`); err != nil {
		t.Fatal(err)
	}
	if err := locked.Migrate(t.Context()); err != nil {
		t.Fatal(err)
	}
}
