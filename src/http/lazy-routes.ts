import type { Hono } from "hono";
import type { Result, Router } from "hono/router";
import { RegExpRouter } from "hono/router/reg-exp-router";
import { SmartRouter } from "hono/router/smart-router";
import { TrieRouter } from "hono/router/trie-router";
import type { HonoEnv } from "../env";

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

/** Routers that answer one part of the API's paths, loaded together. */
export interface RouteGroup {
  name: string;
  /** Matches every path (as the app's router sees it) that one of the group's routes may answer. */
  paths: RegExp;
  load: () => Promise<readonly Hono<HonoEnv>[]>;
}

/**
 * Mounts each group on `app` on the first request to one of its paths, before the app routes that
 * request: building a group's routes (zod schemas, OpenAPI metadata, validators) is most of what the
 * Worker's startup would cost, so a cold isolate evaluates only the middleware chain, and a request
 * pays for its own group once. The request then runs through `app` itself, in one Hono context, as
 * if the group had been mounted at startup: middleware variables, errors and not-found are the app's.
 *
 * `app` must use a router that takes routes after it has matched (ExtensibleRouter; Hono's default
 * refuses them). A path no group claims is routed as it is: the app's not-found.
 */
export function mountOnFirstUse(app: Hono<HonoEnv>, groups: readonly RouteGroup[]) {
  const mounting = new Map<RouteGroup, Promise<void>>();
  // Groups not yet mounted: once it is empty, a request costs nothing here (the hot path).
  const unmounted = new Set(groups);
  const mount = (group: RouteGroup) => {
    let mounted = mounting.get(group);
    if (!mounted) {
      mounted = group.load().then((routers) => {
        for (const routes of routers) app.route("/", routes);
        unmounted.delete(group);
      });
      // A failed load is tried again by the next request rather than remembered.
      mounted.catch(() => mounting.delete(group));
      mounting.set(group, mounted);
    }
    return mounted;
  };
  const route = app.fetch;
  // `app.request` (the tests) goes through `app.fetch` too.
  app.fetch = async (request, env, executionCtx) => {
    if (unmounted.size > 0) {
      const path = app.getPath(request);
      await Promise.all([...unmounted].filter((group) => group.paths.test(path)).map(mount));
    }
    return route(request, env, executionCtx);
  };
  return app;
}
