// npm install git+https://…/toolfailure.git, as a user without a registry
// release runs it: the repository's root manifest (package.json) names the
// package and its prepare script builds sdk/typescript in npm's clone. The
// test makes a git repository of this working tree (every file git would
// commit, changes included) in a temporary directory, installs it by a
// git+file:// URL into an empty project, and requires and imports it there.
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { pathToFileURL } from "node:url";
import { after, before, it } from "node:test";

import { repoRoot } from "./service.js";

interface Manifest {
  name: string;
  version: string;
  dependencies?: Record<string, string>;
  peerDependencies?: Record<string, string>;
  exports: Record<string, Record<string, Record<string, string>>>;
  main: string;
  types: string;
}
const manifest = (dir: string) => JSON.parse(readFileSync(join(dir, "package.json"), "utf8")) as Manifest;

let work: string;
before(() => {
  work = mkdtempSync(join(tmpdir(), "toolfailure-git-"));
});
after(() => {
  rmSync(work, { recursive: true, force: true });
});

it("the root manifest is the package's, pointed into sdk/typescript", () => {
  const root = manifest(repoRoot);
  const pkg = manifest(join(repoRoot, "sdk", "typescript"));
  assert.equal(root.name, pkg.name);
  assert.equal(root.version, pkg.version);
  assert.deepEqual(root.dependencies, pkg.dependencies, "root package.json dependencies differ from sdk/typescript's");
  assert.deepEqual(root.peerDependencies, pkg.peerDependencies, "root package.json peerDependencies differ from sdk/typescript's");
  const into = (p: string) => p.replace("./dist/", "./sdk/typescript/dist/");
  assert.equal(root.main, into(pkg.main));
  assert.equal(root.types, into(pkg.types));
  assert.deepEqual(root.exports, JSON.parse(JSON.stringify(pkg.exports).replaceAll("./dist/", "./sdk/typescript/dist/")));
});

it("npm install git+file://… of the repository builds the package and it loads as ESM and CommonJS", () => {
  // The repository as a commit of its own: what git would commit from this
  // working tree (tracked and new files, none that .gitignore names).
  const repo = join(work, "toolfailure");
  const files = execFileSync("git", ["ls-files", "-z", "--cached", "--others", "--exclude-standard"], { cwd: repoRoot, encoding: "utf8" })
    .split("\0")
    .filter((f) => f !== "");
  assert.ok(files.includes("package.json") && files.includes("sdk/typescript/package.json"), "git lists no root package.json");
  for (const f of files) {
    const to = join(repo, f);
    mkdirSync(dirname(to), { recursive: true });
    try {
      copyFileSync(join(repoRoot, f), to);
    } catch (err) {
      // A tracked file deleted in the working tree is not part of it.
      if ((err as NodeJS.ErrnoException).code !== "ENOENT") {
        throw err;
      }
    }
  }
  const git = (...args: string[]) =>
    execFileSync("git", ["-c", "user.name=toolfailure test", "-c", "user.email=test@example.invalid", "-c", "commit.gpgsign=false", ...args], {
      cwd: repo,
      stdio: ["ignore", "pipe", "pipe"],
    });
  git("init", "-q", "-b", "main");
  git("add", "-A");
  git("commit", "-q", "-m", "working tree");

  const app = join(work, "app");
  mkdirSync(app);
  writeFileSync(join(app, "package.json"), JSON.stringify({ name: "git-app", private: true }));
  try {
    // --prefer-offline: the dependencies are the ones the other tests have
    // fetched already; the package itself comes from the git URL whatever it says.
    execFileSync("npm", ["install", "--no-audit", "--no-fund", "--prefer-offline", `git+${pathToFileURL(repo).href}`, "@modelcontextprotocol/sdk@1.32.2"], {
      cwd: app,
      encoding: "utf8",
      stdio: ["ignore", "pipe", "pipe"],
    });
  } catch (err) {
    const e = err as { stdout?: string; stderr?: string };
    assert.fail(`npm install of the git URL failed:\n${e.stdout}\n${e.stderr}`);
  }
  const installed = join(app, "node_modules", "@omcp", "toolfailure");
  assert.equal(manifest(installed).name, "@omcp/toolfailure");
  // Built by prepare and packed, though .gitignore leaves dist/ out; the tests are not.
  for (const [f, want] of [
    ["sdk/typescript/dist/src/index.js", true],
    ["sdk/typescript/dist/cjs/index.d.ts", true],
    ["sdk/typescript/dist/test", false],
    ["sdk/typescript/src", false],
  ] as const) {
    assert.equal(existsSync(join(installed, f)), want, `${f} ${want ? "is missing from" : "is in"} the installed package`);
  }

  const run = (args: string[]) => execFileSync("node", args, { cwd: app, encoding: "utf8", stdio: ["ignore", "pipe", "pipe"] }).trim();
  const probe = (load: string) =>
    `${load}; const r = new m.ToolFailureReporter({ baseUrl: "http://127.0.0.1:9", apiKey: "tfk_x" }); ` +
    `console.log(typeof m.callToolWithPolicy, typeof r.instrument, m.TOOL_FAILURE_KEY, g.ClassifierService.typeName);`;
  const want = "function function io.modelcontextprotocol/toolFailure toolfailure.v1.ClassifierService";
  assert.equal(
    run(["-e", probe(`const m = require("@omcp/toolfailure"); const g = require("@omcp/toolfailure/gen/toolfailure/v1/classifier_service_pb")`)]),
    want,
    "require",
  );
  assert.equal(
    run([
      "--input-type=module",
      "-e",
      probe(`const m = await import("@omcp/toolfailure"); const g = await import("@omcp/toolfailure/gen/toolfailure/v1/classifier_service_pb")`),
    ]),
    want,
    "import",
  );
});
