// The reporter's start-up check: configuration errors fail with the proxy's
// words, an unreachable service only warns.
import assert from "node:assert/strict";
import { createServer } from "node:net";
import { after, before, it } from "node:test";

import { ToolFailureReporter } from "../src/index.js";
import { startService, type Service } from "./service.js";

let svc: Service;
before(async () => {
  svc = await startService();
});
after(async () => {
  await svc?.stop();
});

it("refuses a URL without a scheme with the proxy's words", () => {
  assert.throws(
    () => new ToolFailureReporter({ baseUrl: "127.0.0.1:18080" }),
    { message: 'ToolFailureReporter: the toolfailure service URL "127.0.0.1:18080" does not start with http:// or https:// (try http://127.0.0.1:18080)' },
  );
  assert.throws(() => new ToolFailureReporter({ baseUrl: "ftp://127.0.0.1:18080" }), /does not start with http:\/\/ or https:\/\//);
  assert.throws(() => new ToolFailureReporter({ baseUrl: "http://[::1" }), /is not a URL/);
});

it("accepts a key the service knows", async () => {
  const warnings: string[] = [];
  await new ToolFailureReporter({ baseUrl: svc.url, apiKey: svc.reportKey }).check({ warn: (m) => warnings.push(m) });
  assert.deepEqual(warnings, []);
});

it("rejects a key the service does not know", async () => {
  await assert.rejects(
    new ToolFailureReporter({ baseUrl: svc.url, apiKey: "tfk_not-a-key" }).check(),
    /does not know the API key \(unauthenticated\): check the key/,
  );
});

it("rejects a key without the report scope", async () => {
  await assert.rejects(
    new ToolFailureReporter({ baseUrl: svc.url, apiKey: svc.lookupKey }).check(),
    /lacks the report scope .*create a key with --scopes report/,
  );
});

it("only warns when the service cannot be reached", async () => {
  const srv = createServer();
  await new Promise<void>((resolve) => srv.listen(0, "127.0.0.1", resolve));
  const { port } = srv.address() as { port: number };
  await new Promise<void>((resolve) => srv.close(() => resolve()));
  const warnings: string[] = [];
  await new ToolFailureReporter({ baseUrl: `http://127.0.0.1:${port}`, apiKey: svc.reportKey }).check({ warn: (m) => warnings.push(m) });
  assert.equal(warnings.length, 1);
  assert.match(warnings[0]!, new RegExp(`cannot reach the toolfailure service at http://127.0.0.1:${port}`));
});
