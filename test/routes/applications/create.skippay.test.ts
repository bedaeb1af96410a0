import { describe, expect, it } from "vitest";
import { call, json, signIn } from "../../support/api";
import { applicationRequest, withPath } from "../../support/factories";

/** Request shapes of Skip Pay's published API that ours accepts (docs/skippay-compatibility.md). */
describe("POST /financing/v1/applications in Skip Pay's shapes", () => {
  it("reads a carrier given as a string as {carrierId}", async () => {
    const { token } = await signIn();
    const body = withPath(applicationRequest(), ["order", "deliveryCarrier"], "Zásilkovna");
    const res = await call("POST", "/financing/v1/applications", { token, body });
    expect(res.status).toBe(201);
    expect(await json(res)).toMatchObject({ order: { deliveryCarrier: { carrierId: "Zásilkovna" } } });
  });

  it("reads null as absent where Skip Pay sends it", async () => {
    const { token } = await signIn();
    let body = withPath(applicationRequest(), ["order", "deliveryCarrier"], null);
    body = withPath(body, ["order", "reservationDate"], null);
    const res = await call("POST", "/financing/v1/applications", { token, body });
    expect(res.status).toBe(201);
    const order = (await json<{ order: Record<string, unknown> }>(res)).order;
    expect(order).not.toHaveProperty("deliveryCarrier");
    expect(order).not.toHaveProperty("reservationDate");
  });

  it("takes Skip Pay's longer order numbers and item codes", async () => {
    const { token } = await signIn();
    let body = withPath(applicationRequest(), ["order", "number"], "N".repeat(100));
    body = withPath(body, ["order", "items", 1, "code"], "C".repeat(200));
    expect((await call("POST", "/financing/v1/applications", { token, body })).status).toBe(201);
  });
});
