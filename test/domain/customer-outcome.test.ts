import { describe, expect, it } from "vitest";
import { outcomeOf, outcomeRedirect } from "../../src/domain/customer-outcome";

const urls = {
  approvedRedirect: "https://shop.example.com/ok?order=1&sig=a%2Bb",
  rejectedRedirect: "https://shop.example.com/no#top",
  notificationEndpoint: "https://shop.example.com/hooks",
};
const policy = { requireHttps: true, allowedPorts: [] };
const REASONS = {
  PROCESSING: "PROCESSING_REDIRECT_NEEDED",
  READY: "READY_TO_SHIP",
  REJECTED: "REJECTED",
  CANCELLED: "CANCELLED_NOT_PAID",
} as const;
const application = (state: "PROCESSING" | "READY" | "REJECTED" | "CANCELLED", merchantUrls = urls) => ({
  id: "01ABC",
  state,
  stateReason: REASONS[state] as (typeof REASONS)[keyof typeof REASONS],
  expiresAt: 1000,
  merchantUrls,
});

describe("the customer's outcome", () => {
  it("is none while the offer waits for them, then approved, rejected or cancelled", () => {
    const states = ["PROCESSING", "READY", "REJECTED", "CANCELLED"] as const;
    expect(states.map((s) => outcomeOf(application(s), 999))).toEqual([undefined, "approved", "rejected", "cancelled"]);
  });

  it("is 'expired' once their deadline passed (before the sweep too), and 'review' while a review decides", () => {
    expect(outcomeOf(application("PROCESSING"), 1000)).toBe("expired");
    expect(outcomeOf({ ...application("CANCELLED"), stateReason: "CANCELLED_EXPIRED" }, 0)).toBe("expired");
    expect(
      outcomeOf({ ...application("PROCESSING"), stateReason: "PROCESSING_MANUAL_REVIEW", expiresAt: null }, 0),
    ).toBe("review");
  });

  it("sends them to approvedRedirect when approved or under review, else to rejectedRedirect, with the id and the shop's query kept", () => {
    const review = { ...application("PROCESSING"), stateReason: "PROCESSING_MANUAL_REVIEW" as const };
    expect(outcomeRedirect(review, policy)).toBe("https://shop.example.com/ok?order=1&sig=a%2Bb&applicationId=01ABC");
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
