import { describe, expect, it } from "vitest";
import {
  allows,
  CAPABILITIES,
  type Capability,
  needsRole,
  ROLES,
  refundCeiling,
  refundRefusal,
} from "../../src/domain/roles";

/** What each role may do, written out as the issue words it: the table must say exactly this. */
const EXPECTED: Record<string, Capability[]> = {
  VIEWER: ["read", "self"],
  SUPPORT: ["read", "self", "customerLinks", "resend", "cancel", "extend", "send", "refund"],
  FINANCE: ["read", "self", "customerLinks", "resend", "cancel", "extend", "send", "refund", "payouts"],
  ADMIN: Object.keys(CAPABILITIES) as Capability[],
};

describe("the roles' table", () => {
  it("gives each role its own capabilities and everything of the roles before it", () => {
    for (const role of ROLES) {
      const held = (Object.keys(CAPABILITIES) as Capability[]).filter((c) => allows(role, c));
      expect(held.sort()).toEqual([...EXPECTED[role]!].sort());
    }
  });

  it("has payouts for FINANCE, people, rotation, replay and the audit log for ADMIN only", () => {
    expect(CAPABILITIES.payouts).toBe("FINANCE");
    for (const c of ["people", "rotate", "replay", "audit"] as const) expect(CAPABILITIES[c]).toBe("ADMIN");
  });

  it("says which role a refused capability needs", () => {
    expect(needsRole("refund", "VIEWER")).toBe("This needs the SUPPORT role; yours is VIEWER.");
    expect(needsRole("people", "FINANCE")).toBe("This needs the ADMIN role; yours is FINANCE.");
  });
});

describe("refunds by role", () => {
  const limits = { CZK: 50_000 };

  it("lets SUPPORT refund up to the partner's limit in that currency, and nothing without one", () => {
    expect(refundCeiling("SUPPORT", limits, "CZK")).toBe(50_000);
    expect(refundCeiling("SUPPORT", limits, "EUR")).toBe(0);
    expect(refundRefusal("SUPPORT", limits, 50_000, "CZK")).toBeNull();
    expect(refundRefusal("SUPPORT", limits, 50_001, "CZK")).toMatch(
      /refunds at most CZK\s500\.00 at once: a person with the FINANCE role refunds more/,
    );
    expect(refundRefusal("SUPPORT", limits, 1, "EUR")).toMatch(/no refund limit for EUR yet/);
  });

  it("lets FINANCE and ADMIN refund any amount, and VIEWER none", () => {
    for (const role of ["FINANCE", "ADMIN"] as const) {
      expect(refundCeiling(role, limits, "CZK")).toBeNull();
      expect(refundRefusal(role, {}, 10_000_000, "EUR")).toBeNull();
    }
    expect(refundCeiling("VIEWER", limits, "CZK")).toBe(0);
    expect(refundRefusal("VIEWER", limits, 1, "CZK")).toBe("This needs the SUPPORT role; yours is VIEWER.");
  });
});
