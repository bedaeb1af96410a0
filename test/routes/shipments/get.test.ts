import { describe, expect, it } from "vitest";
import { call, json, signIn } from "../../support/api";
import { app, shipped } from "../../support/orders";
import { shipmentsOf } from "../../support/settlement-api";

describe("GET …/shipments/{shipmentId}", () => {
  it("reads one shipment of the application, and 404s another's or another application's", async () => {
    const { token } = await signIn();
    const other = await signIn();
    const id = await shipped(token);
    const otherId = await shipped(token);
    const [shipment] = await shipmentsOf(token, id);
    const res = await call("GET", `${app(id)}/shipments/${shipment!.id}`, { token });
    expect(res.status).toBe(200);
    expect(await json(res)).toEqual(shipment);
    expect((await call("GET", `${app(id)}/shipments/${shipment!.id}`, { token: other.token })).status).toBe(404);
    expect((await call("GET", `${app(otherId)}/shipments/${shipment!.id}`, { token })).status).toBe(404);
    expect((await call("GET", `${app(id)}/shipments/unknown`, { token })).status).toBe(404);
  });
});
