// Package redact removes secrets from tool errors before they are stored.
//
// A raw tool error is the most useful thing a support engineer can see, and
// also the most dangerous: SDKs put request headers, connection strings and
// whole request bodies into their error messages. The service keeps errors
// durably and shows them to people who are not the user, so every message,
// detail value and attribute passes through this package first.
//
// # What is redacted
//
// Two mechanisms cover two kinds of leak.
//
// Patterns find credentials by their shape, wherever they appear in text:
// Authorization and Cookie headers, bearer tokens, JWTs, GitHub, Slack,
// Stripe, AWS, OpenAI, Anthropic and Google keys, Slack webhook URLs,
// passwords inside URLs, PEM private keys, and key=value or "key": "value"
// pairs whose key names a secret. Patterns lists them; the list is data so
// that the documentation and the tests read the same table.
//
// Key names find secrets by their meaning in structured data: in a decoded
// JSON object or a string map, the whole value of a key such as password,
// api_key, client_secret, Authorization or Set-Cookie is replaced, whatever
// its type (SensitiveKey decides). Names that only mention tokens as a
// quantity, such as max_tokens, token_count or prompt_tokens, are model
// parameters and usage counters, not secrets, and are kept: redacting them
// would hide exactly what explains a context-length error. Empty strings,
// nulls and booleans under a sensitive key are kept too, because they cannot
// carry a secret and "the token was empty" is often the diagnosis.
//
// # The marker
//
// A secret is replaced by [REDACTED:<kind>], for example
// "Authorization: Bearer [REDACTED:authorization]" or
// "postgres://app:[REDACTED:url_password]@db:5432/app". The kind stays
// because it is diagnostic on its own: "the request carried a Stripe live key"
// or "the URL had a password in it" answers many support questions without
// revealing the secret. Surrounding text, such as the user name in a URL or
// the scheme in an Authorization header, is kept for the same reason.
//
// # Guarantees
//
// Redaction is idempotent (redacting twice equals redacting once), never
// mutates its input, and never panics. It uses RE2 (package regexp) and
// single-pass scans only, so its cost is linear in the input. Redaction is
// on the hot path of every reported failure, so the common case is kept
// cheap: each pattern has literal prefilters, all found in one pass over
// the text before any regular expression runs, so a message that holds no
// secret costs that one pass; and a pattern whose matches begin with known
// words is tried only where those words are.
//
// Redaction is a safety net, not a guarantee that nothing sensitive remains:
// a secret with no recognisable shape under a key with an innocent name will
// pass through. Tools should still avoid putting secrets into errors.
package redact
