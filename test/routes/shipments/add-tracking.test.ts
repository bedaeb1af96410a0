import { describe, expect, it } from "vitest";
import { call, json, signIn } from "../../support/api";
import { countRows } from "../../support/factories";
import { app, expect422, shipped } from "../../support/orders";
import { shipmentsOf } from "../../support/settlement-api";
import { dbOf } from "../../support/shards";

const tracking = (id: string, shipmentId: string) => `${app(id)}/shipments/${shipmentId}/tracking`;

async function usage(partnerId: string): Promise<number> {
  const row = await (await dbOf(partnerId))
    .prepare("SELECT stored_bytes FROM partners WHERE id = ?")
    .bind(partnerId)
    .first();
  return row!.stored_bytes as number;
}

describe("POST …/shipments/{shipmentId}/tracking", () => {
  it("appends tracking after dispatch and answers the shipment; the same entry again changes nothing", async () => {
    const { token, partner } = await signIn();
    const id = await shipped(token);
    const [shipment] = await shipmentsOf(token, id);
    const before = await usage(partner.id);
    const body = { number: "PPL-2", carrier: "PPL", url: "https://www.ppl.cz/track?id=PPL-2" };
    const res = await call("POST", tracking(id, shipment!.id), { token, body });
    expect(res.status).toBe(200);
    const answered = await json<{ tracking: unknown[] }>(res);
    expect(answered.tracking).toEqual([{ ...body, addedAt: expect.stringMatching(/\+00:00$/) }]);
    // The partner's own content counts against its storage.
    expect(await usage(partner.id)).toBeGreaterThan(before);
    const again = await call("POST", tracking(id, shipment!.id), { token, body });
    expect(await json(again)).toEqual(answered);
    expect((await shipmentsOf(token, id))[0]!.tracking).toHaveLength(1);
  });

  it("refuses an eleventh entry (TRACKING_LIMIT_REACHED), an unsafe URL and an empty number, changing nothing", async () => {
    const { token } = await signIn();
    const id = await shipped(token);
    const [shipment] = await shipmentsOf(token, id);
    for (let n = 1; n <= 10; n++) {
      const res = await call("POST", tracking(id, shipment!.id), { token, body: { number: `N-${n}` } });
      expect(res.status).toBe(200);
    }
    await expect422(
      await call("POST", tracking(id, shipment!.id), { token, body: { number: "N-11" } }),
      "TRACKING_LIMIT_REACHED",
    );
    const { token: fresh } = await signIn();
    const freshId = await shipped(fresh);
    const [s] = await shipmentsOf(fresh, freshId);
    for (const url of ["http://www.ppl.cz/t", "https://127.0.0.1/t", "https://user:pw@ppl.cz/t"]) {
      const res = await call("POST", tracking(freshId, s!.id), { token: fresh, body: { number: "X", url } });
      expect([400, 422]).toContain(res.status);
      expect(await json(res)).toMatchObject({ errors: [{ code: "INVALID_VALUE", attribute: "url" }] });
    }
    expect((await call("POST", tracking(freshId, s!.id), { token: fresh, body: { number: "" } })).status).toBe(400);
    expect((await shipmentsOf(fresh, freshId))[0]!.tracking).toEqual([]);
  });

  it("is 404 for another partner's shipment, which stays as it was", async () => {
    const { token } = await signIn();
    const other = await signIn();
    const id = await shipped(token);
    const [shipment] = await shipmentsOf(token, id);
    const res = await call("POST", tracking(id, shipment!.id), { token: other.token, body: { number: "X" } });
    expect(res.status).toBe(404);
    expect(await countRows("shipments", "id = ? AND tracking = '[]'", shipment!.id)).toBe(1);
  });

  it("keeps every one of concurrent appends: none lost to a race", async () => {
    const { token } = await signIn();
    const id = await shipped(token);
    const [shipment] = await shipmentsOf(token, id);
    const answers = await Promise.all(
      Array.from({ length: 6 }, (_, n) =>
        call("POST", tracking(id, shipment!.id), { token, body: { number: `RACE-${n}` } }),
      ),
    );
    expect(answers.map((r) => r.status)).toEqual(Array(6).fill(200));
    const numbers = (await shipmentsOf(token, id))[0]!.tracking.map((t) => t.number).sort();
    expect(numbers).toEqual(["RACE-0", "RACE-1", "RACE-2", "RACE-3", "RACE-4", "RACE-5"]);
  });
});
