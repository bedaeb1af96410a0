import { createExecutionContext, waitOnExecutionContext } from "cloudflare:test";
import { env } from "cloudflare:workers";
import type { Hono } from "hono";
import { TrieRouter } from "hono/router/trie-router";
import { describe, expect, it } from "vitest";
import { createApp, ROUTE_GROUPS } from "../src/app";
import type { HonoEnv } from "../src/env";
import type { LazyOperation } from "../src/http/lazy-routes";
import { BASE } from "./support/api";

const ORDER_SEND = "/financing/v1/applications/:applicationId/order/send";
const ORDER_DELIVER = "/financing/v1/applications/:applicationId/order/deliver";

const sample = (path: string) => path.replace(/:\w+/g, "01J000000000000000000000000").replace(/\*$/, "page");
const isOperation = (entry: Hono<HonoEnv> | LazyOperation): entry is LazyOperation => "load" in entry;
const pathsOf = (entry: Hono<HonoEnv> | LazyOperation) =>
  isOperation(entry) ? [entry.path] : entry.routes.map((r) => r.path);

async function get(app: ReturnType<typeof createApp>, path: string) {
  const ctx = createExecutionContext();
  const res = await app.request(`${BASE}${path}`, {}, env, ctx);
  await waitOnExecutionContext(ctx);
  return res;
}

describe("route groups, loaded on first use", () => {
  it("claim every path of every route of their group", async () => {
    for (const group of ROUTE_GROUPS) {
      const paths = (await group.load()).flatMap(pathsOf);
      expect(paths.length, group.name).toBeGreaterThan(0);
      for (const path of paths) {
        expect({ group: group.name, path, claimed: group.paths.test(sample(path)) }).toEqual({
          group: group.name,
          path,
          claimed: true,
        });
      }
    }
  });

  it("hold operations that never answer the same request, so that the order they are mounted in cannot matter", async () => {
    const operations = (await Promise.all(ROUTE_GROUPS.map((group) => group.load()))).flat().filter(isOperation);
    const router = new TrieRouter<LazyOperation>();
    for (const operation of operations) router.add(operation.method, operation.path, operation);
    for (const operation of operations) {
      const answering = router.match(operation.method, sample(operation.path))[0].map(([match]) => match.path);
      expect(answering).toEqual([operation.path]);
    }
  });

  it("list each operation with the method and path its module defines, so that it is routed before it loads", async () => {
    const operations = (await Promise.all(ROUTE_GROUPS.map((group) => group.load()))).flat().filter(isOperation);
    expect(operations.length).toBeGreaterThan(20);
    for (const listed of operations) {
      const defined = await listed.load();
      expect({ method: defined.method, path: defined.path }).toEqual({ method: listed.method, path: listed.path });
    }
  });

  it("mount only the operation a request needs, once, even for concurrent first requests", async () => {
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
    const orders = (await ROUTE_GROUPS.find((group) => group.name === "orders")!.load()).filter(isOperation);
    const sendRoute = await orders.find((operation) => operation.path === ORDER_SEND)!.load();
    const once = (await sendRoute.serve()).routes.length;
    expect(once).toBeGreaterThan(0);
    expect(app.routes.filter((r) => r.path === ORDER_SEND)).toHaveLength(once);
    // The group's other operations wait for requests of their own; another method builds nothing.
    expect(app.routes.some((r) => r.path === ORDER_DELIVER)).toBe(false);
    expect((await send("GET")).status).toBe(401);
    expect(app.routes.filter((r) => r.path === ORDER_SEND)).toHaveLength(once);
  });

  it("leave a path no group claims to the app's 404", async () => {
    const res = await get(createApp(), "/nowhere");
    expect(res.status).toBe(404);
    expect(await res.json()).toMatchObject({ error: "not_found" });
  });
});
