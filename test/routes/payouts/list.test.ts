import { describe, expect, it } from "vitest";
import { call, json, signIn } from "../../support/api";
import { shipped } from "../../support/orders";
import { closeNow, everything, type PayoutView } from "../../support/settlement-api";

describe("GET /financing/v1/payouts", () => {
  it("lists the partner's payouts only, sorted and filtered as every list", async () => {
    const { token } = await signIn();
    const other = await signIn();
    await shipped(token);
    const [first] = await closeNow(token);
    await shipped(token);
    const [second] = await closeNow(token);
    await shipped(other.token);
    await closeNow(other.token);
    expect((await everything<PayoutView>(token, "/financing/v1/payouts")).map((p) => p.id)).toEqual([
      first!.id,
      second!.id,
    ]);
    expect(
      (await everything<PayoutView>(token, "/financing/v1/payouts?sort=-createdAt&limit=1")).map((p) => p.id),
    ).toEqual([second!.id, first!.id]);
    expect(await everything<PayoutView>(token, "/financing/v1/payouts?filter=status|eq|PENDING")).toEqual([]);
    expect(await everything<PayoutView>(token, "/financing/v1/payouts?filter=currency|eq|EUR")).toEqual([]);
    // From the bank statement's variable symbol to the payout.
    expect(
      (await everything<PayoutView>(token, `/financing/v1/payouts?filter=reference|eq|${second!.reference}`)).map(
        (p) => p.id,
      ),
    ).toEqual([second!.id]);
    const bad = await call("GET", "/financing/v1/payouts?filter=net|gt|0", { token });
    expect(bad.status).toBe(400);
    expect(await json(bad)).toMatchObject({ errors: [{ code: "INVALID_VALUE", attribute: "filter" }] });
  });
});
