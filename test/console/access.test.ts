import { describe, expect, it } from "vitest";
import { accessOf } from "../../src/console/access";
import { consoleRoutes } from "../../src/console/index";
import { allows, ROLES } from "../../src/domain/roles";
import { createPartner, signIn } from "../support/api";
import { formFields } from "../support/console";
import { shippedWithTotal } from "../support/orders";
import { auditRows, personBrowser } from "../support/people";

/** The pages that need no session: signing in and setting up. */
const OPEN = [/^\/console\/sign-in$/, /^\/console\/setup\//, /^\/console$/, /^\/console\/\*$/];

describe("the console's access table", () => {
  it("lists every signed-in page and action of the console's router", () => {
    const routes = consoleRoutes.routes.filter((r) => r.method !== "ALL" && !OPEN.some((open) => open.test(r.path)));
    expect(routes.length).toBeGreaterThan(15);
    for (const { method, path } of routes) {
      const concrete = path.replace(/:(\w+)(\{[^}]*\})?/g, (_, name) =>
        name === "action" ? "refund" : name === "change" ? "role" : "X",
      );
      expect(accessOf(method, concrete), `${method} ${path}`).not.toBeNull();
    }
  });

  it("refuses a path it does not list, whatever the role", () => {
    expect(accessOf("GET", "/console/secret-admin-page")).toBeNull();
    expect(accessOf("POST", "/console/applications/X/explode")).toBeNull();
  });
});

/** Every action the console has, as a crafted POST would send it (with the session's CSRF token). */
const ACTIONS = (applicationId: string, eventId: string) =>
  [
    ["refund", `/console/applications/${applicationId}/refund`, { amount: "1.00", once: "a".repeat(22) }],
    ["cancel", `/console/applications/${applicationId}/cancel`, { once: "b".repeat(22) }],
    ["send", `/console/applications/${applicationId}/send`, { once: "c".repeat(22) }],
    ["extend", `/console/applications/${applicationId}/extend`, { once: "d".repeat(22) }],
    ["resend", `/console/applications/${applicationId}/notifications/${eventId}/resend`, { once: "e".repeat(22) }],
    ["replay", "/console/notifications/replay", { from: "2026-01-01T00:00", once: "f".repeat(22) }],
    ["rotate", "/console/notification-secret/rotate", { once: "g".repeat(22) }],
    ["people", "/console/people", { email: "crafted@shop.example", role: "ADMIN", once: "h".repeat(22) }],
    ["people", "/console/people/refund-limit", { amount: "1000000", currency: "CZK" }],
  ] as const;

describe("a role that lacks a capability", () => {
  for (const role of ROLES.filter((r) => r !== "ADMIN")) {
    it(`${role}: a crafted POST of each action it may not do, with a valid CSRF token, is 403 naming the role, recorded, nothing done`, async () => {
      const { partner, token } = await signIn();
      const applicationId = await shippedWithTotal(token, 100000);
      const { browser } = await personBrowser(partner, role);
      const csrf = formFields((await browser.get("/console/applications")).html, "/console/sign-out").csrf!;
      const eventId = "01JZZZZZZZZZZZZZZZZZZZZZZZ";
      let refused = 0;
      for (const [capability, path, fields] of ACTIONS(applicationId, eventId)) {
        if (allows(role, capability)) continue;
        const res = await browser.post(path, { csrf, ...fields });
        expect(res.status, path).toBe(403);
        expect(res.text).toContain(
          `This needs the ${capability === "people" || capability === "replay" || capability === "rotate" ? "ADMIN" : "SUPPORT"} role; yours is ${role}.`,
        );
        refused++;
      }
      const rows = (await auditRows(partner.id)).filter((r) => r.outcome === "REFUSED");
      expect(rows).toHaveLength(refused);
      expect(rows.every((r) => r.code === "FORBIDDEN" && r.actor_type === "PERSON")).toBe(true);
      // Nothing was done: no refund, no person, the application as it was.
      expect((await browser.get(`/console/applications/${applicationId}`)).text).toMatch(/Refunded CZK 0\.00/);
    });
  }

  it("VIEWER and FINANCE: the pages they may not open are 403, the navigation does not offer them", async () => {
    const partner = await createPartner();
    for (const role of ["VIEWER", "FINANCE"] as const) {
      const { browser } = await personBrowser(partner, role);
      for (const path of ["/console/people", "/console/audit"]) {
        const res = await browser.get(path);
        expect(res.status).toBe(403);
        expect(res.text).toContain(`This needs the ADMIN role; yours is ${role}.`);
      }
      const list = await browser.get("/console/applications");
      expect(list.html).not.toContain('href="/console/people"');
      expect(list.html).toContain('href="/console/account"');
    }
  });
});
