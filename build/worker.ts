/**
 * The Worker's build: `wrangler dev` and `wrangler deploy` run it (wrangler.toml's [build]) and upload
 * what it writes as it is (`no_bundle`). It is wrangler's own bundling (esbuild, the runtime's target
 * and export conditions) with code splitting: each route's module is imported on the first request to
 * it (the manifest, generated/routes.ts, mounted by src/api/mount.ts), so each becomes modules of its
 * own, zod and the routes' schemas among them, and a cold isolate compiles and evaluates only the entry:
 * Hono, the middleware chain and the manifest, a small part of the build (the Durable Objects' code
 * loads with each object's first event); the build fails if that start would load more
 * (`NOT_AT_STARTUP`). As one bundle the runtime compiles all of it at startup and esbuild declares every
 * module's namespace there (zod's among them), lazy modules included (bench/tried.md). The tests
 * import the sources (vitest.config.ts) and need no build.
 *
 * Where: `--outdir`, else WORKER_BUILD_DIR (each `npm start` builds into a folder of its own, see
 * scripts/start.ts), else dist/worker, wrangler.toml's `main`. A folder is replaced whole, in one
 * rename, by a build written beside it, so a server or an upload reading it never sees half a build.
 *
 * Once: a folder built from the very same inputs (every file of src/ and of this build wing, the
 * generators among them, and the locked dependencies) is left as it is. `wrangler dev` 4.86 runs the
 * build twice when it starts (once to find the entry, again when its watcher of src/ is ready, logging
 * "The file src changed" although nothing did: workers-sdk#7934), so the second run costs a hash of the
 * inputs instead of a build. Any other change rebuilds, and writes the artefacts again first
 * (./artefacts.ts: the statements, the request validators, the document), so a build never ships
 * artefacts older than their sources or their generators.
 *
 * The Worker never imports this wing: the build refuses a bundle holding a module of build/.
 *
 * `--entry` builds another entry the same way (the benchmark's startup variants).
 */
import { createHash } from "node:crypto";
import { existsSync, readdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from "node:fs";
import path from "node:path";
import { pathToFileURL } from "node:url";
import { parseArgs } from "node:util";
import { build, type Metafile } from "esbuild";
import { writeArtefacts } from "./artefacts";

const root = path.join(import.meta.dirname, "..");
/** What the folder was built from: the entry, and a hash of every input's content. */
const STAMP = ".build-inputs.json";

/** The folders and files a build is made from: the sources, this wing (its generators), the locked dependencies. */
const INPUTS = ["src", "build", "package-lock.json"];

/**
 * A hash of everything a build of `entry` is made from, under `base`: every file of INPUTS, by path and
 * content. Any change to a source, a generator or a dependency's version changes it.
 */
export function inputsFingerprint(base: string, entry: string): string {
  const files: string[] = [];
  for (const input of INPUTS) {
    const full = path.join(base, input);
    if (!existsSync(full)) continue;
    if (!statSync(full).isDirectory()) files.push(input);
    else {
      for (const found of readdirSync(full, { withFileTypes: true, recursive: true })) {
        if (found.isFile()) files.push(path.relative(base, path.join(found.parentPath, found.name)));
      }
    }
  }
  const hash = createHash("sha256").update(entry);
  for (const file of files.sort()) hash.update(`\0${file}\0`).update(readFileSync(path.join(base, file)));
  return hash.digest("hex");
}

/** Whether the folder holds a build of `entry` from inputs whose fingerprint is `fingerprint`. */
export function upToDate(folder: string, entry: string, fingerprint: string): boolean {
  const stamp = path.join(folder, STAMP);
  if (!existsSync(stamp)) return false;
  const built = JSON.parse(readFileSync(stamp, "utf8")) as { entry?: string; fingerprint?: string };
  return built.entry === entry && built.fingerprint === fingerprint;
}

/**
 * What the Worker's start must not load: the route modules and what only they need (zod, Drizzle, the
 * schema), loaded by the first request to their paths, and the runtime's Node modules (the D1 session's
 * `node:async_hooks` comes with the first request that uses the database). Each was measured at startup
 * (bench/tried.md); an import added to the middleware chain would bring it back unseen.
 */
const NOT_AT_STARTUP = [
  /^node_modules\/(zod|drizzle-orm|@hono\/zod-openapi|@hono\/zod-validator)\//,
  /^src\/(routes|db|collections|domain|gateway|console|notifications)\//,
  // The Durable Objects' code: each object loads it with its first event (src/lazy-object.ts).
  /^src\/(mailbox|rate-limit)\/durable-object\.ts$/,
  /^node:/,
];

/** Drizzle and the schema's tables: a read by id does without them (src/db/precompiled.ts). */
const DRIZZLE = [/^node_modules\/drizzle-orm\//, /^src\/db\/(schema|client|applications)\.ts$/];

/** zod and what extends it: a request validated by compiled validators does without them (src/lazy-schema.ts). */
const ZOD = [/^node_modules\/(zod|@hono\/zod-openapi|@hono\/zod-validator|@asteasolutions\/zod-to-openapi)\//];

/**
 * Every module of src/routes imported on demand: an operation's, on its first request (its group lists
 * it), or a group's. None loads zod: every route's request is checked by validators compiled from its
 * zod schemas (generated/validators.ts, build/request-compiler.ts), and zod comes only with a request
 * they are not sure of (a refusal, to word it; a list's filter).
 */
const ROUTE_MODULE = /^src\/routes\/[^/]+\/[^/]+\.ts$/;

/**
 * What else a first request must not load, by the module imported on demand for it: Drizzle and the
 * schema, for the cold rows of bench/startup.ts and the operations beside them. The gateway page, the
 * first request of many a cold isolate, reads through the statements built ahead of time and renders
 * without zod; Drizzle, the schema and the write path come with the first submit (src/gateway/answer.ts).
 * A GET of an application reads the same way; the notifications log too, for a page in its own order (a
 * sorted or filtered one loads the collection's keyset query). A create and the item operations write
 * through src/db/writes.ts, the SQL Drizzle would write bound without it (bench/tried.md).
 */
const NOT_ON_COLD_PATH: Record<string, RegExp[]> = {
  // Every route's first request imports the compiled validators (and the rules they call).
  "generated/validators.ts": [...ZOD, ...DRIZZLE],
  "src/gateway/index.ts": [...ZOD, ...DRIZZLE],
  "src/routes/applications/get.ts": DRIZZLE,
  "src/routes/applications/create.ts": DRIZZLE,
  "src/routes/notifications/delivery-log.ts": DRIZZLE,
  "src/routes/orders/send.ts": DRIZZLE,
  "src/routes/orders/deliver.ts": DRIZZLE,
  "src/routes/orders/cancel-items.ts": DRIZZLE,
};

/** Every input and runtime module an entry (or a module imported on demand) loads before it runs: its static imports, transitively. */
function loadedAtStartup(metafile: Metafile, entry: string): string[] {
  const outputs = metafile.outputs;
  const main = Object.keys(outputs).find((file) => outputs[file]?.entryPoint === entry);
  if (!main) throw new Error(`no output for ${entry}`);
  const loaded = new Set<string>();
  const modules = new Set<string>();
  const pending = [main];
  for (let file = pending.pop(); file !== undefined; file = pending.pop()) {
    if (modules.has(file)) continue;
    modules.add(file);
    for (const input of Object.keys(outputs[file]?.inputs ?? {})) loaded.add(input);
    for (const { path: imported, kind, external } of outputs[file]?.imports ?? []) {
      if (kind !== "import-statement") continue;
      if (external) loaded.add(imported);
      else pending.push(imported);
    }
  }
  return [...loaded];
}

async function main() {
  const { values: args } = parseArgs({
    options: { entry: { type: "string", default: "src/index.ts" }, outdir: { type: "string" } },
  });
  const outdir = path.resolve(root, args.outdir ?? process.env.WORKER_BUILD_DIR ?? "dist/worker");
  const shown = path.relative(root, outdir);
  const fingerprint = inputsFingerprint(root, args.entry);
  if (upToDate(outdir, args.entry, fingerprint)) {
    console.log(`${shown}: up to date (its inputs are unchanged since it was built), not rebuilt`);
    return;
  }

  const started = performance.now();
  // The statements the cold reads run, the compiled request validators and what `GET /openapi.json` serves,
  // from the code being built: the Worker runs those reads without Drizzle, validates those requests
  // without zod and never builds the document.
  await writeArtefacts();
  // Written beside the folder, then swapped in: the same depth, so the source maps' paths hold.
  const next = `${outdir}.next-${process.pid}`;
  rmSync(next, { recursive: true, force: true });
  const { metafile } = await build({
    absWorkingDir: root,
    entryPoints: [args.entry],
    outdir: next,
    bundle: true,
    splitting: true,
    format: "esm",
    // As wrangler bundles (its COMMON_ESBUILD_OPTIONS and defaults): the runtime's V8 and its export
    // conditions; the runtime's modules stay imports.
    target: "es2024",
    platform: "browser",
    conditions: ["workerd", "worker", "browser"],
    external: ["cloudflare:*", "node:*"],
    // Unlike wrangler's default (its `keep_names`): a `__name()` call per function and class at module
    // evaluation was a large share of the entry's startup (bench/tried.md). Nothing here reads
    // a function's name; esbuild renames only on a clash between modules.
    keepNames: false,
    // Where wrangler.toml's rule finds them (.mjs: ES modules for wrangler and workerd alike).
    chunkNames: "worker-modules/[name]-[hash]",
    outExtension: { ".js": ".mjs" },
    sourcemap: true,
    logLevel: "warning",
    metafile: true,
  });

  /** What `entry` loads that `forbidden` names: a package once, by its name. */
  const misplacedIn = (entry: string, forbidden: RegExp[]) =>
    new Set(
      loadedAtStartup(metafile, entry)
        .filter((input) => forbidden.some((p) => p.test(input)))
        .map((input) => input.replace(/^(node_modules\/(@[^/]+\/)?[^/]+)\/.*$/, "$1")),
    );
  const refuse = (message: string) => {
    console.error(message);
    rmSync(next, { recursive: true, force: true });
    process.exit(1);
  };

  // Other entries (the benchmark's startup variants) load more at their start on purpose.
  if (args.entry === "src/index.ts") {
    const misplaced = misplacedIn(args.entry, NOT_AT_STARTUP);
    if (misplaced.size > 0) {
      refuse(
        `The Worker's start would load ${[...misplaced].join(", ")}. Import it where it is first used ` +
          "(await import(), as the manifest loads the route modules), not from the entry or the middleware chain.",
      );
    }
    const routeModules = Object.values(metafile.outputs).flatMap((output) =>
      output.entryPoint && ROUTE_MODULE.test(output.entryPoint) ? [output.entryPoint] : [],
    );
    const notOnColdPath = [
      ...routeModules.map((module): [string, RegExp[]] => [module, ZOD]),
      ...Object.entries(NOT_ON_COLD_PATH),
    ];
    for (const [module, forbidden] of notOnColdPath) {
      const misplaced = misplacedIn(module, forbidden);
      if (misplaced.size > 0) {
        refuse(
          `The first request to ${module} would load ${[...misplaced].join(", ")}. Import it where it is first ` +
            "used (await import(), as src/gateway/submit.ts loads the write path), read through src/db/precompiled.ts, " +
            "or take zod's z from src/lazy-schema.ts.",
        );
      }
    }
  }

  // The wing is for Node and the build: a Worker that bundled a module of it would run build code.
  const fromTheWing = Object.keys(metafile.inputs).filter((input) => input.startsWith("build/"));
  if (fromTheWing.length > 0) {
    refuse(`The Worker imports the build wing (${fromTheWing.join(", ")}): the Worker runs only src/ and generated/.`);
  }

  writeFileSync(path.join(next, STAMP), `${JSON.stringify({ entry: args.entry, fingerprint })}\n`);
  // Another build of the same folder may swap in between: move whatever is there aside, until ours lands.
  for (let attempt = 0; ; attempt++) {
    const previous = `${outdir}.old-${process.pid}-${attempt}`;
    if (existsSync(outdir)) renameSync(outdir, previous);
    try {
      renameSync(next, outdir);
      break;
    } catch (error) {
      if (attempt >= 5) throw error;
    } finally {
      rmSync(previous, { recursive: true, force: true });
    }
  }
  console.log(`${shown}: built in ${Math.round(performance.now() - started)} ms`);
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) await main();
