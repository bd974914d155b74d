// The package as a user gets it: npm pack, installed into a fresh project
// with nothing else from this repository, then the documented examples (the
// blocks of README.md and docs/toolfailure.md marked for it) run or compile
// there against a live service.
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, it } from "node:test";

import { repoRoot, startService, type Service } from "./service.js";

const pkgDir = join(repoRoot, "sdk", "typescript");

/** The fenced blocks that follow a `<!-- MARK -->` line, in order. */
export function markedBlocks(markdown: string, mark: string): string[] {
  const re = new RegExp(`<!-- ${mark} -->\\s*\\n\`\`\`[a-z]+\\n([\\s\\S]*?)\\n\`\`\``, "g");
  return [...markdown.matchAll(re)].map((m) => m[1]!);
}

let svc: Service;
let work: string;
before(async () => {
  svc = await startService();
  work = mkdtempSync(join(tmpdir(), "toolfailure-pack-"));
});
after(async () => {
  await svc?.stop();
  rmSync(work, { recursive: true, force: true });
});

it("npm pack installs into a fresh project and the documented examples work there", async () => {
  const out = execFileSync("npm", ["pack", "--pack-destination", work, "--json"], { cwd: pkgDir, encoding: "utf8", stdio: ["ignore", "pipe", "pipe"] });
  const [packed] = JSON.parse(out.slice(out.indexOf("["))) as { filename: string; files: { path: string }[] }[];
  const paths = packed!.files.map((f) => f.path);
  assert.ok(paths.includes("dist/src/index.js") && paths.includes("dist/src/index.d.ts"), `packed: ${paths.join(", ")}`);
  assert.ok(!paths.some((p) => p.startsWith("dist/test/") || p.startsWith("src/")), "only the built package is packed");
  for (const want of ["README.md", "LICENSE", "dist/cjs/index.js", "dist/cjs/index.d.ts", "dist/cjs/package.json"]) {
    assert.ok(paths.includes(want), `${want} is not packed: ${paths.join(", ")}`);
  }

  const app = join(work, "app");
  mkdirSync(app);
  writeFileSync(join(app, "package.json"), JSON.stringify({ name: "fresh-app", private: true, type: "module" }));
  // --prefer-offline: the dependencies are the ones npm ci fetched for this
  // package already; the package itself comes from the tarball.
  execFileSync(
    "npm",
    ["install", "--no-audit", "--no-fund", "--prefer-offline", join(work, packed!.filename), "@modelcontextprotocol/sdk@1.32.2", "zod@4.6.7", "typescript@5.9.3", "@types/node@20.19.43"],
    { cwd: app, stdio: ["ignore", "pipe", "pipe"] },
  );

  const docs = ["README.md", join("docs", "toolfailure.md")].map((f) => readFileSync(join(repoRoot, f), "utf8"));
  const runs = docs.flatMap((d) => markedBlocks(d, "run: typescript"));
  const compiles = docs.flatMap((d) => markedBlocks(d, "compile: typescript"));
  assert.ok(runs.length >= 1 && compiles.length >= 1, `${runs.length} runnable and ${compiles.length} compilable blocks`);

  const env = { ...process.env, TOOLFAILURE_SERVER: svc.url, TOOLFAILURE_KEY: svc.reportKey };
  runs.forEach((code, i) => {
    const file = join(app, `example-${i}.mjs`);
    writeFileSync(file, code);
    const printed = execFileSync("node", [file], { cwd: app, env, encoding: "utf8", stdio: ["ignore", "pipe", "pipe"] });
    assert.match(printed, /retried after 3 attempts/, `example ${i} printed:\n${printed}`);
    assert.match(printed, /tf_[0-9A-Z]{27}/, `example ${i} printed no correlation ID:\n${printed}`);
  });

  compiles.forEach((code, i) => writeFileSync(join(app, `snippet-${i}.ts`), code));
  writeFileSync(
    join(app, "tsconfig.json"),
    JSON.stringify({ compilerOptions: { target: "ES2022", module: "NodeNext", moduleResolution: "NodeNext", strict: true, noEmit: true, skipLibCheck: true, types: ["node"] }, include: ["*.ts"] }),
  );
  try {
    execFileSync("node", [join(app, "node_modules", "typescript", "bin", "tsc"), "-p", app], { cwd: app, encoding: "utf8", stdio: ["ignore", "pipe", "pipe"] });
  } catch (err) {
    assert.fail(`the documented TypeScript does not compile against the packed package:\n${(err as { stdout?: string }).stdout}`);
  }

  // npm's default is "type": "commonjs": such a project requires the package
  // and type-checks instrument(server) against the CommonJS declarations. It
  // sits inside the app so that it resolves the same installed modules.
  const cjs = join(app, "cjs");
  mkdirSync(cjs);
  writeFileSync(join(cjs, "package.json"), JSON.stringify({ name: "fresh-cjs-app", private: true }));
  writeFileSync(
    join(cjs, "required.js"),
    [
      `const { ToolFailureReporter, callToolWithPolicy, errorFacts } = require("@omcp/toolfailure");`,
      `const { ClassifierService } = require("@omcp/toolfailure/gen/toolfailure/v1/classifier_service_pb");`,
      `console.log(typeof ToolFailureReporter, typeof callToolWithPolicy, typeof errorFacts, ClassifierService.typeName);`,
    ].join("\n"),
  );
  const required = execFileSync("node", [join(cjs, "required.js")], { cwd: cjs, env, encoding: "utf8", stdio: ["ignore", "pipe", "pipe"] });
  assert.equal(required.trim(), "function function function toolfailure.v1.ClassifierService");
  writeFileSync(
    join(cjs, "server.ts"),
    [
      `import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";`,
      `import { ToolFailureReporter, type ReporterStats } from "@omcp/toolfailure";`,
      `const server = new McpServer({ name: "cjs-mcp", version: "1.0.0" });`,
      `const reporter = new ToolFailureReporter({ server: "cjs-mcp" });`,
      `reporter.instrument(server);`,
      `const stats: ReporterStats = reporter.stats();`,
      `console.log(typeof require, stats.failed);`,
    ].join("\n"),
  );
  writeFileSync(
    join(cjs, "tsconfig.json"),
    JSON.stringify({ compilerOptions: { target: "ES2022", module: "NodeNext", moduleResolution: "NodeNext", strict: true, outDir: "out", skipLibCheck: true, types: ["node"] }, include: ["*.ts"] }),
  );
  try {
    execFileSync("node", [join(app, "node_modules", "typescript", "bin", "tsc"), "-p", cjs], { cwd: cjs, encoding: "utf8", stdio: ["ignore", "pipe", "pipe"] });
  } catch (err) {
    assert.fail(`instrument(server) does not type-check in a CommonJS project:\n${(err as { stdout?: string }).stdout}`);
  }
  const ran = execFileSync("node", [join(cjs, "out", "server.js")], { cwd: cjs, env, encoding: "utf8", stdio: ["ignore", "pipe", "pipe"] });
  assert.equal(ran.trim(), "function 0", "the compiled CommonJS server runs");
});
