import { runInDurableObject } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { afterEach, describe, expect, it, vi } from "vitest";
import { sha256Hex } from "../../src/auth/crypto";
import { IDLE_MS, LIFETIME_MS } from "../../src/console/session";
import { createPartner } from "../support/api";
import { ConsoleBrowser, formFields, signedInBrowser } from "../support/console";
import { dbOf } from "../support/shards";

const MINUTE = 60_000;

afterEach(() => {
  vi.useRealTimers();
});

/**
 * The browser's session as its Durable Object holds it (named by the id's hash), or null: read from
 * the object's storage, since using the session would move its idle end.
 */
async function storedSession(browser: ConsoleBrowser) {
  const hash = await sha256Hex(browser.cookies.get("console-session")!);
  const object = env.RATE_LIMITER.get(env.RATE_LIMITER.idFromName(`console-session:${hash}`));
  return runInDurableObject(object, (_, state) => {
    const [table] = state.storage.sql
      .exec("SELECT name FROM sqlite_master WHERE type = 'table' AND name = 'console_session'")
      .toArray();
    if (!table) return null;
    const [row] = state.storage.sql
      .exec<{ partner_id: string; idle_until: number; expires_at: number }>(
        "SELECT partner_id, idle_until, expires_at FROM console_session",
      )
      .toArray();
    return row ? { partnerId: row.partner_id, idleUntil: row.idle_until, expiresAt: row.expires_at } : null;
  });
}

describe("the console's session", () => {
  it("sends a signed-out request to sign-in, for pages and forms alike", async () => {
    const browser = new ConsoleBrowser();
    for (const path of [
      "/console",
      "/console/applications",
      "/console/applications/01J000000000000000000000000",
      "/console/notifications",
    ]) {
      const res = await browser.get(path);
      expect({ path, status: res.status }).toEqual({ path, status: 303 });
    }
    expect((await browser.get("/console/applications")).location).toBe("/console/sign-in");
    const post = await browser.post("/console/notifications/replay", { from: "2026-01-01T00:00" });
    expect(post.status).toBe(303);
    expect(post.location).toBe("/console/sign-in");
  });

  it("is kept server-side, named by the hash of its id: the cookie holds nothing but the id", async () => {
    const partner = await createPartner();
    const before = Date.now();
    const browser = await signedInBrowser(partner);
    const stored = await storedSession(browser);
    expect(stored).toMatchObject({ partnerId: partner.id });
    expect(stored!.idleUntil).toBeGreaterThanOrEqual(before + IDLE_MS);
    expect(stored!.idleUntil).toBeLessThanOrEqual(Date.now() + IDLE_MS);
    expect(stored!.expiresAt - stored!.idleUntil).toBe(LIFETIME_MS - IDLE_MS);
    expect(JSON.stringify(stored)).not.toContain(browser.cookies.get("console-session")!);
  });

  it("ends after 30 minutes unused", async () => {
    const partner = await createPartner();
    vi.useFakeTimers({ toFake: ["Date"] });
    // Ahead of the real clock: the objects' clean-up alarms, set by these times, must not fire meanwhile.
    const start = Date.now() + 86_400_000;
    vi.setSystemTime(start);
    const browser = await signedInBrowser(partner);
    vi.setSystemTime(start + IDLE_MS - MINUTE);
    expect((await browser.get("/console/applications")).status).toBe(200);
    // Used at 29 minutes: alive until 59.
    vi.setSystemTime(start + IDLE_MS - MINUTE + IDLE_MS - 1000);
    expect((await browser.get("/console/applications")).status).toBe(200);
    vi.setSystemTime(start + 3 * IDLE_MS);
    const expired = await browser.get("/console/applications");
    expect(expired.status).toBe(303);
    expect(expired.location).toBe("/console/sign-in");
    expect(browser.cookies.has("console-session")).toBe(false);
  });

  it("ends 8 hours after sign-in however busy it is", async () => {
    const partner = await createPartner();
    vi.useFakeTimers({ toFake: ["Date"] });
    // Ahead of the real clock: the objects' clean-up alarms, set by these times, must not fire meanwhile.
    const start = Date.now() + 86_400_000;
    vi.setSystemTime(start);
    const browser = await signedInBrowser(partner);
    const id = browser.cookies.get("console-session")!;
    for (let at = start + 20 * MINUTE; at < start + LIFETIME_MS; at += 20 * MINUTE) {
      vi.setSystemTime(at);
      expect((await browser.get("/console/applications")).status).toBe(200);
    }
    vi.setSystemTime(start + LIFETIME_MS);
    const expired = await browser.get("/console/applications");
    expect(expired.location).toBe("/console/sign-in");
    // The ended session is gone from the server, not only from this browser.
    const again = new ConsoleBrowser();
    again.cookies.set("console-session", id);
    vi.setSystemTime(start + 10 * MINUTE);
    expect((await again.get("/console/applications")).location).toBe("/console/sign-in");
  });

  it("refuses a form posted without the session's CSRF token, or with another session's, and changes nothing", async () => {
    const partner = await createPartner();
    const browser = await signedInBrowser(partner);
    const other = await signedInBrowser(await createPartner());
    const foreign = formFields((await other.get("/console/notifications")).html, "/console/notification-secret/rotate");
    const fields = formFields(
      (await browser.get("/console/notifications")).html,
      "/console/notification-secret/rotate",
    );
    const secretBefore = await signingSecret(partner.id);
    const { csrf: _, ...withoutToken } = fields;
    for (const sent of [withoutToken, { ...fields, csrf: foreign.csrf! }, { ...fields, csrf: "" }]) {
      const res = await browser.post("/console/notification-secret/rotate", sent);
      expect(res.status).toBe(403);
      expect(res.text).toContain("This form has expired");
    }
    expect(await signingSecret(partner.id)).toBe(secretBefore);
  });

  it("refuses a form that is not URL-encoded as the console's forms are", async () => {
    const browser = await signedInBrowser(await createPartner());
    const fields = formFields(
      (await browser.get("/console/notifications")).html,
      "/console/notification-secret/rotate",
    );
    const res = await browser.request("/console/notification-secret/rotate", {
      method: "POST",
      headers: { "Content-Type": "application/json" },
      body: JSON.stringify(fields),
    });
    expect(res.status).toBe(400);
  });
});

async function signingSecret(partnerId: string) {
  const row = await (await dbOf(partnerId))
    .prepare("SELECT signing_secret_ciphertext AS s FROM partners WHERE id = ?")
    .bind(partnerId)
    .first<{ s: string }>();
  return row!.s;
}
