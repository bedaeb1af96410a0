/**
 * The route manifest (generated/routes.ts): every route the Worker answers, found in the modules that
 * define them, so that a path is written once, in its route file, and the app mounts each module on the
 * first request to it (src/api/mount.ts):
 * - every `openApiRoute` exported by a module of src/routes/ (one file per endpoint), with the method and
 *   path it defines;
 * - the routers of the pages (mounted whole), each by the first segments of its paths: `ALL /console`
 *   and `ALL /console/*` load the console for any path under it.
 * The operations come in the document's order: by path, then method.
 */
import { readdirSync } from "node:fs";
import path from "node:path";
import { pathToFileURL } from "node:url";
import type { Hono } from "hono";
import type { OpenApiRoute } from "../src/api";

const root = path.join(import.meta.dirname, "..");

/** The routers of pages and files, mounted whole: their module and export. */
const ROUTERS = [
  ["src/gateway/index.ts", "gateway"],
  ["src/console/index.ts", "consoleRoutes"],
  ["src/routes/system/reference.ts", "reference"],
] as const;

const METHODS = ["GET", "POST", "PUT", "PATCH", "DELETE"];

const isOperation = (value: unknown): value is OpenApiRoute =>
  typeof value === "object" && value !== null && "definition" in value && "serve" in value && "document" in value;

/** An operation of the API as the manifest lists it. */
export interface ManifestOperation {
  route: OpenApiRoute;
  /** Its module, relative to the root, and the name it exports it under. */
  module: string;
  name: string;
}

/** Every operation of src/routes/, in the document's order (by path, then method). */
export async function operations(): Promise<ManifestOperation[]> {
  const found: ManifestOperation[] = [];
  const files = readdirSync(path.join(root, "src/routes"), { recursive: true, encoding: "utf8" })
    .filter((file) => file.endsWith(".ts"))
    .sort();
  for (const file of files) {
    const module = path.join("src/routes", file);
    const exports = (await import(pathToFileURL(path.join(root, module)).href)) as Record<string, unknown>;
    for (const [name, value] of Object.entries(exports)) {
      if (isOperation(value)) found.push({ route: value, module, name });
    }
  }
  return found.sort(
    (a, b) =>
      (a.route.definition.path < b.route.definition.path
        ? -1
        : a.route.definition.path > b.route.definition.path
          ? 1
          : 0) || METHODS.indexOf(a.route.method) - METHODS.indexOf(b.route.method),
  );
}

/** The import of a module's export, as generated/routes.ts writes it. */
const loader = (module: string, name: string) =>
  `async () => (await import(${JSON.stringify(`../${module.replace(/\.ts$/, "")}`)})).${name}`;

/** generated/routes.ts: every operation, then each router by its paths' first segments. */
export async function routesModule(): Promise<string> {
  const entries = (await operations()).map(
    ({ route, module, name }) =>
      `  { method: ${JSON.stringify(route.method)}, path: ${JSON.stringify(route.path)}, load: ${loader(module, name)} },`,
  );
  for (const [module, name] of ROUTERS) {
    const router = ((await import(pathToFileURL(path.join(root, module)).href)) as Record<string, Hono>)[name]!;
    // A router is mounted whole, so it is listed by the first segments of its paths, each with what is
    // under it: any request under them mounts it, and its own routes answer (or not) as before.
    const prefixes = new Set(router.routes.map(({ path: routed }) => routed.split("/")[1]!));
    for (const prefix of prefixes) {
      for (const routed of [`/${prefix}`, `/${prefix}/*`]) {
        entries.push(`  { method: "ALL", path: ${JSON.stringify(routed)}, load: ${loader(module, name)} },`);
      }
    }
  }
  return [
    "// Written by build/artefacts.ts from the route modules (build/manifest.ts): do not edit.",
    'import type { RouteEntry } from "../src/api/mount";',
    "",
    "/** Every route the Worker answers, each module imported and mounted on the first request to it. */",
    "export const ROUTES: RouteEntry[] = [",
    ...entries,
    "];",
    "",
  ].join("\n");
}
