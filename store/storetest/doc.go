// Package storetest is the conformance suite of store.Store: one set of tests that every backend
// runs in full, so that the backends are interchangeable by construction rather than by hope.
//
// A backend's own test hands Run a Harness that opens fresh, migrated stores of that backend:
//
//	func TestStore(t *testing.T) {
//		t.Parallel()
//		storetest.Run(t, storetest.Harness{
//			Open:   func(t *testing.T) store.Store { … },
//			Reopen: func(t *testing.T, s store.Store) store.Store { … },
//		})
//	}
//
// Every subtest runs in parallel with its own store from Harness.Open, so tests cannot see each
// other's records and the whole suite exercises the backend under concurrent use for free. Records
// are built by the suite itself; nothing in here knows which backend it talks to. The expected
// values are derived from the contract in package store (microsecond UTC times, defaults, JSON kept
// by value), not from a backend's implementation.
//
// A behaviour that callers rely on belongs here, not in one backend's tests. This is the pattern of
// River's riverdrivertest, which holds each of its database drivers to one suite.
package storetest
