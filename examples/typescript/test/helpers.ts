// Shared by the tests; not a test file itself.

/** A correlation ID: opaque, checked only for its shape. */
export const CORRELATION_ID = /^tf_[0-9A-HJKMNP-TV-Z]{27}$/;
