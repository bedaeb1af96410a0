import { createExecutionContext, SELF, waitOnExecutionContext } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { afterAll, beforeAll } from "vitest";
import { createApp } from "../../src/app";
import { hashPassword, newSigningSecret, randomSecret, sealSecret } from "../../src/auth/crypto";
import type { Env } from "../../src/config";
import { everyShard, shardBinding } from "../../src/db/shards";
import type { WireProfile } from "../../src/domain/wire-profile";
import { newId } from "../../src/ids";
import { expectDocumented } from "./openapi-check";

export const BASE = "http://api.test";

/**
 * PBKDF2 iterations of the passwords the tests store (the service's own are PBKDF2_ITERATIONS; the
 * count is in the hash): each sign-in would otherwise derive two keys of 100,000 iterations, about a
 * tenth of the suite's CPU over its hundreds of sign-ins. The login's own tests store theirs as the
 * service does.
 */
export const TEST_PASSWORD_ITERATIONS = 1_000;

/** Variables (and bindings) a request overrides: what the Worker's env holds, by name. */
export type Vars = { readonly [name: string]: unknown };

export interface CallOptions {
  token?: string;
  /** A value is sent as JSON; a string as it is. */
  body?: unknown;
  headers?: Record<string, string>;
  /** Variables to override for this request only (goes through the same app with a modified env). */
  vars?: Vars;
  /** The wire profile of the token's partner: which document the answer is checked against (ours by default). */
  wire?: WireProfile;
}

/** One request through the Worker's real entry point (or the same app with overridden variables). */
export async function call(method: string, path: string, options: CallOptions = {}): Promise<Response> {
  const headers: Record<string, string> = { ...options.headers };
  if (options.token) headers.Authorization = `Bearer ${options.token}`;
  let body: string | undefined;
  if (options.body !== undefined) {
    body = typeof options.body === "string" ? options.body : JSON.stringify(options.body);
    headers["Content-Type"] ??= "application/json";
  }
  const url = path.startsWith("http") ? path : `${BASE}${path}`;
  return send(url, { method, headers, body }, options.vars, options.wire);
}

/**
 * The request through the Worker's real entry point, or, with `vars`, through the same app with those
 * variables overriding the environment (waiting for its waitUntil work, as the runtime would).
 */
export async function send(
  url: string,
  init: RequestInit,
  vars?: Vars,
  wire: WireProfile = "DEFAULT",
): Promise<Response> {
  let res: Response;
  if (vars) {
    const ctx = createExecutionContext();
    const worker = withVars(vars);
    res = await worker.app.request(url, init, worker.env, ctx);
    await waitOnExecutionContext(ctx);
  } else {
    res = await SELF.fetch(url, init);
  }
  // Every answer the suite receives must be the one its partner's document promises: ours, or Skip Pay's
  // (loaded only by the files that need it).
  if (wire === "SKIP_PAY") {
    await (await import("./skippay-check")).expectSkipPayAnswer(init.method ?? "GET", url, res);
  } else await expectDocumented(init.method ?? "GET", url, res);
  return res;
}

/**
 * One app and one environment per distinct set of variables, as a deployed isolate keeps one of each:
 * its route modules are mounted once and its config parsed once, not on every request. Variables are
 * compared by value, bindings (a faulty D1, a counting namespace) by identity.
 */
const workers = new Map<string, { app: ReturnType<typeof createApp>; env: Env }>();
const bindingIds = new WeakMap<object, number>();
let lastBindingId = 0;

function withVars(vars: Vars) {
  const key = JSON.stringify(
    Object.entries(vars)
      .sort(([a], [b]) => (a < b ? -1 : 1))
      .map(([name, value]) => [name, typeof value === "object" && value !== null ? { binding: idOf(value) } : value]),
  );
  let worker = workers.get(key);
  if (!worker) {
    worker = { app: createApp(), env: { ...env, ...vars } };
    workers.set(key, worker);
  }
  return worker;
}

function idOf(binding: object): number {
  let id = bindingIds.get(binding);
  if (id === undefined) {
    id = ++lastBindingId;
    bindingIds.set(binding, id);
  }
  return id;
}

export interface TestPartner {
  id: string;
  /** Its shard (src/db/shards.ts): its rows are in `dbOf(partner)` (test/support/shards.ts). */
  shard: number;
  username: string;
  password: string;
  apiKey: string;
  /** The Standard Webhooks secret, `whsec_…`. */
  signingSecret: string;
}

export interface PartnerOptions {
  /** The shapes the partner is answered in (src/wire); DEFAULT unless given. */
  wireProfile?: WireProfile;
  /** Its shard; unless given, the next in turn. */
  shard?: number;
}

/** How many partners were placed: they take the shards in turn. */
let placed = 0;
/** The one shard of the file's partners, when it pinned them (partnersOnShard). */
let pinned: number | undefined;

/**
 * For a file that tests SQL on one binding directly (src/db/ and its callers on `env.DB`, as shard 0):
 * its partners all go to `shard`, until the file ends. Which shard a request reaches is the routing's
 * own test (test/db/shards.test.ts); everything that goes through a request keeps partners in turn.
 */
export function partnersOnShard(shard: number): void {
  beforeAll(() => {
    pinned = shard;
  });
  afterAll(() => {
    pinned = undefined;
  });
}

/**
 * A partner of its own for every test, so tests never depend on each other's data. Partners take the
 * shards in turn (wrangler.toml binds two), so that every test runs with partners on both and goes
 * through the routing (src/db/shards.ts): its whole row on its shard and, for a shard other than 0, its
 * identity in the directory, as `npm run partner:create` writes them.
 */
export async function createPartner(options: PartnerOptions = {}): Promise<TestPartner> {
  const shard = options.shard ?? pinned ?? placed++ % everyShard(env).length;
  const partner = {
    id: newId(),
    shard,
    username: `partner-${newId().toLowerCase()}`,
    password: randomSecret(12),
    apiKey: randomSecret(24),
    signingSecret: newSigningSecret(),
  };
  const passwordHash = await hashPassword(partner.password, env.AUTH_PEPPER, TEST_PASSWORD_ITERATIONS);
  const wireProfile = options.wireProfile ?? "DEFAULT";
  const insert = `INSERT INTO partners (id, username, display_name, password_hash, api_key_ciphertext,
    signing_secret_ciphertext, wire_profile, shard, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`;
  const identity = [partner.id, partner.username, `Shop ${partner.username}`, passwordHash] as const;
  if (shard !== 0) {
    await env.DB.prepare(insert)
      .bind(...identity, "", null, wireProfile, shard, Date.now())
      .run();
  }
  await shardBinding(env, shard)
    .prepare(insert)
    .bind(
      ...identity,
      await sealSecret(partner.apiKey, env.AUTH_PEPPER, "api-key"),
      await sealSecret(partner.signingSecret, env.AUTH_PEPPER, "signing-secret"),
      wireProfile,
      shard,
      Date.now(),
    )
    .run();
  return partner;
}

export async function login(partner: TestPartner): Promise<string> {
  const res = await call("POST", "/authentication/v1/partner", {
    body: { username: partner.username, password: partner.password },
  });
  if (res.status !== 200) throw new Error(`login failed: ${res.status} ${await res.text()}`);
  return ((await res.json()) as { accessToken: string }).accessToken;
}

/** A new partner and a token of theirs. */
export async function signIn(options: PartnerOptions = {}): Promise<{ partner: TestPartner; token: string }> {
  const partner = await createPartner(options);
  return { partner, token: await login(partner) };
}

export async function json<T = Record<string, unknown>>(res: Response): Promise<T> {
  return (await res.json()) as T;
}

export const isRequestId = (value: unknown) => typeof value === "string" && value.length > 0;
