import { describe, expect, it, vi } from "vitest";
import { totpCode } from "../../src/domain/totp";
import { call, createPartner } from "../support/api";
import { ConsoleBrowser, signedInBrowser } from "../support/console";
import { addTestPerson, auditRows, personFields, signInAs } from "../support/people";

const SIGN_IN = "/console/sign-in";

describe("a person's sign-in", () => {
  it("takes the partner account, the e-mail, the password and the authenticator's code: a session of their own", async () => {
    const partner = await createPartner();
    const person = await addTestPerson(partner, "VIEWER");
    const browser = new ConsoleBrowser();
    const res = await signInAs(browser, person, { username: person.email.toUpperCase() });
    expect(res.status).toBe(303);
    expect(res.location).toBe("/console/applications");
    expect(res.headers.getSetCookie().find((c) => c.startsWith("console-session="))).toMatch(
      new RegExp(
        `^console-session=${person.id}\\.[A-Za-z0-9_-]{43}; Max-Age=28800; Path=/; HttpOnly; SameSite=Strict$`,
      ),
    );
    expect((await browser.get("/console/applications")).status).toBe(200);
    expect(await auditRows(partner.id)).toEqual([
      expect.objectContaining({
        operation: "signIn",
        actor_type: "PERSON",
        actor_id: person.id,
        actor_name: person.email,
        outcome: "SUCCEEDED",
        source: "CONSOLE",
      }),
    ]);
  });

  it("refuses a wrong password, a wrong code, a replayed code, another account: in the same words, no session", async () => {
    const partner = await createPartner();
    const other = await createPartner();
    const person = await addTestPerson(partner, "SUPPORT");
    const code = totpCode(person.secret, Date.now());
    const wrongCode = String((Number(code) + 1) % 1_000_000).padStart(6, "0");
    for (const fields of [
      { password: "wrong password" },
      { code: wrongCode },
      { code: "" },
      { account: other.username },
      { username: "nobody@shop.example" },
    ]) {
      const browser = new ConsoleBrowser();
      const res = await signInAs(browser, person, fields);
      expect(res.status).toBe(400);
      expect(res.text).toContain("The account, e-mail, password or code is wrong.");
      expect(browser.cookies.has("console-session")).toBe(false);
    }
    const first = new ConsoleBrowser();
    expect((await signInAs(first, person, { code })).status).toBe(303);
    // The same code again, from anywhere: taken.
    const replayed = await signInAs(new ConsoleBrowser(), person, { code });
    expect(replayed.status).toBe(400);
    expect((await auditRows(partner.id)).map((r) => [r.outcome, r.code])).toEqual([
      ["REFUSED", "WRONG_CREDENTIALS"],
      ["REFUSED", "WRONG_CODE"],
      ["REFUSED", "WRONG_CODE"],
      ["SUCCEEDED", null],
      ["REFUSED", "CODE_USED"],
    ]);
    expect(await auditRows(other.id)).toEqual([]);
  });

  it("is throttled per person: the sixth attempt after five failures is refused, the right one too", async () => {
    const partner = await createPartner();
    const person = await addTestPerson(partner, "VIEWER");
    for (let i = 0; i < 5; i++) {
      expect((await signInAs(new ConsoleBrowser(), person, { password: `wrong-${i}` })).status).toBe(400);
    }
    const sixth = await signInAs(new ConsoleBrowser(), person);
    expect(sixth.status).toBe(429);
    expect(Number(sixth.headers.get("Retry-After"))).toBeGreaterThan(0);
    expect(sixth.text).toContain("Too many failed sign-ins");
    // Another person of the same partner is not paused.
    const colleague = await addTestPerson(partner, "VIEWER");
    expect((await signInAs(new ConsoleBrowser(), colleague)).status).toBe(303);
  });

  it("is throttled per address too, with the count the API's login shares", async () => {
    const address = `203.0.113.${Math.floor(Math.random() * 250)}`;
    const partner = await createPartner();
    for (let i = 0; i < 20; i++) {
      const res = await call("POST", "/authentication/v1/partner", {
        body: { username: `nobody-${i}-${address}`, password: "wrong" },
        headers: { "CF-Connecting-IP": address },
      });
      expect(res.status).toBe(400);
    }
    const person = await addTestPerson(partner, "VIEWER");
    const res = await signInAs(new ConsoleBrowser(undefined, { "CF-Connecting-IP": address }), person);
    expect(res.status).toBe(429);
  });

  it("retires the partner's API credentials in the console once an ADMIN has set up: the API's login keeps them", async () => {
    const partner = await createPartner();
    const legacy = await signedInBrowser(partner);
    expect((await legacy.get("/console/applications")).status).toBe(200);
    await addTestPerson(partner, "ADMIN");
    // The open session ends on its next request; a new sign-in is refused in words.
    const next = await legacy.get("/console/applications");
    expect(next.status).toBe(303);
    expect(next.location).toBe(SIGN_IN);
    const refused = await new ConsoleBrowser().signIn(partner);
    expect(refused.status).toBe(403);
    expect(refused.text).toContain("The partner's API credentials no longer open the console.");
    expect(
      (
        await call("POST", "/authentication/v1/partner", {
          body: { username: partner.username, password: partner.password },
        })
      ).status,
    ).toBe(200);
    expect((await auditRows(partner.id)).map((r) => [r.operation, r.actor_type, r.outcome, r.code])).toEqual([
      ["signIn", "PARTNER_CREDENTIALS", "SUCCEEDED", null],
      ["signIn", "PARTNER_CREDENTIALS", "REFUSED", "CREDENTIALS_RETIRED"],
    ]);
  });

  it("retires them at the end of the migration period for every partner", async () => {
    const partner = await createPartner();
    vi.useFakeTimers({ toFake: ["Date"] });
    vi.setSystemTime(Date.parse("2027-06-01T00:00:00Z"));
    try {
      expect((await new ConsoleBrowser().signIn(partner)).status).toBe(403);
    } finally {
      vi.useRealTimers();
    }
  });

  it("never echoes the password or the code", async () => {
    const partner = await createPartner();
    const person = await addTestPerson(partner, "VIEWER");
    const fields = personFields(person);
    const res = await signInAs(new ConsoleBrowser(), person, { password: "wrong but secret" });
    expect(res.html).not.toContain("wrong but secret");
    expect(res.html).not.toContain(`value="${fields.code}"`);
    expect(res.html).toContain(`value="${person.email}"`);
  });
});
