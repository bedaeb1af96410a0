import type { Hono } from "hono";
import type { Result, Router } from "hono/router";
import { RegExpRouter } from "hono/router/reg-exp-router";
import { SmartRouter } from "hono/router/smart-router";
import { TrieRouter } from "hono/router/trie-router";
import type { HonoEnv } from "../env";
import type { OpenApiRoute } from "./route";

/**
 * Hono's default router (a SmartRouter: RegExpRouter, TrieRouter where it cannot), made again when
 * routes are added after it has matched, which the default refuses. Adding only records the route, as
 * the default does: routing is built on the first match (not at startup) and rebuilt once after each
 * module is mounted.
 */
export class ExtensibleRouter<T> implements Router<T> {
  name = "ExtensibleRouter";
  #routes: [method: string, path: string, handler: T][] = [];
  #router: Router<T> | undefined;

  add(method: string, path: string, handler: T) {
    this.#routes.push([method, path, handler]);
    this.#router = undefined;
  }

  match(method: string, path: string): Result<T> {
    if (!this.#router) {
      this.#router = new SmartRouter<T>({ routers: [new RegExpRouter(), new TrieRouter()] });
      for (const [method, path, handler] of this.#routes) this.#router.add(method, path, handler);
    }
    return this.#router.match(method, path);
  }
}

/**
 * A route of the Worker as the build's manifest lists it (generated/routes.ts, build/manifest.ts): the
 * method and path it answers, as its module defines them, and how to import that module's operation
 * (an `openApiRoute`) or router (the gateway, the console, the reference), on the first request to it.
 */
export interface RouteEntry {
  method: string;
  path: string;
  load: () => Promise<OpenApiRoute | Hono<HonoEnv>>;
}

const isOperation = (loaded: OpenApiRoute | Hono<HonoEnv>): loaded is OpenApiRoute => "serve" in loaded;

/**
 * A segment of a manifest path: a literal, a parameter (any one non-empty segment), or the rest (`*`).
 * The manifest's paths have no parameter patterns (`:action{[a-z]+}`): an operation's parameters are
 * plain, and a page's router is listed by its first segments (build/manifest.ts).
 */
type Segment = string | { parameter: true };

/** A manifest path's segments, as Hono splits them. */
const segmentsOf = (path: string): Segment[] =>
  path
    .split("/")
    .slice(1)
    .map((part) => (part.startsWith(":") ? { parameter: true } : part));

/** Whether a request's path segments fall under a route's: `*` takes the rest (none included), as Hono's. */
function under(route: Segment[], path: readonly string[]): boolean {
  for (const [index, segment] of route.entries()) {
    if (segment === "*") return true;
    const part = path[index];
    if (typeof segment === "string" ? part !== segment : !part) return false;
  }
  return path.length === route.length;
}

const segments = new WeakMap<RouteEntry, Segment[]>();

/** A request path's segments, as `answers` takes them. */
export const pathSegments = (path: string): string[] => path.split("/").slice(1);

/** Whether a route answers a request (its method, its path's segments), as Hono's router would match it. */
export function answers(entry: RouteEntry, method: string, path: readonly string[]): boolean {
  if (entry.method !== "ALL" && entry.method !== method) return false;
  let route = segments.get(entry);
  if (!route) {
    route = segmentsOf(entry.path);
    segments.set(entry, route);
  }
  return under(route, path);
}

/**
 * Mounts on `app` each route's module on the first request it answers, before the app routes that
 * request: importing a module and building its router (its zod schemas, or compiled validators) is most
 * of what the Worker's startup would cost, so a cold isolate evaluates only the middleware chain and the
 * manifest, and a request pays for its own operation once. The request then runs through `app` itself,
 * in one Hono context, as if everything had been mounted at startup: middleware variables, errors and
 * not-found are the app's. A router is mounted whole, once, whichever of its paths came first.
 *
 * The manifest is not made into a router: inserting its routes into one was a third of the startup
 * (bench/tried.md), and a request compares its segments with the routes not mounted yet, about a
 * microsecond for all of them; each route's segments are read on the first request that compares them.
 *
 * `app` must use a router that takes routes after it has matched (ExtensibleRouter; Hono's default
 * refuses them). A path no route answers is routed as it is: the app's not-found.
 */
export function mountOnFirstUse(app: Hono<HonoEnv>, routes: readonly RouteEntry[]) {
  // Routes whose module is not mounted yet: once it is empty, a request costs nothing here (the hot path).
  const pending = new Set(routes);
  const mounting = new WeakMap<object, Promise<void>>();
  const mount = async (route: RouteEntry) => {
    const loaded = await route.load();
    let mounted = mounting.get(loaded);
    if (!mounted) {
      mounted = (async () => {
        app.route("/", isOperation(loaded) ? await loaded.serve() : loaded);
      })();
      mounting.set(loaded, mounted);
      // A module that failed to build is tried again by its next request rather than remembered.
      mounted.catch(() => mounting.delete(loaded));
    }
    await mounted;
    pending.delete(route);
  };
  const route = app.fetch;
  // `app.request` (the tests) goes through `app.fetch` too.
  app.fetch = async (request, env, executionCtx) => {
    if (pending.size > 0) {
      // Hono answers HEAD with the GET route.
      const method = request.method === "HEAD" ? "GET" : request.method;
      const path = pathSegments(app.getPath(request));
      await Promise.all([...pending].filter((entry) => answers(entry, method, path)).map(mount));
    }
    return route(request, env, executionCtx);
  };
  return app;
}
