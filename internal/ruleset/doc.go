// Package ruleset is how a tenant teaches toolfailure its own errors: rules
// that sort a raw tool error into the proposal's class and code before the
// built-in baseline pack (package classify) is consulted.
//
// # The model
//
// A Rule has a name (unique per tenant, and the ID that records and Explain
// show), a priority, a mode, a condition and an outcome. The condition is
// a CEL expression, When, ANDed with optional shortcuts for the common
// cases: a tool glob, lists of HTTP statuses, gRPC codes and JSON-RPC codes,
// and an RE2 regular expression on the message. Shortcuts are not a second
// language: each one is translated into the CEL an author would have written
// (tool: "send_*" is tool.matches("^send_.*$"), httpStatus: [409, 422] is
// error.httpStatus in [409, 422]) and compiled by the same engine, so they
// behave exactly alike, in Explain too. The rules file format and the API's
// JSON form are the same document; docs/rules.md is the author's guide.
//
// Conditions see the request as the service received it: tool, server,
// error.message, error.type, error.httpStatus, error.grpcCode,
// error.jsonrpcCode, error.retryAfter, error.details (any JSON),
// error.attributes (a string map) and toolAnnotations. The field names are
// the API's JSON names, and the types are declared to the CEL checker, so a
// misspelt field or a comparison of a number with a string is refused when
// the rule is compiled, with its line and column, rather than silently never
// matching. A code the error does not carry is an evaluation error, not
// zero, so error.httpStatus < 500 does not match an error without a status;
// since CEL's && and || absorb errors, has() guards are needed only where
// an author wants them.
//
// # Compilation
//
// Compile checks and compiles a whole set at once and accepts all of it or
// none: an *InvalidError lists every problem, each naming the rule, its
// position in the input, the field and the position inside the field, as in
//
//	rules[3] "mail-needs-confirmation": when: 1:15: undeclared reference to 'foo'
//
// Outcomes are held to the toolFailure proposal: a closed class, a code,
// retryable only for reliability, a retry delay only when retryable, a
// baseline code only with its own class, guidance under 500 characters.
// Guidance may be a template that quotes structured fields of the error
// ({{error.httpStatus}}, {{error.details.data.code}}, {{retryAfterSeconds}});
// never error.message, which is free text that may carry secrets or
// instructions aimed at the model.
//
// No rule can be slow. Regular expressions are RE2 (Go's regexp), whose
// matching time is linear in the input whatever the pattern, so the classic
// catastrophic patterns are harmless. Every condition's worst-case cost is
// estimated at compile time over the largest request the service accepts,
// and a condition that could exceed the limit (nested loops over
// error.details, say) is refused. A set holds at most MaxRules rules.
//
// Nor can a set be slow as a whole: one request may spend RequestBudget on
// all of its rules together. Compile refuses a set whose estimated cost on
// its most expensive request exceeds it, naming the rule where the budget
// is crossed (CompileStored takes a stored set as it is); evaluation shares
// one CEL cost tracker between all the conditions of a request, and when
// the budget runs out, the baseline decides and the Result says so. A
// caller who leaves (ClassifyContext, ExplainContext) stops the evaluation,
// between rules and inside a condition's loops. See budget.go.
//
// # Evaluation
//
// Tenant rules run in order of priority (higher first), ties broken by name
// in byte order, then the baseline pack, whose documented default applies
// when nothing matches. The first enforce-mode rule that matches decides.
// Shadow-mode rules are evaluated too, but only reported: Result.Shadows
// lists those that matched and rank above the decider, which is what they
// would have changed had they been enforced.
//
// Most rules test one thing a request either has or lacks: a tool, a code,
// an error type. The matcher index files every rule under one such test,
// taken from the top-level conjuncts of its condition, choosing for each
// rule the test that the fewest other rules share. A classification looks up
// only the rules filed under the values the request carries, plus the few
// that test nothing indexable, and evaluates them in order. Skipping the
// others is sound because a rule whose required conjunct is false cannot
// match; the package's tests compare the index with evaluating every rule on
// random sets. With 1,000 rules a classification takes about a microsecond
// and a half, a few hundred times less than evaluating the rules one by one
// (see BenchmarkMatch). A compiled rule holds about 4 KiB.
//
// Explain evaluates every rule without the index, part by part, and says for
// each whether it matched and why, for rule authors and support engineers.
package ruleset
