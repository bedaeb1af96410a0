import { describe, expect, it } from "vitest";
import { call, json, signIn } from "../../support/api";
import { dbOf } from "../../support/shards";

describe("GET /financing/v1/partner/terms", () => {
  it("answers the partner's own terms: the defaults, then what an operator set", async () => {
    const { token, partner } = await signIn();
    const terms = async () => json(await call("GET", "/financing/v1/partner/terms", { token }));
    expect(await terms()).toEqual({
      settlesOn: "SENT",
      feeBasisPoints: { DEFERRED_PAYMENT: 250, PAY_IN_THREE: 350 },
      feeVatRate: 21,
      payoutCutoffHour: 0,
      timeZone: "UTC",
    });
    await dbOf(partner)
      .prepare("UPDATE partners SET settles_on = 'DELIVERED', fee_bp_pay_in_three = 0 WHERE id = ?")
      .bind(partner.id)
      .run();
    expect(await terms()).toMatchObject({ settlesOn: "DELIVERED", feeBasisPoints: { PAY_IN_THREE: 0 } });
  });
});
