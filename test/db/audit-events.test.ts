import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { recordAudit } from "../../src/db/audit-events";
import { database } from "../../src/db/client";
import { auditEvents } from "../../src/db/schema";
import { rowBytes } from "../../src/db/storage";
import { createPartner, partnersOnShard } from "../support/api";

// SQL on `env.DB` directly: the partners are of shard 0 (the routing: test/db/shards.test.ts).
partnersOnShard(0);

const entry = {
  operation: "createRefund",
  source: "API" as const,
  actor: { type: "API" as const, id: "0123456789abcdef", name: null },
  address: "203.0.113.1",
  outcome: "SUCCEEDED" as const,
  applicationId: "01JAPPLICATION0000000000000",
  amount: 1250,
  currency: "CZK",
  reason: "goodwill",
};

describe("the audit log as stored", () => {
  it("holds every column of an entry as the schema reads it, and counts its bytes in the partner's audit usage", async () => {
    const partner = await createPartner();
    const written = await recordAudit(env.DB, partner.id, entry, 1_800_000_000_000);
    const [read] = await database(env).select().from(auditEvents);
    expect(read).toEqual(written);
    expect(read).toMatchObject({
      partnerId: partner.id,
      occurredAt: 1_800_000_000_000,
      actorId: "0123456789abcdef",
      subject: null,
      code: null,
    });
    const usage = await env.DB.prepare("SELECT stored_bytes, audit_bytes FROM partners WHERE id = ?")
      .bind(partner.id)
      .first();
    expect(usage).toEqual({ stored_bytes: 0, audit_bytes: rowBytes(written) });
  });

  it("is append-only: the database refuses to change an entry", async () => {
    const partner = await createPartner();
    const written = await recordAudit(env.DB, partner.id, entry, Date.now());
    await expect(
      env.DB.prepare("UPDATE audit_events SET outcome = 'REFUSED' WHERE id = ?").bind(written.id).run(),
    ).rejects.toThrow(/append-only/);
  });
});
