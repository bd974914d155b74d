// Shared by the tests; not a test file itself.

/** A correlation ID: opaque, checked only for its shape. */
// The check character moves into the 32-symbol alphabet
// (^tf_[0-9A-HJKMNP-TV-Z]{27}$); until every service issues such IDs, the
// old extra symbols are accepted as the last character too.
export const CORRELATION_ID = /^tf_[0-9A-HJKMNP-TV-Z]{26}[0-9A-HJKMNP-TV-Z*~$=U]$/;
