import type { Hono } from "hono";
import type { Result, Router } from "hono/router";
import { RegExpRouter } from "hono/router/reg-exp-router";
import { SmartRouter } from "hono/router/smart-router";
import { TrieRouter } from "hono/router/trie-router";
import type { HonoEnv } from "../env";
import type { OpenApiRoute } from "./openapi";

/**
 * Hono's default router (a SmartRouter: RegExpRouter, TrieRouter where it cannot), made again when
 * routes are added after it has matched, which the default refuses. Adding only records the route, as
 * the default does: routing is built on the first match (not at startup) and rebuilt once after each
 * group is mounted.
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
 * An operation as its group lists it: the method and path it answers (as its `OpenApiRoute` has them,
 * test/app.groups.test.ts holds the two equal) and its module, imported on the first request to it. A
 * group's operations are modules of their own, so a cold GET does not evaluate create's write path.
 */
export interface LazyOperation {
  method: string;
  path: string;
  load: () => Promise<OpenApiRoute>;
}

export const operation = (method: string, path: string, load: () => Promise<OpenApiRoute>): LazyOperation => ({
  method,
  path,
  load,
});

/** Routes that answer one part of the API's paths, loaded together. */
export interface RouteGroup {
  name: string;
  /** Matches every path (as the app's router sees it) that one of the group's routes may answer. */
  paths: RegExp;
  /** Routers, mounted whole when the group loads, and operations, each loaded and mounted on its first request. */
  load: () => Promise<readonly (Hono<HonoEnv> | LazyOperation)[]>;
}

/**
 * Mounts each group on `app` on the first request to one of its paths, and each operation of the group
 * on the first request it answers, before the app routes that request: importing an operation's module
 * and building its router (its zod schemas and validators) is most of what the Worker's startup would
 * cost, so a cold isolate evaluates only the middleware chain, and a request pays for its own operation
 * once. The request then runs through `app` itself, in one Hono context, as if everything had been
 * mounted at startup: middleware variables, errors and not-found are the app's.
 *
 * `app` must use a router that takes routes after it has matched (ExtensibleRouter; Hono's default
 * refuses them). A path no group claims is routed as it is: the app's not-found.
 */
export function mountOnFirstUse(app: Hono<HonoEnv>, groups: readonly RouteGroup[]) {
  const loading = new Map<RouteGroup, Promise<void>>();
  // Groups not yet loaded, and loaded operations not yet mounted: once both are empty, a request costs
  // nothing here (the hot path).
  const unloaded = new Set(groups);
  const operations = new TrieRouter<LazyOperation>();
  const unmounted = new Set<LazyOperation>();
  const load = (group: RouteGroup) => {
    let loaded = loading.get(group);
    if (!loaded) {
      loaded = group.load().then((entries) => {
        for (const entry of entries) {
          if (isOperation(entry)) {
            operations.add(entry.method, entry.path, entry);
            unmounted.add(entry);
          } else app.route("/", entry);
        }
        unloaded.delete(group);
      });
      // A failed load is tried again by the next request rather than remembered.
      loaded.catch(() => loading.delete(group));
      loading.set(group, loaded);
    }
    return loaded;
  };
  const mount = async (method: string, path: string) => {
    // Hono answers HEAD with the GET route.
    for (const [operation] of operations.match(method === "HEAD" ? "GET" : method, path)[0]) {
      if (!unmounted.has(operation)) continue;
      const served = await (await operation.load()).serve();
      // A concurrent first request may have mounted it while its module loaded. Forgotten only once
      // mounted: an operation that failed to load or build is tried again by its next request.
      if (!unmounted.has(operation)) continue;
      app.route("/", served);
      unmounted.delete(operation);
    }
  };
  const route = app.fetch;
  // `app.request` (the tests) goes through `app.fetch` too.
  app.fetch = async (request, env, executionCtx) => {
    if (unloaded.size > 0 || unmounted.size > 0) {
      const path = app.getPath(request);
      await Promise.all([...unloaded].filter((group) => group.paths.test(path)).map(load));
      if (unmounted.size > 0) await mount(request.method, path);
    }
    return route(request, env, executionCtx);
  };
  return app;
}

const isOperation = (entry: Hono<HonoEnv> | LazyOperation): entry is LazyOperation => "load" in entry;
