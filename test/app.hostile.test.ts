/**
 * Hostile input on every route, as a property (issue: bounded work per request): deep, wide, huge
 * arrays, lone surrogates everywhere, long strings in every field, and text that is not JSON, sent
 * with and without a token. Whatever the shape, the answer is never a 5xx, never larger than 64 KB,
 * and a refusal changes nothing the partner owns.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { openApiDocument } from "../build/document";
import { MAX_DEPTH } from "../src/http/json-body";
import { call, signIn } from "./support/api";
import { applicationRequest, createApplication, forceState } from "./support/factories";
import { hiddenFields, openGateway, postGateway } from "./support/gateway";
import { dbOf, dbOfApplication } from "./support/shards";

const MAX_ANSWER_BYTES = 64 * 1024;

/** Every operation of the document, with a body that would be valid for it (the base the shapes distort). */
const OPERATIONS = Object.entries((await openApiDocument()).paths ?? {}).flatMap(([path, methods]) =>
  Object.keys(methods ?? {}).map((method) => ({ method: method.toUpperCase(), path })),
);

const SURROGATE = "\ud800";

function validBody(method: string, path: string): Record<string, unknown> {
  if (path === "/authentication/v1/partner") return { username: "nobody", password: "wrong-password" };
  if (path === "/financing/v1/applications") return applicationRequest();
  if (path.endsWith("/order")) return { reason: "cart", order: applicationRequest().order };
  if (path.endsWith("/refunds")) return { totalPrice: { amount: 100, currency: "CZK" }, reason: "goodwill" };
  if (path.endsWith("/replay")) return { status: "FAILED", from: "2026-01-01T00:00:00Z" };
  if (path.endsWith("/cancel")) return { reason: "APPLICATION_CANCELLED_BY_CUSTOMER" };
  if (path.includes("/order/")) {
    return {
      items: [{ code: "KB-01", name: "Mechanical keyboard", quantity: 1 }],
      totalPrice: { amount: 76000, currency: "CZK" },
      totalVat: [{ vatRate: 21, amount: 13190, currency: "CZK" }],
      variableSymbol: "123",
    };
  }
  return method === "GET" ? {} : { note: "x" };
}

/** Every string (and key) of a value replaced by `f` of it. */
function mapStrings(value: unknown, f: (s: string) => string): unknown {
  if (typeof value === "string") return f(value);
  if (Array.isArray(value)) return value.map((v) => mapStrings(v, f));
  if (value !== null && typeof value === "object") {
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [f(k), mapStrings(v, f)]));
  }
  return value;
}

type Shape = (base: Record<string, unknown>) => string;

const shapes: fc.Arbitrary<{ name: string; make: Shape }> = fc.oneof(
  fc
    .record({ depth: fc.integer({ min: MAX_DEPTH - 2, max: 20_000 }), opener: fc.constantFrom("[", '{"a":') })
    .map(({ depth, opener }) => ({
      name: `deep ${depth}`,
      make: () => `${opener.repeat(depth)}"${SURROGATE}"${(opener === "[" ? "]" : "}").repeat(depth)}`,
    })),
  fc.integer({ min: 1_000, max: 300_000 }).map((keys) => ({
    name: `wide ${keys}`,
    make: () => `{${Array.from({ length: keys }, (_, i) => `"k${i}":"\\ud800"`).join(",")}}`,
  })),
  fc
    .record({
      at: fc.constantFrom("items", "totalVat", "order", "categories", "variableSymbols"),
      length: fc.constantFrom(101, 5_000, 1_000_000),
      element: fc.constantFrom("{}", '"\\ud800"', "0", "[]"),
    })
    .map(({ at, length, element }) => ({
      name: `${length} × ${element} at ${at}`,
      make: (base: Record<string, unknown>) => {
        const huge = `[${Array(length).fill(element).join(",")}]`;
        const order = base.order as Record<string, unknown> | undefined;
        if (order && at !== "order") {
          const json = JSON.stringify({ ...base, order: { ...order, [at]: "@@" } });
          return json.replace('"@@"', huge);
        }
        return JSON.stringify({ ...base, [at]: "@@" }).replace('"@@"', huge);
      },
    })),
  fc.constant({
    name: "surrogates everywhere",
    make: (base: Record<string, unknown>) => JSON.stringify(mapStrings(base, (s) => `${s}${SURROGATE}`)),
  }),
  fc.constantFrom(1_000, 100_000, 1_000_000).map((length) => ({
    name: `every string ${length} long`,
    make: (base: Record<string, unknown>) =>
      JSON.stringify(mapStrings(base, (s) => s.padEnd(Math.min(length, 9_000_000 / 40), "é"))),
  })),
  fc.constantFrom("{", "not json", "[1,2", '{"a":1}}', "\u0000", "").map((text) => ({
    name: `text ${JSON.stringify(text)}`,
    make: () => text,
  })),
);

/** What the partner owns, in numbers: a refusal must leave every one of them as it was. */
async function holdings(partnerId: string) {
  return (await dbOf(partnerId))
    .prepare(
      `SELECT
       (SELECT COUNT(*) FROM applications WHERE partner_id = ?1) AS applications,
       (SELECT COALESCE(SUM(version), 0) FROM applications WHERE partner_id = ?1) AS versions,
       (SELECT COUNT(*) FROM events WHERE partner_id = ?1) AS events,
       (SELECT COUNT(*) FROM order_lines l JOIN applications a ON a.id = l.application_id WHERE a.partner_id = ?1) AS lines,
       (SELECT COUNT(*) FROM refunds r JOIN applications a ON a.id = r.application_id WHERE a.partner_id = ?1) AS refunds,
       (SELECT COUNT(*) FROM documents d JOIN applications a ON a.id = d.application_id WHERE a.partner_id = ?1) AS documents,
       (SELECT signing_secret_ciphertext FROM partners WHERE id = ?1) AS secret`,
    )
    .bind(partnerId)
    .first();
}

async function answerSize(res: Response): Promise<number> {
  return new TextEncoder().encode(await res.text()).length;
}

describe("every route under hostile input", () => {
  it("never answers 5xx or more than 64 KB, and a refusal changes nothing", async () => {
    const { partner, token } = await signIn();
    const app = await createApplication(token);
    await forceState(app.id, "READY", "READY_TO_SHIP");
    const target = (path: string) =>
      path
        .replace("{applicationId}", app.id)
        .replace("{eventId}", "01JD3Z7Q9K4M2N8P5R6S7T8V9W")
        .replace("{documentId}", "x");

    await fc.assert(
      fc.asyncProperty(fc.constantFrom(...OPERATIONS), shapes, fc.boolean(), async (operation, shape, withToken) => {
        const before = await holdings(partner.id);
        const body = shape.make(validBody(operation.method, operation.path));
        const path = target(operation.path);
        // GET and DELETE take no body: the shape goes into the query instead (as much as a URL holds),
        // ending in bytes that are no UTF-8.
        const query = `${encodeURIComponent(body.slice(0, 8_000).replace(/\p{Surrogate}/gu, ""))}%ED%A0%80%FF`;
        const res =
          operation.method === "GET" || operation.method === "DELETE"
            ? await call(operation.method, `${path}?filter=${query}&sort=${query}`, withToken ? { token } : {})
            : await call(operation.method, path, { body, ...(withToken ? { token } : {}) });
        const where = `${operation.method} ${operation.path} with ${shape.name}`;
        expect(res.status, where).toBeLessThan(500);
        expect(await answerSize(res), where).toBeLessThanOrEqual(MAX_ANSWER_BYTES);
        if (res.status >= 400) expect(await holdings(partner.id), where).toEqual(before);
      }),
      { numRuns: 80 },
    );
  }, 300_000);

  it("the customer's gateway form too: never a 5xx, never a decision from a hostile form", async () => {
    const { token } = await signIn();
    const app = await createApplication(token);
    // The form's own token goes along, so that only the hostile fields stand between it and a decision.
    const shown = hiddenFields((await openGateway(app.gatewayRedirectUrl)).html);
    expect(Object.keys(shown)).toEqual(["offer"]);
    await fc.assert(
      fc.asyncProperty(
        fc.oneof(
          fc
            .integer({ min: 1, max: 200_000 })
            .map((n) => Object.fromEntries(Array.from({ length: n }, (_, i) => [`f${i}`, "x"]))),
          fc.constantFrom(1_000, 1_000_000).map((n) => ({ action: "x".repeat(n), agreement: SURROGATE.repeat(10) })),
          fc.constant({ action: ["confirm", "cancel"].join(SURROGATE) }),
        ),
        async (fields) => {
          const res = await postGateway(app.gatewayRedirectUrl, { ...shown, ...(fields as Record<string, string>) });
          expect(res.status).toBeLessThan(500);
          expect(await answerSize(res)).toBeLessThanOrEqual(MAX_ANSWER_BYTES);
          const stored = await (await dbOfApplication(app.id))
            .prepare("SELECT state FROM applications WHERE id = ?")
            .bind(app.id)
            .first();
          expect(stored).toEqual({ state: "PROCESSING" });
        },
      ),
      { numRuns: 15 },
    );
  }, 120_000);
});
