package storetest

import (
	"testing"
	"time"

	"github.com/omcp/toolfailure/store"
)

// runSessions: a signed-out web session is revoked for its tenant only, on every process that
// shares the store, and the record of it is forgotten only once the session has expired.
func runSessions(t *testing.T, h Harness) {
	t.Run("RevokeAndCheck", func(t *testing.T) {
		t.Parallel()
		b := setup(t, h)
		other, err := b.store.EnsureTenant(b.ctx, "globex")
		requireNoError(t, err)
		id, kept := newID(t), newID(t)
		revoked, err := b.store.SessionRevoked(b.ctx, b.tenant.ID, id)
		requireNoError(t, err)
		if revoked {
			t.Fatal("a session nobody signed out is revoked")
		}
		expires := time.Now().Add(8 * time.Hour)
		requireNoError(t, b.store.RevokeSession(b.ctx, b.tenant.ID, id, expires))
		requireNoError(t, b.store.RevokeSession(b.ctx, b.tenant.ID, id, expires)) // twice is fine
		for _, tc := range []struct {
			name   string
			tenant int64
			id     [16]byte
			want   bool
		}{
			{"SignedOut", b.tenant.ID, id, true},
			{"AnotherSession", b.tenant.ID, kept, false},
			{"AnotherTenant", other.ID, id, false},
		} {
			got, err := b.store.SessionRevoked(b.ctx, tc.tenant, tc.id)
			requireNoError(t, err)
			if got != tc.want {
				t.Errorf("%s: revoked = %v, want %v", tc.name, got, tc.want)
			}
		}
		// A restart (or another replica) sees it too.
		s := h.Reopen(t, b.store)
		requireNoError(t, s.Migrate(b.ctx))
		got, err := s.SessionRevoked(b.ctx, b.tenant.ID, id)
		requireNoError(t, err)
		if !got {
			t.Error("the revocation did not survive a restart")
		}
	})

	t.Run("ExpiredAreForgotten", func(t *testing.T) {
		t.Parallel()
		b := setup(t, h)
		old, current := newID(t), newID(t)
		requireNoError(t, b.store.RevokeSession(b.ctx, b.tenant.ID, old, time.Now().Add(-time.Minute)))
		requireNoError(t, b.store.RevokeSession(b.ctx, b.tenant.ID, current, time.Now().Add(time.Hour)))
		for _, tc := range []struct {
			name string
			id   [16]byte
			want bool
		}{{"Expired", old, false}, {"Current", current, true}} {
			got, err := b.store.SessionRevoked(b.ctx, b.tenant.ID, tc.id)
			requireNoError(t, err)
			if got != tc.want {
				t.Errorf("%s: revoked = %v, want %v", tc.name, got, tc.want)
			}
		}
	})

	t.Run("UnknownTenant", func(t *testing.T) {
		t.Parallel()
		b := setup(t, h)
		err := b.store.RevokeSession(b.ctx, b.tenant.ID+1000, newID(t), time.Now().Add(time.Hour))
		requireErrorIs(t, err, store.ErrNotFound)
	})
}
