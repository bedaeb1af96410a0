import { describe, expect, it } from "vitest";
import { json, signIn } from "../../support/api";
import { createApplication, eventsOf } from "../../support/factories";
import { app, approved, expect422, type OrderView, put } from "../../support/orders";

describe("PUT …/order/deliver", () => {
  it("delivers sent and unsent items (sending those too) and reaches READY_DELIVERED", async () => {
    const { token } = await signIn();
    const id = await approved(token);
    await put(token, `${app(id)}/order/send`, { items: [{ code: "KB-01" }], sentDate: "2026-11-20" });
    const res = await put(token, `${app(id)}/order/deliver`, { deliveryDate: "2026-11-24" });
    const body = await json<OrderView>(res);
    expect(body.items.map((i) => [i.code, i.state, i.sentDate, i.deliveryDate])).toEqual([
      ["KB-01", "DELIVERED", "2026-11-20", "2026-11-24"],
      ["BK-7", "DELIVERED", "2026-11-24", "2026-11-24"],
      ["SHIP", "DELIVERED", "2026-11-24", "2026-11-24"],
    ]);
    expect(body.state).toBe("DELIVERED");
    expect(body.applicationInfo.stateReason).toBe("READY_DELIVERED");
    expect((await eventsOf(id)).map((e) => e.stateReason)).toEqual([
      "PROCESSING_REDIRECT_NEEDED",
      "READY_SHIPPED",
      "READY_DELIVERED",
    ]);
  });

  it("keeps a document sent with the delivery, as a return's", async () => {
    const { token } = await signIn();
    const id = await approved(token);
    const res = await put(token, `${app(id)}/order/deliver`, {
      document: { type: "OTHER", file: btoa("%PDF-1.4 proof of delivery") },
    });
    expect(res.status).toBe(200);
    const body = await json<OrderView>(res);
    expect(body.state).toBe("DELIVERED");
    expect(body.documents).toEqual([
      { id: expect.any(String), type: "OTHER", filename: "other.pdf", url: expect.any(String) },
    ]);
  });

  it("delivering part keeps READY_SHIPPED and the order at its least advanced state", async () => {
    const { token } = await signIn();
    const id = await approved(token);
    const body = await json<OrderView>(await put(token, `${app(id)}/order/deliver`, { items: [{ code: "SHIP" }] }));
    expect(body.state).toBe("PROCESSING");
    expect(body.applicationInfo.stateReason).toBe("READY_SHIPPED");
  });

  it("refuses before approval (APPLICATION_NOT_READY)", async () => {
    const { token } = await signIn();
    const { id } = await createApplication(token);
    await expect422(await put(token, `${app(id)}/order/deliver`), "APPLICATION_NOT_READY");
  });
});
