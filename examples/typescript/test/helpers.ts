// Shared by the tests; not a test file itself.

/** A correlation ID as the service issues them: tf_ + 26 + 1 check character. */
export const CORRELATION_ID = /^tf_[0-9A-HJKMNP-TV-Z]{27}$/;
