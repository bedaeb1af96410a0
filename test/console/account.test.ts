import { describe, expect, it, vi } from "vitest";
import { createPartner } from "../support/api";
import { ConsoleBrowser, signedInBrowser } from "../support/console";
import { addTestPerson, auditRows, signInAs } from "../support/people";

describe("a person's own sign-in page", () => {
  it("lists their sessions, this one marked, and signs out everywhere: every one ends", async () => {
    const partner = await createPartner();
    const person = await addTestPerson(partner, "VIEWER");
    const laptop = new ConsoleBrowser(undefined, {
      "CF-Connecting-IP": "198.51.100.7",
      "User-Agent": "Laptop browser",
    });
    expect((await signInAs(laptop, person)).status).toBe(303);
    // A second sign-in needs the next code: its step is a new one.
    vi.useFakeTimers({ toFake: ["Date"] });
    vi.setSystemTime(Date.now() + 30_000);
    try {
      const phone = new ConsoleBrowser(undefined, { "User-Agent": "Phone browser" });
      expect((await signInAs(phone, person)).status).toBe(303);
      const page = await laptop.get("/console/account");
      expect(page.status).toBe(200);
      expect(page.text).toMatch(/Your sessions/);
      expect(page.text).toMatch(/\(this one\) .* 198\.51\.100\.7 Laptop browser/);
      expect(page.text).toContain("Phone browser");
      const res = await laptop.submit("/console/account", "/console/account/sign-out-everywhere");
      expect(res.status).toBe(303);
      expect(res.location).toBe("/console/sign-in");
      for (const browser of [laptop, phone]) {
        expect((await browser.get("/console/applications")).location).toBe("/console/sign-in");
      }
    } finally {
      vi.useRealTimers();
    }
    // The clock stood still for the second sign-in and the sign-out: their entries share a millisecond.
    expect((await auditRows(partner.id)).map((r) => r.operation).sort()).toEqual([
      "signIn",
      "signIn",
      "signOutEverywhere",
    ]);
  });

  it("tells a session of the partner's credentials that it acts as an ADMIN until the period ends", async () => {
    const partner = await createPartner();
    const page = await (await signedInBrowser(partner)).get("/console/account");
    expect(page.text).toContain("You are signed in with the partner's API credentials, which act as an ADMIN");
  });
});
