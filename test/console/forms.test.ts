import { env } from "cloudflare:workers";
import { Hono } from "hono";
import { describe, expect, it } from "vitest";
import { config } from "../../src/config";
import { onceForForm } from "../../src/console/forms";
import { databaseHandle } from "../../src/db/handle";
import type { HonoEnv } from "../../src/env";
import { partnersOnShard, signIn } from "../support/api";

// An app of its own on `env.DB`: the partners are of shard 0 (the routing: test/db/shards.test.ts).
partnersOnShard(0);

/** A console form's action as the session guard hands it over, whose work is `work`. */
function formAction(partnerId: string, work: () => Promise<string>) {
  return new Hono<HonoEnv>()
    .use(async (c, next) => {
      c.set("config", config(c.env));
      c.set("db", databaseHandle(c.env.DB));
      c.set("session", { partnerId, tokenHash: "test", wireProfile: "DEFAULT", shard: 0 });
      c.set("form", new URLSearchParams(await c.req.text()));
      await next();
    })
    .post("/console/action", (c) => onceForForm(c, async () => c.text(await work())))
    .onError((_error, c) => c.text("failed", 500));
}

const post = (app: Hono<HonoEnv>, body: string) =>
  app.request(
    "/console/action",
    { method: "POST", body, headers: { "Content-Type": "application/x-www-form-urlencoded" } },
    env,
  );

describe("forms done once", () => {
  it("does the work of a token once, and answers the same token again with the first answer", async () => {
    const { partner } = await signIn();
    let runs = 0;
    const app = formAction(partner.id, async () => `run ${++runs}`);
    const body = "once=aaaaaaaaaaaaaaaaaaaaaa&amount=1";
    expect(await (await post(app, body)).text()).toBe("run 1");
    expect(await (await post(app, body)).text()).toBe("run 1");
    expect(runs).toBe(1);
  });

  it("lets a form whose work threw be sent again at once, and does it then", async () => {
    const { partner } = await signIn();
    let runs = 0;
    const app = formAction(partner.id, async () => {
      runs++;
      if (runs === 1) throw new Error("the database went away");
      return `run ${runs}`;
    });
    const body = "once=bbbbbbbbbbbbbbbbbbbbbb&amount=1";
    const failed = await post(app, body);
    expect(failed.status).toBe(500);
    const started = Date.now();
    const retried = await post(app, body);
    expect(retried.status).toBe(200);
    expect(await retried.text()).toBe("run 2");
    // Not after waiting out another request's claim: the failed one left none.
    expect(Date.now() - started).toBeLessThan(5_000);
    const keys = await env.DB.prepare("SELECT response_status AS status FROM idempotency_keys WHERE partner_id = ?")
      .bind(partner.id)
      .all();
    expect(keys.results).toEqual([{ status: 200 }]);
  });
});
