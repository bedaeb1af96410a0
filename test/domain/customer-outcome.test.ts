import { describe, expect, it } from "vitest";
import { outcomeOf, outcomeRedirect } from "../../src/domain/customer-outcome";

const urls = {
  approvedRedirect: "https://shop.example.com/ok?order=1&sig=a%2Bb",
  rejectedRedirect: "https://shop.example.com/no#top",
  notificationEndpoint: "https://shop.example.com/hooks",
};
const policy = { requireHttps: true, allowedPorts: [] };
const application = (state: "PROCESSING" | "READY" | "REJECTED" | "CANCELLED", merchantUrls = urls) => ({
  id: "01ABC",
  state,
  merchantUrls,
});

describe("the customer's outcome", () => {
  it("is none while the application waits for them, then approved, rejected or cancelled", () => {
    expect(["PROCESSING", "READY", "REJECTED", "CANCELLED"].map((s) => outcomeOf(s as never))).toEqual([
      undefined,
      "approved",
      "rejected",
      "cancelled",
    ]);
  });

  it("sends them to approvedRedirect when approved, to rejectedRedirect otherwise, with the id and the shop's query kept", () => {
    expect(outcomeRedirect(application("READY"), policy)).toBe(
      "https://shop.example.com/ok?order=1&sig=a%2Bb&applicationId=01ABC",
    );
    expect(outcomeRedirect(application("REJECTED"), policy)).toBe(
      "https://shop.example.com/no?applicationId=01ABC#top",
    );
    expect(outcomeRedirect(application("CANCELLED"), policy)).toBe(
      "https://shop.example.com/no?applicationId=01ABC#top",
    );
  });

  it("sends them nowhere a customer may not be sent (checked again at every redirect)", () => {
    const internal = { ...urls, approvedRedirect: "https://10.0.0.1/ok" };
    expect(outcomeRedirect(application("READY", internal), policy)).toBeUndefined();
  });
});
