import { createExecutionContext, waitOnExecutionContext } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { createApp, ROUTE_GROUPS } from "../src/app";
import { BASE } from "./support/api";

const ORDER_SEND = "/financing/v1/applications/:applicationId/order/send";

async function get(app: ReturnType<typeof createApp>, path: string) {
  const ctx = createExecutionContext();
  const res = await app.request(`${BASE}${path}`, {}, env, ctx);
  await waitOnExecutionContext(ctx);
  return res;
}

describe("route groups, loaded on first use", () => {
  it("claim every path of every route of their group", async () => {
    for (const group of ROUTE_GROUPS) {
      const routers = await group.load();
      const paths = routers.flatMap((router) => router.routes.map((r) => r.path));
      expect(paths.length, group.name).toBeGreaterThan(0);
      for (const path of paths) {
        const sample = path.replace(/:\w+/g, "01J000000000000000000000000").replace(/\*$/, "page");
        expect({ group: group.name, path, claimed: group.paths.test(sample) }).toEqual({
          group: group.name,
          path,
          claimed: true,
        });
      }
    }
  });

  it("mount only the group a request needs, once, even for concurrent first requests", async () => {
    const app = createApp();
    expect((await get(app, "/v1/health")).status).toBe(200);
    expect(app.routes.some((r) => r.path === "/v1/health")).toBe(true);
    expect(app.routes.some((r) => r.path === ORDER_SEND)).toBe(false);

    // Without a token: the app's own 401, after the orders group is mounted.
    const answers = await Promise.all([1, 2, 3].map(() => get(app, "/financing/v1/applications/x/order/send")));
    expect(answers.map((res) => res.status)).toEqual([401, 401, 401]);
    // Each handler and validator of the route is one entry: as many as the group's router has, once.
    const orders = await ROUTE_GROUPS.find((group) => group.name === "orders")!.load();
    const once = orders.flatMap((router) => router.routes).filter((r) => r.path === ORDER_SEND).length;
    expect(once).toBeGreaterThan(0);
    expect(app.routes.filter((r) => r.path === ORDER_SEND)).toHaveLength(once);
  });

  it("leave a path no group claims to the app's 404", async () => {
    const res = await get(createApp(), "/nowhere");
    expect(res.status).toBe(404);
    expect(await res.json()).toMatchObject({ error: "not_found" });
  });
});
