// The reporter's start-up check, by hand (check()) and as instrument()
// starts it: configuration errors fail with the proxy's words, an
// unreachable service only warns. And the constructor's refusals.
import assert from "node:assert/strict";
import { createServer } from "node:net";
import { after, before, it } from "node:test";

import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";

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

/** Runs f with TOOLFAILURE_SERVER and TOOLFAILURE_KEY set as given (undefined: unset), then restores them. */
function withEnv<T>(env: { TOOLFAILURE_SERVER?: string; TOOLFAILURE_KEY?: string }, f: () => T): T {
  const saved = { TOOLFAILURE_SERVER: process.env.TOOLFAILURE_SERVER, TOOLFAILURE_KEY: process.env.TOOLFAILURE_KEY };
  const set = (name: "TOOLFAILURE_SERVER" | "TOOLFAILURE_KEY", v: string | undefined) => {
    if (v === undefined) {
      delete process.env[name];
    } else {
      process.env[name] = v;
    }
  };
  set("TOOLFAILURE_SERVER", env.TOOLFAILURE_SERVER);
  set("TOOLFAILURE_KEY", env.TOOLFAILURE_KEY);
  try {
    return f();
  } finally {
    set("TOOLFAILURE_SERVER", saved.TOOLFAILURE_SERVER);
    set("TOOLFAILURE_KEY", saved.TOOLFAILURE_KEY);
  }
}

/** Collects what console.error prints while f's promise runs. */
async function stderrLines(f: () => Promise<void>): Promise<string[]> {
  const lines: string[] = [];
  const original = console.error;
  console.error = (...args: unknown[]) => lines.push(args.map(String).join(" "));
  try {
    await f();
  } finally {
    console.error = original;
  }
  return lines;
}

/** An McpServer with one tool that always fails. */
function failingServer(): McpServer {
  const server = new McpServer({ name: "check-test", version: "1" });
  server.registerTool("fails", { description: "Always fails." }, async () => ({ content: [{ type: "text", text: "upstream returned HTTP 503" }], isError: true }));
  return server;
}

it("without a service URL, construction says what to set, in the Go annotator's words", () => {
  withEnv({}, () => {
    assert.throws(() => new ToolFailureReporter(), {
      message:
        "ToolFailureReporter: the toolfailure service is not configured: set TOOLFAILURE_SERVER to its URL (try http://127.0.0.1:8080) and TOOLFAILURE_KEY to an API key with the report scope (or pass baseUrl and apiKey)",
    });
  });
  withEnv({ TOOLFAILURE_KEY: "tfk_some-key" }, () => {
    assert.throws(() => new ToolFailureReporter({ server: "mail-mcp" }), {
      message: "ToolFailureReporter: TOOLFAILURE_SERVER is not set: set it to the toolfailure service URL (try http://127.0.0.1:8080) (or pass baseUrl)",
    });
  });
  withEnv({ TOOLFAILURE_SERVER: "  " }, () => {
    assert.throws(() => new ToolFailureReporter({ apiKey: "tfk_some-key" }), /TOOLFAILURE_SERVER is not set/);
  });
  // Either source is enough.
  withEnv({ TOOLFAILURE_SERVER: svc.url }, () => new ToolFailureReporter());
  withEnv({}, () => new ToolFailureReporter({ baseUrl: svc.url }));
});

it("instrument starts the check: a refused key is printed at once and rejects ready", async () => {
  const reporter = new ToolFailureReporter({ baseUrl: svc.url, apiKey: "tfk_not-a-key" });
  const printed = await stderrLines(async () => {
    reporter.instrument(failingServer());
    await assert.rejects(reporter.ready, /does not know the API key \(unauthenticated\): check the key/);
  });
  assert.equal(printed.length, 1, printed.join("\n"));
  assert.match(printed[0]!, /^toolfailure: the toolfailure service at .* does not know the API key .*failed tool results go out without the key until this is fixed$/);
});

it("instrument starts the check: without a key it says what to set", async () => {
  const reporter = withEnv({}, () => new ToolFailureReporter({ baseUrl: svc.url }));
  const printed = await stderrLines(async () => {
    reporter.instrument(failingServer());
    await assert.rejects(reporter.ready, /no API key: set TOOLFAILURE_KEY to an API key with the report scope/);
  });
  assert.equal(printed.length, 1, printed.join("\n"));
});

it("instrument starts the check: a key the service knows makes ready resolve, silently", async () => {
  const reporter = new ToolFailureReporter({ baseUrl: svc.url, apiKey: svc.reportKey });
  const printed = await stderrLines(async () => {
    reporter.instrument(failingServer());
    await reporter.ready;
  });
  assert.deepEqual(printed, []);
});

it("instrument starts the check: an unreachable service only warns, and ready resolves", async () => {
  const srv = createServer();
  await new Promise<void>((resolve) => srv.listen(0, "127.0.0.1", resolve));
  const { port } = srv.address() as { port: number };
  await new Promise<void>((resolve) => srv.close(() => resolve()));
  const reporter = new ToolFailureReporter({ baseUrl: `http://127.0.0.1:${port}`, apiKey: svc.reportKey });
  const printed = await stderrLines(async () => {
    reporter.instrument(failingServer());
    await reporter.ready;
  });
  assert.equal(printed.length, 1, printed.join("\n"));
  assert.match(printed[0]!, new RegExp(`^toolfailure: cannot reach the toolfailure service at http://127.0.0.1:${port}`));
});

it("a check started by hand is the one instrument and ready use", async () => {
  const reporter = new ToolFailureReporter({ baseUrl: svc.url, apiKey: "tfk_not-a-key" });
  const checked = reporter.check();
  await assert.rejects(checked, /does not know the API key/);
  assert.equal(reporter.ready, checked);
  // instrument starts no second check and prints nothing: the caller has the rejection.
  const printed = await stderrLines(async () => {
    reporter.instrument(failingServer());
    await assert.rejects(reporter.ready);
  });
  assert.deepEqual(printed, []);
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
