import { createExecutionContext, createScheduledController, waitOnExecutionContext } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import worker from "../src/index";
import { signIn } from "./support/api";
import { countRows } from "./support/factories";

const HOUR = 3600_000;

async function tokenRecords(partnerId: string, count: number, expiresAt: number, prefix: string) {
  const rows = Array.from({ length: count }, (_, i) => `${prefix}-${String(i).padStart(5, "0")}`);
  for (let i = 0; i < rows.length; i += 100) {
    await env.DB.batch(
      rows
        .slice(i, i + 100)
        .map((hash) =>
          env.DB.prepare(
            "INSERT INTO access_tokens (token_hash, partner_id, expires_at, created_at) VALUES (?, ?, ?, ?)",
          ).bind(hash, partnerId, expiresAt, expiresAt - 2 * HOUR),
        ),
    );
  }
}

describe("the Cron Trigger", () => {
  it("purges the records of expired access tokens, however many, and keeps the live ones", async () => {
    const { partner } = await signIn();
    const at = Date.now();
    await tokenRecords(partner.id, 1_200, at - HOUR, "expired");
    await tokenRecords(partner.id, 3, at + HOUR, "live");
    // The one the sign-in wrote is live too.
    expect(await countRows("access_tokens", "partner_id = ?", partner.id)).toBe(1_204);

    const ctx = createExecutionContext();
    await worker.scheduled(createScheduledController({ scheduledTime: at, cron: "*/5 * * * *" }), env, ctx);
    await waitOnExecutionContext(ctx);

    expect(await countRows("access_tokens", "partner_id = ? AND expires_at < ?", partner.id, at)).toBe(0);
    expect(await countRows("access_tokens", "partner_id = ?", partner.id)).toBe(4);
  });
});
