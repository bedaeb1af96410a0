import fc from "fast-check";
import { type Context, Hono } from "hono";
import { HTTPException } from "hono/http-exception";
import { beforeAll, describe, expect, it } from "vitest";
import { documentedRoutes } from "../../build/document";
import { COMPILED_REQUESTS } from "../../generated/validators";
import { type OpenApiRoute, serveRoute } from "../../src/api";
import { ApiError, errorBody } from "../../src/http/errors";
import { jsonBody } from "../../src/http/json-body";
import { loadZod } from "../../src/lazy-schema";

/**
 * A route whose request the build compiled is served by a plain Hono router (`serveRoute`): for any
 * request, it must answer what OpenAPIHono's router answers, in the same order of checks (the query,
 * the path, the headers, the media type, the body) and with zod's refusals. Both serve a handler that
 * answers what the validators gave it, behind the app's JSON body reader or not (then the media-type
 * gate reads the body itself).
 */
const ID = "01JD3Z7Q9K4M2N8P5R6S7T8V9W";

const answerOf = (err: Error, c: Context) => {
  if (err instanceof ApiError) return c.json(errorBody(err, "request"), err.status);
  if (err instanceof HTTPException) return c.json({ status: err.status, message: err.message }, err.status);
  throw err;
};

/** The route served one way or the other, its handler and middleware (a session, the sandbox) set aside. */
async function served(route: OpenApiRoute, compiled: boolean, readBody: boolean) {
  const { middleware: _, ...definition } = route.definition;
  const echo = (c: Context) =>
    c.json({
      query: c.req.valid("query" as never),
      param: c.req.valid("param" as never),
      header: c.req.valid("header" as never),
      json: c.req.valid("json" as never),
    });
  const router = await serveRoute(
    definition,
    echo as never,
    compiled ? COMPILED_REQUESTS[definition.operationId!] : undefined,
  );
  const app = new Hono();
  if (readBody) app.use(jsonBody);
  return app.route("/", router as never).onError(answerOf);
}

const CONTENT_TYPES = [
  undefined,
  "application/json",
  "application/json; charset=utf-8",
  "APPLICATION/JSON",
  "application/vnd.api+json",
  "application/json;",
  "text/plain",
  "application/x-www-form-urlencoded",
];

const HEADERS: Record<string, string>[] = [
  {},
  { "Idempotency-Key": "order-1-send" },
  { "idempotency-key": "" },
  { "IDEMPOTENCY-KEY": "X".repeat(256) },
];

/** A request as text: what the two routers must answer alike. */
interface Sent {
  path: string;
  contentType?: string;
  headers: Record<string, string>;
  body: string;
}

async function answered(app: Hono, method: string, sent: Sent) {
  const headers = new Headers(sent.headers);
  if (sent.contentType) headers.set("Content-Type", sent.contentType);
  const res = await app.request(sent.path, {
    method,
    headers,
    // Bytes: a string would be given a text/plain Content-Type of its own.
    body: sent.body === "" ? undefined : new TextEncoder().encode(sent.body),
  });
  return { status: res.status, body: await res.text() };
}

await loadZod();

describe("a route served by its compiled validators", () => {
  let routes: OpenApiRoute[];
  beforeAll(async () => {
    routes = (await documentedRoutes()).filter((route) => {
      const compiled = COMPILED_REQUESTS[route.definition.operationId ?? ""];
      return compiled?.json !== undefined || compiled?.header !== undefined;
    });
  });

  it("are the writes whose headers and JSON body the build compiled", () => {
    expect(routes.map((route) => route.definition.operationId)).toEqual(
      expect.arrayContaining(["sendItems", "deliverItems", "cancelItems", "login"]),
    );
  });

  it("answers every request as OpenAPIHono's router does: status, refusal and validated values", async () => {
    let compared = 0;
    let accepted = 0;
    for (const route of routes) {
      const example = (route.definition.request!().body?.content["application/json"] as { example?: unknown })?.example;
      const bodies = [
        "",
        " \n",
        "{}",
        "[]",
        "null",
        "{",
        ...(example === undefined ? [] : [JSON.stringify(example)]),
        ...(example && typeof example === "object" && "items" in example
          ? [JSON.stringify({ ...example, items: undefined })]
          : []),
        '{"totalPrice":{"amount":1.5,"currency":"CZK"}}',
        '{"sentDate":"2026-02-29"}',
      ];
      const paths = [ID, "X".repeat(65)].map((id) => route.path.replaceAll(/:[A-Za-z]+/g, id));
      const apps = await Promise.all(
        [true, false].flatMap((readBody) => [served(route, true, readBody), served(route, false, readBody)]),
      );
      const compare = async (sent: Sent) => {
        for (let i = 0; i < apps.length; i += 2) {
          const compiled = await answered(apps[i]!, route.method, sent);
          const byZod = await answered(apps[i + 1]!, route.method, sent);
          expect({ sent, answer: compiled }).toEqual({ sent, answer: byZod });
          compared++;
          if (compiled.status === 200) accepted++;
        }
      };
      for (const path of paths) {
        for (const contentType of CONTENT_TYPES) {
          for (const headers of HEADERS) {
            for (const body of bodies) await compare({ path, contentType, headers, body });
          }
        }
      }
      // Any JSON, and the example with one field changed to any JSON.
      const changed = fc
        .tuple(fc.constantFrom(...Object.keys((example as object) ?? {}), "other"), fc.jsonValue({ maxDepth: 3 }))
        .map(([key, value]) => ({ ...(example as object), [key]: value }));
      await fc.assert(
        fc.asyncProperty(fc.oneof(fc.jsonValue({ maxDepth: 3 }), changed), async (value) => {
          await compare({ path: paths[0]!, contentType: "application/json", headers: {}, body: JSON.stringify(value) });
        }),
        { numRuns: 100 },
      );
    }
    expect(compared).toBeGreaterThan(10_000);
    // Not only refusals: valid requests reached the handler with what the validators gave it.
    expect(accepted).toBeGreaterThan(500);
  });
});
