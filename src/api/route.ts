/**
 * How an operation of the API is defined and served: `openApiRoute` takes `createRoute`'s definition
 * and the handler; the build documents it (build/document.ts) and compiles its request's validators
 * (build/request-compiler.ts); the app mounts it on its first request (./mount.ts), served by
 * `serveRoute` with those validators, or by OpenAPIHono's own.
 */
import type { RouteConfig, RouteHandler } from "@hono/zod-openapi";
import { type Context, Hono, type Next } from "hono";
import { createMiddleware } from "hono/factory";
import { HTTPException } from "hono/http-exception";
import { validator } from "hono/validator";
import type { HonoEnv } from "../env";
import { ApiError, zodProblems } from "../http/errors";
import { loadZod, type z } from "../lazy-schema";
import { COMPILED_PARTS, type CompiledRequest, UNSURE } from "./compiled-request";
import { answerInProfile, readInProfile } from "./wire";

/**
 * Every router that validates through zod is an OpenAPIHono built here, so that a validation failure of
 * any route (body, query or path) becomes the contract's 400 envelope with one `errors[]` entry per problem.
 */
export async function router() {
  const { OpenAPIHono } = await loadZod();
  return new OpenAPIHono<HonoEnv>({
    defaultHook: (result) => {
      // @hono/zod-validator passes the raw input as `data`, so that missing values can be told apart.
      if (!result.success) throw ApiError.of(zodProblems(result.error, "data" in result ? result.data : undefined));
    },
  });
}

/** The registry the document is built in. */
export type OpenApiRegistry = Awaited<ReturnType<typeof router>>["openAPIRegistry"];

/**
 * What `createRoute` takes, with the parts only some callers need given as functions: the request's
 * schemas (built on the route's first request, then validating every request) and the responses
 * (built only for the document).
 */
export type RouteDefinition = Omit<RouteConfig, "request" | "responses"> & {
  request?: () => NonNullable<RouteConfig["request"]>;
  responses: () => RouteConfig["responses"];
};

/** The `createRoute` config a definition stands for: what types the handler. */
type Defined<D extends RouteDefinition> = Omit<D, "request" | "responses"> & {
  request: D["request"] extends () => infer R ? (R extends NonNullable<RouteConfig["request"]> ? R : never) : undefined;
  responses: D["responses"] extends () => infer R ? (R extends RouteConfig["responses"] ? R : never) : never;
};

/** A route of the API, mounted on its first request (src/api/mount.ts). */
export interface OpenApiRoute {
  /** The HTTP method, upper case, and the path as Hono routes it (`:param`). */
  method: string;
  path: string;
  /** What defines it: the build compiles its request's validators from it (build/request-compiler.ts). */
  definition: RouteDefinition;
  /** The route's router with its validators: what serves it. */
  serve(): Promise<Hono<HonoEnv>>;
  /** Registers the route with its responses: what documents it. */
  document(registry: OpenApiRegistry): Promise<void>;
}

/**
 * The one way to define an operation: `createRoute`'s definition and the handler. The document gets the
 * definition with its responses. Serving it builds the router `OpenAPIHono.openapi` would (its
 * validators and media-type checks, our `defaultHook`), unless the build compiled the route's request
 * validators (generated/validators.ts): then a plain Hono router checks the request with them
 * (`serveRoute`) and loads zod only for a request they are not sure of, to read it or say why it is
 * refused exactly as zod's validator would (the same parse, the same hook), so a cold isolate's first
 * request to the route does not evaluate zod.
 */
export function openApiRoute<D extends RouteDefinition>(
  definition: D,
  handler: RouteHandler<Defined<D>, HonoEnv>,
): OpenApiRoute {
  const { method, path } = addressOf(definition);
  // The handler names the operation the request reached, for the audit log (src/api/audit.ts).
  const named = ((c: Context<HonoEnv>, next: Next) => {
    c.set("operationId", definition.operationId);
    return (handler as unknown as (c: Context<HonoEnv>, next: Next) => unknown)(c, next);
  }) as never;
  return {
    method,
    path,
    definition,
    serve: async () => {
      const { COMPILED_REQUESTS } = await import("../../generated/validators");
      return serveRoute(definition, named, COMPILED_REQUESTS[definition.operationId ?? ""]);
    },
    document: async (registry) => {
      // As `OpenAPIHono.openapi` registers it: the route's middleware serves, it does not document.
      const { middleware: _, ...documented } = await routeConfig(definition, definition.responses());
      registry.registerPath(documented);
    },
  };
}

/**
 * The router that serves a route: with its compiled validators (`compiled`), a plain Hono router that
 * checks the request as OpenAPIHono would, in its order (query, path, headers, the media type, the JSON
 * body), and asks zod only of a request they are not sure of; without them, OpenAPIHono's own.
 */
export async function serveRoute(
  definition: RouteDefinition,
  handler: RouteHandler<never, HonoEnv>,
  compiled: CompiledRequest | undefined,
): Promise<Hono<HonoEnv>> {
  const { request, responses: _, ...rest } = definition;
  // The wire profile of the session's partner, at the edge: its request read into ours, our answer into its.
  const operationId = definition.operationId ?? "";
  const served = answerInProfile(operationId, handler as never) as never;
  const middleware = [...(rest.middleware ? [rest.middleware].flat() : []), readInProfile(operationId)];
  if (!compiled) {
    // Hidden: a served route needs no document entry, and has no responses to put in one.
    const config = await routeConfig(definition, {});
    return (await router()).openapi({ ...config, middleware, hide: true }, served);
  }
  const byZod = async (part: CompiledPart, value: unknown) => {
    await loadZod();
    const schema = partSchema(request!(), part);
    // As @hono/zod-validator gives zod the headers: each under its name as the schema spells it.
    const input = part === "headers" ? underSchemaNames(schema, value) : value;
    const result = await schema.safeParseAsync(input);
    if (!result.success) throw ApiError.of(zodProblems(result.error, input));
    return result.data;
  };
  const validators = COMPILED_PARTS.flatMap(([target, part]) => {
    const check = compiled[target];
    if (!check) return [];
    const validate = validator(target, async (value) => {
      const checked = check(value);
      return checked === UNSURE ? await byZod(part, value) : checked;
    });
    return target === "json" ? [jsonMediaType, validate] : [validate];
  });
  const { method, path } = addressOf(definition);
  return new Hono<HonoEnv>().on([method], [path], ...middleware, ...validators, served);
}

/** The `createRoute` config a definition stands for, with `responses`: what OpenAPIHono serves and documents. */
async function routeConfig(definition: RouteDefinition, responses: RouteConfig["responses"]) {
  const { request, responses: _, ...rest } = definition;
  const { createRoute } = await loadZod();
  return createRoute({ ...rest, ...(request ? { request: request() } : {}), responses });
}

/** The method (upper case) and the path as Hono routes it (`:param`) of a route's definition. */
const addressOf = (definition: RouteDefinition) => ({
  method: definition.method.toUpperCase(),
  path: definition.path.replaceAll(/\/{(.+?)}/g, "/:$1"),
});

type CompiledPart = (typeof COMPILED_PARTS)[number][1];

/** The zod schema of a request part (of the body, its JSON content's). */
const partSchema = (request: NonNullable<RouteConfig["request"]>, part: CompiledPart) =>
  (part === "body"
    ? (request.body?.content["application/json"] as { schema: unknown } | undefined)?.schema
    : request[part]) as z.ZodType;

/** The headers, each under the schema's spelling of its name where the schema has it (Hono's are lower case). */
function underSchemaNames(schema: z.ZodType, headers: unknown) {
  const names = new Map(Object.keys((schema as unknown as { shape: object }).shape).map((n) => [n.toLowerCase(), n]));
  return Object.fromEntries(Object.entries(headers as object).map(([name, value]) => [names.get(name) ?? name, value]));
}

/** What OpenAPIHono's `matchesMediaType` accepts for `application/json`. */
const JSON_REQUEST = /^application\/([a-z-.]+\+)?json(;\s*[a-zA-Z0-9-]+=([^;]+))*$/i;

/**
 * OpenAPIHono's media-type gate of a JSON body: a Content-Type other than JSON, or a body without one,
 * is answered 415 before the body is validated.
 */
const jsonMediaType = createMiddleware<HonoEnv>(async (c, next) => {
  const contentType = c.req.header("content-type");
  if (contentType ? !JSON_REQUEST.test(contentType) : await hasRequestBody(c.req.raw, c)) {
    throw new HTTPException(415, { message: "Unsupported Media Type" });
  }
  await next();
});

/** Whether the request has a body of at least one byte, as OpenAPIHono's gate reads it. */
async function hasRequestBody(raw: Request, c: { req: { arrayBuffer(): Promise<ArrayBuffer> } }) {
  if (raw.body === null) return false;
  if (raw.bodyUsed) return (await c.req.arrayBuffer()).byteLength > 0;
  const body = raw.clone().body;
  if (body === null) return false;
  const reader = body.getReader();
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) return false;
      if (value.byteLength > 0) return true;
    }
  } finally {
    reader.cancel().catch(() => {});
  }
}
