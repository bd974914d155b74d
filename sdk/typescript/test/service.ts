// Shared by the tests; not a test file itself: a toolfailure service on the
// embedded store, started from the binary (TOOLFAILURE_BIN, else built from
// this repository with go build), with one key per scope.
import { execFileSync, spawn, type ChildProcess } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { createInterface } from "node:readline";
import { fileURLToPath } from "node:url";

/** The repository root: tests run from dist/test. */
export const repoRoot = resolve(dirname(fileURLToPath(import.meta.url)), "..", "..", "..", "..");

/** A correlation ID: treated as opaque, checked only for its shape. */
export const CORRELATION_ID = /^tf_[0-9A-HJKMNP-TV-Z]{27}$/;

export interface Service {
  url: string;
  reportKey: string;
  lookupKey: string;
  stop(): Promise<void>;
}

let built: string | undefined;

function binary(dir: string): string {
  if (process.env.TOOLFAILURE_BIN) {
    return process.env.TOOLFAILURE_BIN;
  }
  if (!built) {
    built = join(dir, "toolfailure");
    execFileSync("go", ["build", "-o", built, "./cmd/toolfailure"], { cwd: repoRoot, stdio: "inherit" });
  }
  return built;
}

export async function startService(): Promise<Service> {
  const dir = mkdtempSync(join(tmpdir(), "toolfailure-ts-"));
  const bin = binary(dir);
  const db = `sqlite:${join(dir, "toolfailure.db")}`;
  const env = { ...process.env, DATABASE_URL: "", TOOLFAILURE_KEY: "" };
  const key = (scopes: string) => {
    const out = execFileSync(bin, ["keys", "create", "--tenant", "acme", "--scopes", scopes, "--database-url", db], { env, encoding: "utf8", stdio: ["ignore", "pipe", "pipe"] });
    return out.trim().split("\n").at(-1)!.trim();
  };
  const reportKey = key("report");
  const lookupKey = key("lookup");
  const child: ChildProcess = spawn(bin, ["serve", "--listen", "127.0.0.1:0", "--database-url", db], { env, stdio: ["ignore", "ignore", "pipe"] });
  const url = await new Promise<string>((resolveUrl, reject) => {
    const timer = setTimeout(() => reject(new Error("the service did not start within 60 s")), 60_000);
    child.once("exit", (code) => reject(new Error(`the service exited with ${code}`)));
    createInterface({ input: child.stderr! }).on("line", (line) => {
      const m = /serving .* on (http:\/\/[^\s"]+)/.exec(line);
      if (m) {
        clearTimeout(timer);
        resolveUrl(m[1]!);
      }
    });
  });
  return {
    url,
    reportKey,
    lookupKey,
    stop: async () => {
      const exited = new Promise((r) => child.once("exit", r));
      child.kill("SIGINT");
      await exited;
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
