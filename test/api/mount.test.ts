import { createExecutionContext, waitOnExecutionContext } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { TrieRouter } from "hono/router/trie-router";
import { describe, expect, it } from "vitest";
import { ROUTES } from "../../generated/routes";
import { answers, pathSegments, type RouteEntry } from "../../src/api/mount";
import { createApp } from "../../src/app";
import { BASE } from "../support/api";

const ORDER_SEND = "/financing/v1/applications/:applicationId/order/send";
const ORDER_DELIVER = "/financing/v1/applications/:applicationId/order/deliver";

const sample = (path: string) => path.replace(/:\w+/g, "01J000000000000000000000000").replace(/\*$/, "page");

async function get(app: ReturnType<typeof createApp>, path: string) {
  const ctx = createExecutionContext();
  const res = await app.request(`${BASE}${path}`, {}, env, ctx);
  await waitOnExecutionContext(ctx);
  return res;
}

/** The manifest's operations (not the routes of a page's router), with what their modules define. */
async function operations() {
  const loaded = await Promise.all(ROUTES.map(async (route) => ({ route, module: await route.load() })));
  return loaded.flatMap(({ route, module }) => ("serve" in module ? [{ route, operation: module }] : []));
}

describe("the route manifest, mounted on first use", () => {
  it("lists each operation with the method and path its module defines, so that it is routed before it loads", async () => {
    const listed = await operations();
    expect(listed.length).toBeGreaterThan(20);
    for (const { route, operation } of listed) {
      expect({ method: operation.method, path: operation.path }).toEqual({ method: route.method, path: route.path });
    }
  });

  it("lists each page's router so that every one of its paths mounts it", async () => {
    const routers = new Map<object, RouteEntry[]>();
    for (const route of ROUTES) {
      const module = await route.load();
      if ("serve" in module) continue;
      routers.set(module, [...(routers.get(module) ?? []), route]);
    }
    expect(routers.size).toBe(3);
    for (const [router, listed] of routers) {
      const routes = (router as { routes: { method: string; path: string }[] }).routes;
      expect(routes.length).toBeGreaterThan(0);
      for (const { method, path } of routes) {
        const request = method === "ALL" ? "GET" : method;
        const mounting = listed.filter((entry) => answers(entry, request, pathSegments(sample(path))));
        if (mounting.length === 0) expect.fail(`${method} ${path} mounts no entry of its router`);
      }
    }
  });

  it("holds operations that never answer the same request, so that the order they are mounted in cannot matter", async () => {
    const listed = await operations();
    const router = new TrieRouter<RouteEntry>();
    for (const { route } of listed) router.add(route.method, route.path, route);
    for (const { route } of listed) {
      const answering = router.match(route.method, sample(route.path))[0].map(([match]) => match.path);
      expect(answering).toEqual([route.path]);
    }
  });

  it("mounts only the operation a request needs, once, even for concurrent first requests", async () => {
    const app = createApp();
    expect((await get(app, "/v1/health")).status).toBe(200);
    expect(app.routes.some((r) => r.path === "/v1/health")).toBe(true);
    expect(app.routes.some((r) => r.path === ORDER_SEND)).toBe(false);

    // Without a token: the app's own 401, after the send operation is mounted.
    const send = (method: string) =>
      app.request(`${BASE}/financing/v1/applications/x/order/send`, { method }, env, createExecutionContext());
    const answers = await Promise.all(["PUT", "PUT", "PUT"].map(send));
    expect(answers.map((res) => res.status)).toEqual([401, 401, 401]);
    // Each handler and validator of the operation is one entry: as many as its own router has, once.
    const sendRoute = await ROUTES.find((route) => route.method === "PUT" && route.path === ORDER_SEND)!.load();
    const once = ("serve" in sendRoute ? await sendRoute.serve() : sendRoute).routes.length;
    expect(once).toBeGreaterThan(0);
    expect(app.routes.filter((r) => r.path === ORDER_SEND)).toHaveLength(once);
    // The other operations wait for requests of their own; another method builds nothing.
    expect(app.routes.some((r) => r.path === ORDER_DELIVER)).toBe(false);
    expect((await send("GET")).status).toBe(401);
    expect(app.routes.filter((r) => r.path === ORDER_SEND)).toHaveLength(once);
  });

  it("mounts a page's router whole, once, whichever of its paths comes first", async () => {
    const app = createApp();
    expect((await get(app, "/console/sign-in")).status).toBe(200);
    const mounted = app.routes.length;
    expect(app.routes.some((r) => r.path === "/console/applications")).toBe(true);
    expect((await get(app, "/console/applications")).status).toBe(303);
    expect(app.routes.length).toBe(mounted);
  });

  it("finds the routes a request falls under exactly as Hono's router does, for every route and path near one", async () => {
    // Each route's own path with every parameter filled (the pages' routes too), and the ways a path can just miss one.
    const pages = await Promise.all(ROUTES.map((route) => route.load()));
    const routed = pages.flatMap((module) => ("serve" in module ? [] : module.routes.map((r) => r.path)));
    const filled = [...ROUTES.map((route) => route.path), ...routed].map(sample);
    const paths = [
      ...filled,
      ...filled.map((path) => `${path}/`),
      ...filled.map((path) => `${path}/extra`),
      ...filled.map((path) => path.slice(0, path.lastIndexOf("/"))),
      ...filled.map((path) => path.replace(/01J0+/, "")),
      "/",
      "",
    ];
    let compared = 0;
    for (const route of ROUTES) {
      const hono = new TrieRouter<RouteEntry>();
      hono.add(route.method, route.path, route);
      for (const method of ["GET", "POST", "PUT", "DELETE"]) {
        for (const path of paths) {
          const matched = hono.match(method, path)[0].length > 0;
          if (answers(route, method, pathSegments(path)) !== matched) {
            expect.fail(`${route.method} ${route.path} for ${method} ${path}: Hono ${matched}`);
          }
          compared++;
        }
      }
    }
    expect(compared).toBeGreaterThan(50_000);
  });

  it("leaves a path no route answers to the app's 404", async () => {
    const res = await get(createApp(), "/nowhere");
    expect(res.status).toBe(404);
    expect(await res.json()).toMatchObject({ error: "not_found" });
  });
});
