import { createExecutionContext, SELF, waitOnExecutionContext } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { createApp } from "../../src/app";
import { hashPassword, newSigningSecret, randomSecret, sealSecret } from "../../src/auth/crypto";
import type { Env } from "../../src/config";
import type { WireProfile } from "../../src/domain/wire-profile";
import { newId } from "../../src/ids";
import { expectDocumented } from "./openapi-check";

export const BASE = "http://api.test";

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
  username: string;
  password: string;
  apiKey: string;
  /** The Standard Webhooks secret, `whsec_…`. */
  signingSecret: string;
}

export interface PartnerOptions {
  /** The shapes the partner is answered in (src/wire); DEFAULT unless given. */
  wireProfile?: WireProfile;
}

/** A partner of its own for every test, so tests never depend on each other's data. */
export async function createPartner(options: PartnerOptions = {}): Promise<TestPartner> {
  const partner = {
    id: newId(),
    username: `partner-${newId().toLowerCase()}`,
    password: randomSecret(12),
    apiKey: randomSecret(24),
    signingSecret: newSigningSecret(),
  };
  await env.DB.prepare(
    `INSERT INTO partners (id, username, display_name, password_hash, api_key_ciphertext, signing_secret_ciphertext,
       wire_profile, created_at)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?)`,
  )
    .bind(
      partner.id,
      partner.username,
      `Shop ${partner.username}`,
      await hashPassword(partner.password, env.AUTH_PEPPER),
      await sealSecret(partner.apiKey, env.AUTH_PEPPER, "api-key"),
      await sealSecret(partner.signingSecret, env.AUTH_PEPPER, "signing-secret"),
      options.wireProfile ?? "DEFAULT",
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
