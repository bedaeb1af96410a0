import { randomBytes } from "node:crypto";
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import path from "node:path";
import { cloudflareTest, readD1Migrations } from "@cloudflare/vitest-pool-workers";
import { defineConfig } from "vitest/config";
import { fixVitestPoolWorkers } from "./scripts/fix-vitest-pool-workers.ts";

fixVitestPoolWorkers();

const migrations = await readD1Migrations(path.join(import.meta.dirname, "migrations"));

/** An import or re-export with `from`, a dynamic import, or an import for its effect alone. */
const IMPORT = /^\s*(?:import|export)\b[^;]*?\bfrom\s+"([^"]+)"|\bimport\(\s*"([^"]+)"\s*\)|^\s*import\s+"([^"]+)"/gm;

/** The modules a source file imports (without `withTypes`, not those it imports types from alone). */
function importsOf(file: string, withTypes = false): string[] {
  return [...readFileSync(file, "utf8").matchAll(IMPORT)]
    .filter(([statement]) => withTypes || !/^\s*(?:import|export)\s+type\b/.test(statement))
    .map(([, from, dynamic, effect]) => (from ?? dynamic ?? effect)!);
}

/** The file a relative import names (`./x` is x.ts, x.tsx or x/index.ts), if it is one of ours. */
function resolveImport(from: string, name: string): string | undefined {
  const base = path.join(path.dirname(from), name.replace(/\?raw$/, ""));
  return [base, `${base}.ts`, `${base}.tsx`, path.join(base, "index.ts")].find(
    (candidate) => existsSync(candidate) && statSync(candidate).isFile(),
  );
}

/** Whether a module's imports, followed through this repository's own modules, reach no `cloudflare:*` module. */
function runsInNode(file: string, seen = new Set<string>()): boolean {
  if (seen.has(file) || !/\.tsx?$/.test(file)) return true;
  seen.add(file);
  return importsOf(file).every((name) => {
    if (name.startsWith("cloudflare:")) return false;
    const module = name.startsWith(".") ? resolveImport(file, name) : undefined;
    return module === undefined || runsInNode(module, seen);
  });
}

const TEST_FILES = readdirSync("test", { recursive: true, encoding: "utf8" })
  .filter((file) => file.endsWith(".test.ts") && !file.startsWith("e2e/"))
  .map((file) => path.join("test", file));

/**
 * Two projects, and the imports decide which one runs a test file:
 * - "node" (plain Node, milliseconds a file): a test whose imports, followed through src/ and
 *   test/support/, reach no `cloudflare:*` module. The domain and other pure rules, tested with plain
 *   values.
 * - "workers" (workerd, one runtime per vitest worker, an empty database per file): every other test,
 *   that is whatever needs a binding, SELF, the Worker's entry point or the runtime's own behaviour
 *   (import from `cloudflare:*` to be run there).
 * So a new pure test never waits for a runtime, and a pure helper that starts to use a binding takes
 * its tests to workerd with it.
 */
const NODE_TESTS = TEST_FILES.filter((file) => runsInNode(file));

/**
 * Every package (and subpath) that src/ and the workerd tests import, for vitest to bundle once per run with
 * esbuild, as wrangler's build does, instead of each workerd loading zod, hono and Drizzle module by
 * module. Read from the imports themselves, so that the list cannot fall behind the code: a subpath
 * left out would load beside the bundle as a second copy of its package's modules.
 */
function importedPackages(): string[] {
  const found = new Set(["hono/jsx/jsx-runtime"]); // what tsconfig's jsxImportSource imports unwritten
  for (const dir of ["src", "test"]) {
    for (const file of readdirSync(dir, { recursive: true, encoding: "utf8" })) {
      // A Node test's own imports (esbuild, to run compiled code) never reach workerd.
      if (!/\.tsx?$/.test(file) || file.startsWith("e2e/") || NODE_TESTS.includes(path.join(dir, file))) continue;
      for (const name of importsOf(path.join(dir, file), true)) {
        if (!/^(\.|cloudflare:|node:)|^vitest(\/|$)/.test(name)) found.add(name);
      }
    }
  }
  return [...found].sort();
}

// Property tests run on a fixed seed unless one is asked for (test/support/property-seed.ts).
const provide = { propertySeed: process.env.PROPERTY_SEED ?? "" };

export default defineConfig({
  test: {
    // vitest's default is one file at a time on two cores (cores - 1). A workerd test waits on I/O
    // (D1, Durable Objects) often enough for a second file's tests to use the time.
    maxWorkers: 2,
    // Two files run at once on a shared 2-core machine: a CPU-heavy test (2,000 property runs) can pass
    // vitest's 5 s default there. A hang is still caught.
    testTimeout: 30_000,
    // Request logs are asserted where they matter; elsewhere they only bury the report.
    onConsoleLog: (log) => !log.startsWith('{"level":"info"'),
    // Each project extends this root config: its test options above apply to both.
    projects: [
      {
        extends: true,
        test: {
          name: "node",
          environment: "node",
          include: NODE_TESTS,
          setupFiles: ["./test/support/property-seed.ts"],
          provide,
        },
      },
      {
        extends: true,
        plugins: [
          cloudflareTest({
            wrangler: { configPath: "./wrangler.toml" },
            // The sources, not wrangler.toml's build (dist/worker): the tests need no build step.
            main: "./src/index.ts",
            miniflare: {
              bindings: {
                // A fresh pepper per run: no secret is written down, and no test can depend on a fixed one.
                AUTH_PEPPER: randomBytes(32).toString("hex"),
                REQUIRE_HTTPS: "false",
                // High enough never to interfere; rate-limit tests override the quota per request.
                RATE_LIMIT_REQUESTS: "1000000",
                // The tests run as a sandbox (the e-mail scenarios, advance-time), as `npm start` does; the
                // tests of production's defaults turn it off per request.
                SANDBOX: "true",
                TEST_MIGRATIONS: migrations as never,
              },
              // Notifications go to a queue nobody consumes: the tests hand each message to the consumer
              // themselves (test/support/notifications.ts), so no background delivery races a test that
              // checks what its own batch did to an event.
              queueProducers: { NOTIFICATIONS: { queueName: "financing-notifications-unconsumed" } },
              // Partner endpoints are the one outside world: nothing leaves the test run. Tests that care
              // about what is sent replace `fetch` with a stub of their own.
              outboundService: () => new Response(null, { status: 204 }),
            },
          }),
        ],
        test: {
          name: "workers",
          deps: { optimizer: { ssr: { enabled: true, include: importedPackages() } } },
          include: ["test/**/*.test.ts"],
          exclude: ["test/e2e/**", ...NODE_TESTS],
          // One runtime for all the files a vitest worker runs, not one per file: starting workerd and
          // loading the Worker into it cost more than most files' tests. Each file still starts with an
          // empty database and ends with its timers and spies undone (test/support/fresh-runtime.ts).
          isolate: false,
          globalSetup: ["./test/support/openapi-document.ts"],
          setupFiles: ["./test/support/fresh-runtime.ts", "./test/support/property-seed.ts"],
          provide,
        },
      },
    ],
  },
});
