import type { Hono } from "hono";
import type { HonoEnv } from "../env";

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
 * `app` must use a router that takes routes after it has matched (TrieRouter; Hono's default
 * SmartRouter refuses them). A path no group claims is routed as it is: the app's not-found.
 */
export function mountOnFirstUse(app: Hono<HonoEnv>, groups: readonly RouteGroup[]) {
  const mounting = new Map<RouteGroup, Promise<void>>();
  const mount = (group: RouteGroup) => {
    let mounted = mounting.get(group);
    if (!mounted) {
      mounted = group.load().then((routers) => {
        for (const routes of routers) app.route("/", routes);
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
    const path = app.getPath(request);
    await Promise.all(groups.filter((group) => group.paths.test(path)).map(mount));
    return route(request, env, executionCtx);
  };
  return app;
}
