/**
 * The Worker's build: `wrangler dev` and `wrangler deploy` run it (wrangler.toml's [build]) and upload
 * what it writes to dist/worker as it is (`no_bundle`). It is wrangler's own bundling (esbuild, the
 * runtime's target and export conditions) with code splitting: each route group is imported on the
 * first request to its paths (src/http/lazy-routes.ts), so each becomes modules of its own, zod and
 * the routes' schemas among them, and a cold isolate compiles and evaluates only the entry: Hono, the
 * middleware chain and the rate-limit object (125 KB of 1.2 MB). As one bundle the runtime compiles
 * all of it at startup and esbuild declares every module's namespace there (zod's 850 getters), lazy
 * modules included. The tests import the sources (vitest.config.ts) and need no build.
 *
 * `--entry` and `--outdir` build another entry the same way (the benchmark's startup variants).
 */
import { rmSync } from "node:fs";
import path from "node:path";
import { parseArgs } from "node:util";
import { build } from "esbuild";

const root = path.join(import.meta.dirname, "..");
const { values: args } = parseArgs({
  options: { entry: { type: "string", default: "src/index.ts" }, outdir: { type: "string", default: "dist/worker" } },
});
const outdir = path.resolve(root, args.outdir);

rmSync(outdir, { recursive: true, force: true });
await build({
  absWorkingDir: root,
  entryPoints: [args.entry],
  outdir,
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
  // evaluation was a quarter of the entry's startup (4.0 → 3.1 ms, bench/tried.md). Nothing here reads
  // a function's name; esbuild renames only on a clash between modules.
  keepNames: false,
  // Where wrangler.toml's rule finds them (.mjs: ES modules for wrangler and workerd alike).
  chunkNames: "worker-modules/[name]-[hash]",
  outExtension: { ".js": ".mjs" },
  sourcemap: true,
  logLevel: "warning",
});
