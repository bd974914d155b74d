// errorFacts against errors as Node really makes them: a refused connection
// is a fetch to a port that was just closed, not a hand-built object.
import assert from "node:assert/strict";
import { createServer } from "node:net";
import { it } from "node:test";

import { errorFacts } from "../src/index.js";

/** A local port that nothing listens on: bound, then released. */
async function closedPort(): Promise<number> {
  const srv = createServer();
  await new Promise<void>((resolve) => srv.listen(0, "127.0.0.1", resolve));
  const { port } = srv.address() as { port: number };
  await new Promise<void>((resolve) => srv.close(() => resolve()));
  return port;
}

it("names the refused connection under fetch's bare 'fetch failed'", async () => {
  const port = await closedPort();
  const err = await fetch(`http://127.0.0.1:${port}/`).then(
    () => assert.fail("a closed port answered"),
    (e: unknown) => e,
  );
  // What the reporter used to send: the wrapper's words only.
  assert.equal((err as Error).message, "fetch failed");
  const facts = errorFacts(err);
  assert.equal(facts.type, "ECONNREFUSED");
  assert.match(facts.message ?? "", /^fetch failed: .*ECONNREFUSED/);
});

it("follows a short chain of causes and stops on a cycle", () => {
  const inner = Object.assign(new Error("getaddrinfo ENOTFOUND api.example"), { code: "ENOTFOUND" });
  const mid = new Error("request to the API failed", { cause: inner });
  const outer = new TypeError("tool failed", { cause: mid });
  assert.deepEqual(errorFacts(outer), {
    message: "tool failed: request to the API failed: getaddrinfo ENOTFOUND api.example",
    type: "ENOTFOUND",
  });

  const a = new Error("a") as Error & { cause?: unknown };
  const b = new Error("b", { cause: a });
  a.cause = b;
  assert.equal(errorFacts(a).message, "a: b");
});

it("reads only a bounded number of causes", () => {
  let e = Object.assign(new Error("deepest"), { code: "EDEEP" }) as Error;
  for (let i = 0; i < 10; i++) {
    e = new Error(`level ${i}`, { cause: e });
  }
  const facts = errorFacts(e);
  assert.equal(facts.type, undefined);
  assert.doesNotMatch(facts.message ?? "", /deepest/);
});

it("takes a status from a cause when the wrapper has none", () => {
  const http = Object.assign(new Error("Too Many Requests"), { status: 429, headers: { "Retry-After": "7" } });
  const facts = errorFacts(new Error("upstream call failed", { cause: http }));
  assert.equal(facts.httpStatus, 429);
  assert.equal(facts.retryAfter, "7");
});
