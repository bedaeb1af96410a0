/**
 * Two partners on two shards (src/db/shards.ts): whatever one of them does, through every surface,
 * reaches its own shard alone. The binding counter (COUNT_BINDINGS, src/http/binding-counters.ts) names
 * the shards each request sent statements to; the queue's consumer gets bindings that record the same.
 * Logging in, signing in and revoking a token read or write the directory, which is shard 0.
 */
import { createExecutionContext, createMessageBatch, getQueueResult } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { describe, expect, it, vi } from "vitest";
import { everyShard } from "../../src/db/shards";
import worker from "../../src/index";
import { NOTIFICATION_QUEUE, type NotificationMessage } from "../../src/notifications/message";
import { call, createPartner, json, type TestPartner } from "../support/api";
import { ConsoleBrowser } from "../support/console";
import { createApplication } from "../support/factories";
import { browse, hiddenFields } from "../support/gateway";
import { attempts, firstEvent, settled } from "../support/notifications";
import { app, oneItemOrder } from "../support/orders";
import { dbOf } from "../support/shards";

const COUNTED = { COUNT_BINDINGS: "true" };

const newOrder = oneItemOrder(150000, 26033);

/** The partner's day through every surface: each step's status and the shards its request touched. */
async function day(partner: TestPartner) {
  const steps: { step: string; status: number; shards: string | null }[] = [];
  const step = <T extends { status: number; headers: Headers }>(name: string, res: T) => {
    steps.push({ step: name, status: res.status, shards: res.headers.get("X-Count-D1-Shards") });
    return res;
  };
  const loggedIn = step(
    "login",
    await call("POST", "/authentication/v1/partner", {
      body: { username: partner.username, password: partner.password },
      vars: COUNTED,
    }),
  );
  const token = (await json<{ accessToken: string }>(loggedIn)).accessToken;
  const api = (method: string, path: string, body?: unknown) =>
    call(method, path, { token, vars: COUNTED, ...(body === undefined ? {} : { body }) });

  const created = await json<{ id: string; gatewayRedirectUrl: string }>(
    step(
      "create",
      await api("POST", "/financing/v1/applications", (await import("../support/factories")).applicationRequest()),
    ),
  );
  const { id } = created;
  step("get", await api("GET", app(id)));
  step("list", await api("GET", "/financing/v1/applications?limit=5"));
  // The customer approves at the gateway, through the link the API handed out.
  const page = step("gateway page", await browse(created.gatewayRedirectUrl, {}, COUNTED));
  const form = new URLSearchParams({ ...hiddenFields(await page.text()), action: "confirm" });
  step(
    "gateway confirm",
    await browse(
      created.gatewayRedirectUrl,
      { method: "POST", headers: { "Content-Type": "application/x-www-form-urlencoded" }, body: form.toString() },
      COUNTED,
    ),
  );
  step("change", await api("PUT", `${app(id)}/order`, { reason: "a monitor instead", order: newOrder }));
  step("send", await api("PUT", `${app(id)}/order/send`, {}));
  step("refund", await api("POST", `${app(id)}/refunds`, { totalPrice: { amount: 100, currency: "CZK" } }));
  const returned = step(
    "return with a document",
    await api("PUT", `${app(id)}/order/return`, {
      totalPrice: { amount: 100, currency: "CZK" },
      document: { type: "CREDIT_NOTE", file: { filename: "note.pdf", content: btoa("%PDF-1.4 note") } },
    }),
  );
  const [document] = (await json<{ documents: { url: string }[] }>(returned)).documents;
  step("download", await api("GET", document!.url));
  step("notifications", await api("GET", `${app(id)}/notifications`));

  const browser = new ConsoleBrowser(COUNTED);
  step("console sign-in", await browser.signIn(partner));
  step("console applications", await browser.get("/console/applications"));
  step("console application", await browser.get(`/console/applications/${id}`));
  step("logout", await api("DELETE", "/authentication/v1/partner"));
  return { id, steps };
}

/** A binding that records, in `touched`, that a statement went to its shard. */
function recording(binding: D1Database, shard: number, touched: Set<number>): D1Database {
  return new Proxy(binding, {
    get(target, prop) {
      const value = Reflect.get(target, prop, target);
      if (prop === "prepare" || prop === "batch" || prop === "exec" || prop === "withSession") {
        return (...args: unknown[]) => {
          touched.add(shard);
          return (value as (...a: unknown[]) => unknown).apply(target, args);
        };
      }
      return typeof value === "function" ? value.bind(target) : value;
    },
  });
}

/** Where the directory's part ends: these steps read or write the directory (shard 0) by design. */
const DIRECTORY_STEPS: Record<string, (shard: number) => string> = {
  login: () => "0",
  "console sign-in": (shard) => (shard === 0 ? "0" : "0,1"),
  logout: () => "0",
};

describe("partners on two shards", () => {
  it("has the local runtime bind two shards, as wrangler.toml does", () => {
    expect(everyShard(env).map(({ shard }) => shard)).toEqual([0, 1]);
  });

  it("sends each request of a partner to its own shard alone, through every surface, and a notification too", async () => {
    const partners = [await createPartner({ shard: 0 }), await createPartner({ shard: 1 })];
    const sent: NotificationMessage[] = [];
    const enqueue = vi.spyOn(env.NOTIFICATIONS, "sendBatch").mockImplementation(async (messages) => {
      sent.push(...[...messages].map((m) => m.body as NotificationMessage));
      return undefined as never;
    });
    vi.spyOn(globalThis, "fetch").mockImplementation(async () => new Response(null, { status: 204 }));
    try {
      for (const partner of partners) {
        sent.length = 0;
        const { id, steps } = await day(partner);
        for (const { step, status, shards } of steps) {
          expect({ step, ok: status < 400, shards }).toEqual({
            step,
            ok: true,
            shards: DIRECTORY_STEPS[step]?.(partner.shard) ?? String(partner.shard),
          });
        }

        // Each wake-up names the partner's shard; the consumer claims there alone, and the mailbox
        // records the delivery there.
        expect(sent.length).toBeGreaterThan(0);
        expect(new Set(sent.map((m) => m.shard))).toEqual(new Set([partner.shard]));
        const touched = new Set<number>();
        const recorded = Object.fromEntries(
          everyShard(env).map(({ shard, binding }) => [
            shard === 0 ? "DB" : `SHARD_${shard}`,
            recording(binding, shard, touched),
          ]),
        );
        const first = await firstEvent(id);
        const batch = createMessageBatch(NOTIFICATION_QUEUE, [
          { id: "wake-up", timestamp: new Date(), attempts: 1, body: sent.find((m) => m.eventId === first.id)! },
        ]);
        const ctx = createExecutionContext();
        await worker.queue(batch, { ...env, ...recorded }, ctx);
        expect((await getQueueResult(batch, ctx)).retryMessages).toEqual([]);
        expect(touched).toEqual(new Set([partner.shard]));
        await settled([first.id]);
        expect((await firstEvent(id)).status).toBe("DELIVERED");
        expect(await attempts(first.id)).toEqual([expect.objectContaining({ httpStatus: 204 })]);
      }
    } finally {
      enqueue.mockRestore();
      vi.restoreAllMocks();
    }

    // What partner 1 did left nothing of its own in shard 0 but its identity, without its secrets.
    const [, other] = partners;
    for (const table of ["applications", "events", "audit_events", "idempotency_keys", "settlement_entries"]) {
      const row = await env.DB.prepare(`SELECT COUNT(*) AS n FROM ${table} WHERE partner_id = ?`)
        .bind(other!.id)
        .first<{ n: number }>();
      expect({ table, n: row!.n }).toEqual({ table, n: 0 });
    }
    expect(
      await env.DB.prepare(
        "SELECT shard, api_key_ciphertext AS apiKey, signing_secret_ciphertext AS signingSecret FROM partners WHERE id = ?",
      )
        .bind(other!.id)
        .first(),
    ).toEqual({ shard: 1, apiKey: "", signingSecret: null });
    expect(
      await dbOf(other!).prepare("SELECT COUNT(*) AS n FROM applications WHERE partner_id = ?").bind(other!.id).first(),
    ).toEqual({ n: 1 });
  });

  it("refuses a gateway link pointed at another shard, and one naming a shard not bound, as any wrong link (404)", async () => {
    const partner = await createPartner({ shard: 1 });
    const login = await call("POST", "/authentication/v1/partner", {
      body: { username: partner.username, password: partner.password },
    });
    const token = (await json<{ accessToken: string }>(login)).accessToken;
    const { gatewayRedirectUrl } = await createApplication(token);
    expect(gatewayRedirectUrl).toMatch(/\/gateway\/[0-9A-Z]{26}\/1-[0-9a-f]{40}$/);
    expect((await browse(gatewayRedirectUrl)).status).toBe(200);
    const mac = gatewayRedirectUrl.slice(-40);
    for (const token of [mac, `2-${mac}`, `9-${mac}`]) {
      expect((await browse(gatewayRedirectUrl.replace(/1-[0-9a-f]{40}$/, token))).status).toBe(404);
    }
  });
});
