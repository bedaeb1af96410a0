import { runInDurableObject } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { describe, expect, it, vi } from "vitest";
import { sha256Hex } from "../src/auth/crypto";
import { call, json, login, signIn } from "./support/api";
import { createApplication } from "./support/factories";
import { submitGateway } from "./support/gateway";
import { partnerEndpoint, QUEUE, runBatch } from "./support/notifications";
import { app, put } from "./support/orders";
import { dbOfApplication, shardDatabases } from "./support/shards";

/** Every row of every table of every shard's D1 database (the directory's too), as text. */
async function everyRow(): Promise<string> {
  const rows: string[] = [];
  for (const db of shardDatabases()) {
    const tables = await db
      .prepare(
        "SELECT name FROM sqlite_master WHERE type = 'table' AND substr(name, 1, 7) <> 'sqlite_' AND substr(name, 1, 4) <> '_cf_' AND substr(name, 1, 3) <> 'd1_'",
      )
      .all<{ name: string }>();
    for (const { name } of tables.results) {
      rows.push(JSON.stringify((await db.prepare(`SELECT * FROM "${name}"`).all()).results));
    }
  }
  return rows.join("\n");
}

/** Every row of every table of a rate-limit object's storage, as text. */
async function objectRows(name: string): Promise<string> {
  const stub = env.RATE_LIMITER.get(env.RATE_LIMITER.idFromName(name));
  return runInDurableObject(stub, (_, state) => {
    const tables = state.storage.sql
      .exec<{ name: string }>(
        "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' AND name NOT LIKE '_cf_%'",
      )
      .toArray();
    return tables
      .map(({ name }) => JSON.stringify(state.storage.sql.exec(`SELECT * FROM "${name}"`).toArray()))
      .join("\n");
  });
}

describe("secrets at rest and in logs", () => {
  it("after a full flow, no password, token, API key, signing secret or gateway token is stored or logged", async () => {
    const logged: string[] = [];
    for (const level of ["log", "info", "warn", "error"] as const) {
      vi.spyOn(console, level).mockImplementation((...args: unknown[]) => {
        logged.push(args.map(String).join(" "));
      });
    }
    const { partner, token } = await signIn();
    // A failed login too: the throttle keeps it, by the user name's hash.
    await call("POST", "/authentication/v1/partner", {
      body: { username: partner.username, password: "wrong-password" },
    });
    const created = await createApplication(token);
    const gatewayToken = created.gatewayRedirectUrl.split("/").at(-1)!;
    await submitGateway(created.gatewayRedirectUrl, { action: "confirm" });
    const idempotent = { "Idempotency-Key": "secrets-flow" };
    expect((await put(token, `${app(created.id)}/order/send`, {}, idempotent)).status).toBe(200);
    expect((await put(token, `${app(created.id)}/order/send`, {}, idempotent)).status).toBe(200);
    await put(token, `${app(created.id)}/order/return`, {
      items: [{ code: "BK-7" }],
      document: { type: "INVOICE", file: { filename: "credit-note.pdf", content: btoa("%PDF-1.4") } },
    });
    await call("POST", `${app(created.id)}/refunds`, { token, body: { totalPrice: { amount: 100, currency: "CZK" } } });
    const rotated = await call("POST", "/financing/v1/notification-secret/rotate", {
      token,
      headers: { "Idempotency-Key": "rotate-1" },
    });
    const { secret: newSecret } = await json<{ secret: string }>(rotated);
    const events = await (await dbOfApplication(created.id))
      .prepare("SELECT id FROM events WHERE application_id = ?")
      .bind(created.id)
      .all<{ id: string }>();
    partnerEndpoint(() => new Response(null, { status: 500 }));
    await runBatch(
      QUEUE,
      events.results.map((e) => ({ body: { eventId: e.id } })),
    );
    const second = await login(partner);
    await call("DELETE", "/authentication/v1/partner", { token: second });

    const secrets = {
      password: partner.password,
      "API key": partner.apiKey,
      "signing secret": partner.signingSecret,
      "rotated signing secret": newSecret,
      "access token": token,
      "revoked access token": second,
      "gateway token": gatewayToken,
      "signing secret (base64 part)": partner.signingSecret.slice("whsec_".length),
    };
    const stores = {
      D1: await everyRow(),
      "token object": await objectRows(`token:${await sha256Hex(token)}`),
      "login throttle": await objectRows(`login:${await sha256Hex(partner.username.toLowerCase())}`),
      logs: logged.join("\n"),
    };
    expect(stores.D1).toContain(partner.id); // the dump is real
    for (const [store, text] of Object.entries(stores)) {
      for (const [what, secret] of Object.entries(secrets)) {
        expect(text.includes(secret), `${what} found in ${store}`).toBe(false);
      }
    }
  });
});
