// Package class is the toolFailure proposal's closed set of failure classes: the one Go type for
// them, which the classifier, the stores, the API conversions (internal/classwire) and the proxy
// share, so that a part that only names a class does not link the classifier.
package class

// Class is the closed set of failure classes of the toolFailure proposal.
// Clients dispatch on it: capability and governance failures are never
// retried automatically, reliability failures may be.
type Class string

// The three classes.
const (
	// Capability: the call cannot succeed as made (bad arguments, missing
	// resource, unsupported operation). Change the call, do not repeat it.
	Capability Class = "capability"
	// Reliability: the call failed for a reason outside the caller's
	// control that may pass (timeouts, overload, dropped connections).
	Reliability Class = "reliability"
	// Governance: the call was refused by auth, permission, policy or a
	// required human step. Only a person can change the outcome.
	Governance Class = "governance"
)

// Valid reports whether c is one of the three classes.
func (c Class) Valid() bool {
	return c == Capability || c == Reliability || c == Governance
}
