import { describe, expect, it } from "vitest";
import { createPartner } from "../support/api";
import { ConsoleBrowser, formFields, signedInBrowser } from "../support/console";
import { auditRows, personBrowser, signInAs } from "../support/people";
import { dbOf, rowsOverShards } from "../support/shards";

const PEOPLE = "/console/people";

const roleOf = async (email: string) =>
  (await rowsOverShards<{ role: string }>("SELECT role FROM console_people WHERE email = ?", email))[0]?.role;

describe("the people page", () => {
  it("lets the partner's credentials add the first ADMIN: the setup link shown once, never stored", async () => {
    const partner = await createPartner();
    const legacy = await signedInBrowser(partner);
    const page = await legacy.get(PEOPLE);
    expect(page.status).toBe(200);
    expect(page.text).toContain("No people yet: add yourself as the first ADMIN below.");
    const res = await legacy.submit(PEOPLE, PEOPLE, { email: "boss@shop.example", role: "ADMIN" });
    expect(res.status).toBe(200);
    expect(res.text).toContain("Setup link of boss@shop.example");
    const link = /value="(http[^"]+)"/.exec(res.html)![1]!;
    expect(link).toMatch(/^http:\/\/api\.test\/console\/setup\/\d+\.[A-Za-z0-9_-]{43}$/);
    const token = link.split("/").at(-1)!;
    const [row] = await rowsOverShards("SELECT * FROM console_people WHERE email = ?", "boss@shop.example");
    expect(JSON.stringify(row)).not.toContain(token);
    expect(row).toMatchObject({ role: "ADMIN", password_hash: null, activated_at: null });
    // Listed with its link's end; the link itself is never shown again.
    const listed = await legacy.get(PEOPLE);
    expect(listed.text).toMatch(/boss@shop\.example .*Setup link valid until/);
    expect(listed.html).not.toContain(token);
    expect((await auditRows(partner.id)).at(-1)).toMatchObject({
      operation: "addPerson",
      actor_type: "PARTNER_CREDENTIALS",
      subject: "boss@shop.example (ADMIN)",
      outcome: "SUCCEEDED",
    });
  });

  it("refuses an e-mail twice, and one that is no address, in words", async () => {
    const partner = await createPartner();
    const { browser } = await personBrowser(partner, "ADMIN");
    expect((await browser.submit(PEOPLE, PEOPLE, { email: "twice@shop.example", role: "VIEWER" })).status).toBe(200);
    const again = await browser.submit(PEOPLE, PEOPLE, { email: "Twice@Shop.Example", role: "SUPPORT" });
    expect(again.status).toBe(422);
    expect(again.text).toContain("twice@shop.example is one of your people already");
    const bad = await browser.submit(PEOPLE, PEOPLE, { email: "not an address", role: "VIEWER" });
    expect(bad.status).toBe(400);
    const unknownRole = await browser.submit(PEOPLE, PEOPLE, { email: "x@shop.example", role: "OWNER" });
    expect(unknownRole.status).toBe(400);
  });

  it("changes a role: the person's next request has the new one", async () => {
    const partner = await createPartner();
    const { browser: admin } = await personBrowser(partner, "ADMIN");
    const { browser: viewer, person } = await personBrowser(partner, "VIEWER");
    expect((await viewer.get("/console/notifications")).text).toContain("This needs the ADMIN role; yours is VIEWER.");
    const res = await admin.submit(PEOPLE, `${PEOPLE}/${person.id}/role`, { role: "ADMIN" });
    expect(res.status).toBe(200);
    expect(res.text).toContain(`${person.email} is ADMIN now.`);
    expect((await viewer.get(PEOPLE)).status).toBe(200);
    expect((await auditRows(partner.id)).at(-1)).toMatchObject({
      operation: "changeRole",
      subject: `${person.email}: VIEWER → ADMIN`,
      outcome: "SUCCEEDED",
    });
  });

  it("keeps the last ADMIN: neither demoted nor removed", async () => {
    const partner = await createPartner();
    const { browser: admin, person } = await personBrowser(partner, "ADMIN");
    const demoted = await admin.submit(PEOPLE, `${PEOPLE}/${person.id}/role`, { role: "VIEWER" });
    expect(demoted.status).toBe(422);
    expect(demoted.text).toContain("is your last ADMIN");
    const removed = await admin.submit(PEOPLE, `${PEOPLE}/${person.id}/remove`, { confirm: "yes" });
    expect(removed.status).toBe(422);
    expect(await roleOf(person.email)).toBe("ADMIN");
    expect((await auditRows(partner.id)).slice(-2).map((r) => [r.operation, r.outcome, r.code])).toEqual([
      ["changeRole", "REFUSED", "LAST_ADMIN"],
      ["removePerson", "REFUSED", "LAST_ADMIN"],
    ]);
  });

  it("removes a person: their open session is refused on its next request, and they cannot sign in", async () => {
    const partner = await createPartner();
    const { browser: admin } = await personBrowser(partner, "ADMIN");
    const { browser: leaver, person } = await personBrowser(partner, "SUPPORT");
    expect((await leaver.get("/console/applications")).status).toBe(200);
    const withoutConfirm = await admin.submit(PEOPLE, `${PEOPLE}/${person.id}/remove`);
    expect(withoutConfirm.status).toBe(400);
    const res = await admin.submit(PEOPLE, `${PEOPLE}/${person.id}/remove`, { confirm: "yes" });
    expect(res.status).toBe(200);
    expect(res.text).toContain(`${person.email} was removed; their sessions have ended.`);
    for (const path of ["/console/applications", "/console/account"]) {
      const next = await leaver.get(path);
      expect(next.status).toBe(303);
      expect(next.location).toBe("/console/sign-in");
    }
    expect((await signInAs(new ConsoleBrowser(), person)).status).toBe(400);
    expect((await auditRows(partner.id)).at(-1)).toMatchObject({ operation: "removePerson", subject: person.email });
  });

  it("resets a person's sign-in: a new setup link, their sessions end, their password no longer works", async () => {
    const partner = await createPartner();
    const { browser: admin } = await personBrowser(partner, "ADMIN");
    const { browser: lost, person } = await personBrowser(partner, "FINANCE");
    const page = await admin.get(PEOPLE);
    const res = await admin.post(`${PEOPLE}/${person.id}/reset`, {
      ...formFields(page.html, `${PEOPLE}/${person.id}/reset`),
      confirm: "yes",
    });
    expect(res.status).toBe(200);
    expect(res.text).toContain(`Setup link of ${person.email}`);
    expect((await lost.get("/console/applications")).location).toBe("/console/sign-in");
    expect((await signInAs(new ConsoleBrowser(), person)).status).toBe(400);
    expect(await roleOf(person.email)).toBe("FINANCE");
  });

  it("sets what SUPPORT refunds at once, per currency", async () => {
    const partner = await createPartner();
    const { browser } = await personBrowser(partner, "ADMIN");
    const res = await browser.submit(PEOPLE, `${PEOPLE}/refund-limit`, { amount: "500", currency: "czk" });
    expect(res.status).toBe(200);
    expect(res.text).toMatch(/SUPPORT now refunds at most CZK\s500\.00 at once\./);
    await browser.submit(PEOPLE, `${PEOPLE}/refund-limit`, { amount: "20.50", currency: "EUR" });
    const limits = await dbOf(partner)
      .prepare("SELECT support_refund_limits AS limits FROM partners WHERE id = ?")
      .bind(partner.id)
      .first<{ limits: string }>();
    expect(JSON.parse(limits!.limits)).toEqual({ CZK: 50000, EUR: 2050 });
    expect((await browser.submit(PEOPLE, `${PEOPLE}/refund-limit`, { amount: "lots", currency: "CZK" })).status).toBe(
      400,
    );
    expect((await auditRows(partner.id)).filter((r) => r.operation === "setSupportRefundLimit")).toEqual([
      expect.objectContaining({ amount: 50000, currency: "CZK", outcome: "SUCCEEDED" }),
      expect.objectContaining({ amount: 2050, currency: "EUR", outcome: "SUCCEEDED" }),
    ]);
  });
});
