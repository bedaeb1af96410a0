/**
 * The scenarios: the API's requests (create, get, the list's first and deep pages, send, refund, login)
 * and the floors, with the ids, tokens and cursors they need from the seeded database; and the cost
 * samples (D1 round trips and statements, object calls, and the SQL itself) taken on the counting
 * instance.
 */
import type { Miniflare } from "miniflare";
import { config } from "./config";
import { createBody } from "./create-body";
import { type Captured, type FloorKey, floorName } from "./floors";
import type { LoadSpec } from "./load";
import type { Base, SeedMeta, Urls } from "./runtime";
import { PARTNERS } from "./seed";

export type Kind = "floor" | "create" | "get" | "list" | "send" | "refund" | "login";

export interface Scenario extends Omit<LoadSpec, "url"> {
  base: Base;
  kind: Kind;
  /** The floor this scenario is, if it is one. */
  floor?: FloorKey;
  /** Its fair floor: run just before it in every round, and the ratios are taken against it. */
  fair?: FloorKey;
  /**
   * A reference floor beside the fair one: it runs with the scenario, and the target's row also gives the
   * ratio to it (create: its fair floor plus the queue send create makes, which the fair floor leaves out).
   */
  reference?: FloorKey;
  /** List scenarios: the rows of the partner ("1k" or "100k") and the page ("first" or "deep" …). */
  page?: { size: "1k" | "100k"; variant: string };
  /** Paths for the cost samples when the load paths must stay untouched (send, refund). */
  samplePaths?: string[];
  /**
   * Sliced scenarios whose request may be made again on the same id once a thread has used all of its
   * own (refund: a further refund of 1 is the same request, the ledger allows it until the financed
   * total is refunded). Send may not: a second send of an order is refused.
   */
  repeatable?: boolean;
}

export interface Cost {
  statuses: number[];
  roundTrips: number[];
  statements: number[];
  objectCalls: number[];
  /** The D1 calls of the first sample, as bench/capture.js recorded them. */
  captured?: Captured[];
}

const FILTER_READY = "filter=state%7Ceq%7CREADY";

async function login(base: string, username: string, password: string): Promise<string> {
  const res = await fetch(`${base}/authentication/v1/partner`, {
    method: "POST",
    headers: { "Content-Type": "application/json" },
    body: JSON.stringify({ username, password }),
  });
  const body = (await res.json()) as { accessToken?: string };
  if (res.status !== 200 || !body.accessToken)
    throw new Error(`login ${username}: ${res.status} ${JSON.stringify(body)}`);
  return body.accessToken;
}

/** Every scenario, in the order of a round: each fair floor just before the scenario it is the floor of. */
export async function scenarios(mf: Miniflare, meta: SeedMeta, urls: Urls): Promise<Scenario[]> {
  const db = await mf.getD1Database("DB");
  await db.prepare("DROP TABLE IF EXISTS bench_scratch").run();
  await db
    .prepare(
      "CREATE TABLE bench_scratch (id INTEGER PRIMARY KEY AUTOINCREMENT, payload TEXT NOT NULL, created_at INTEGER NOT NULL)",
    )
    .run();
  const partner = (username: string) => meta.partners.find((p) => p.username === username)!;
  const partnerId = async (username: string) =>
    (await db.prepare("SELECT id FROM partners WHERE username = ?").bind(username).first<{ id: string }>())!.id;
  const ids = async (query: string, ...bind: unknown[]) =>
    (
      await db
        .prepare(query)
        .bind(...bind)
        .all<{ id: string }>()
    ).results.map((r) => r.id);

  const large = await partnerId(PARTNERS.large);
  const writer = await partnerId(PARTNERS.writer);
  const archivedIds = await archived(
    mf,
    db,
    await ids(
      "SELECT id FROM applications WHERE partner_id = ? AND state IN ('REJECTED', 'CANCELLED') ORDER BY random() LIMIT ?",
      large,
      ARCHIVED,
    ),
  );
  const archivedSet = new Set(archivedIds);
  // The get of live applications reads none of the archived ones.
  const getIds = (
    await ids("SELECT id FROM applications WHERE partner_id = ? ORDER BY random() LIMIT 20000", large)
  ).filter((id) => !archivedSet.has(id));
  const ready = (reason: string) =>
    ids(
      "SELECT id FROM applications WHERE partner_id = ? AND state = 'READY' AND state_reason = ? ORDER BY random() LIMIT 20000",
      large,
      reason,
    );
  // Refunds only of what went out (CONTRACT 5): the refunds go to applications whose items were sent.
  const sendIds = await ready("READY_TO_SHIP");
  const refundIds = await ready("READY_SHIPPED");

  const tokens: Record<string, string> = {};
  for (const username of [PARTNERS.small, PARTNERS.large, PARTNERS.writer]) {
    tokens[username] = await login(urls.api, username, partner(username).password);
  }

  const list = "/financing/v1/applications";
  const lists: Scenario[] = [];
  for (const [size, username] of [
    ["1k", PARTNERS.small],
    ["100k", PARTNERS.large],
  ] as const) {
    const pid = await partnerId(username);
    const count = partner(username).applications;
    const readyCount = (await db
      .prepare("SELECT COUNT(*) AS n FROM applications WHERE partner_id = ? AND state = 'READY'")
      .bind(pid)
      .first<{ n: number }>())!.n;
    // Cursors 21 items before the end, so the deep page is a full page of 20 like the first one.
    const cursor = async (where: string, order: string, total: number) =>
      (await db
        .prepare(`SELECT id FROM applications WHERE partner_id = ? ${where} ORDER BY ${order} LIMIT 1 OFFSET ?`)
        .bind(pid, total - 21)
        .first<{ id: string }>())!.id;
    const plain = await cursor("", "id", count);
    const sorted = await cursor("", "total_amount DESC, id DESC", count);
    const filtered = await cursor("AND state = 'READY'", "id", readyCount);
    const variants: [string, string][] = [
      ["first", list],
      ["first sorted", `${list}?sort=-totalPrice`],
      ["first filtered", `${list}?${FILTER_READY}`],
      ["deep", `${list}?after=${plain}`],
      ["deep sorted", `${list}?sort=-totalPrice&after=${sorted}`],
      ["deep filtered", `${list}?${FILTER_READY}&after=${filtered}`],
    ];
    for (const [variant, p] of variants) {
      lists.push({
        name: `list ${variant} ${size}`,
        kind: "list",
        page: { size, variant },
        base: "api",
        method: "GET",
        paths: [p],
        token: tokens[username]!,
        fair: "getFair",
      });
    }
  }
  // The list pairs side by side: 1k, then 100k.
  lists.sort((a, b) => a.page!.variant.localeCompare(b.page!.variant) || a.page!.size.length - b.page!.size.length);

  const floor = (key: FloorKey, paths: string[], method = "GET"): Scenario => ({
    name: floorName(key),
    kind: "floor",
    floor: key,
    base: key,
    method,
    paths,
  });
  const small = partner(PARTNERS.small);
  const samples = config.samples;
  return [
    floor("constant", ["/"]),
    floor(
      "read",
      getIds.map((id) => `/${id}`),
    ),
    floor("insert", ["/bench"], "POST"),
    floor(
      "readObject",
      getIds.map((id) => `/${id}`),
    ),
    floor(
      "getFair",
      getIds.map((id) => `/${large}/${id}`),
    ),
    {
      name: "get application (100k)",
      kind: "get",
      base: "api",
      method: "GET",
      paths: getIds.map((id) => `/financing/v1/applications/${id}`),
      token: tokens[PARTNERS.large]!,
      fair: "getFair",
    },
    {
      name: "get archived application (100k)",
      kind: "get",
      base: "api",
      method: "GET",
      paths: archivedIds.map((id) => `/financing/v1/applications/${id}`),
      token: tokens[PARTNERS.large]!,
      // The floor of a live get: how much more the read from R2 costs, beside the tombstone's read.
      fair: "getFair",
    },
    ...lists,
    floor("createFair", [`/${writer}`], "POST"),
    {
      name: "create application",
      kind: "create",
      base: "api",
      method: "POST",
      paths: ["/financing/v1/applications"],
      body: createBody("BENCH-{{ORDER}}"),
      token: tokens[PARTNERS.writer]!,
      fair: "createFair",
      reference: "createQueued",
    },
    floor("createQueued", [`/${writer}`], "POST"),
    {
      name: "send order (100k)",
      kind: "send",
      base: "api",
      method: "PUT",
      paths: sendIds.slice(samples).map((id) => `/financing/v1/applications/${id}/order/send`),
      samplePaths: sendIds.slice(0, samples).map((id) => `/financing/v1/applications/${id}/order/send`),
      body: "{}",
      token: tokens[PARTNERS.large]!,
      slice: true,
      fair: "createFair",
    },
    {
      name: "refund 1 (100k)",
      kind: "refund",
      base: "api",
      method: "POST",
      paths: refundIds.slice(samples).map((id) => `/financing/v1/applications/${id}/refunds`),
      samplePaths: refundIds.slice(0, samples).map((id) => `/financing/v1/applications/${id}/refunds`),
      body: JSON.stringify({ totalPrice: { amount: 1, currency: "CZK" } }),
      token: tokens[PARTNERS.large]!,
      slice: true,
      repeatable: true,
      fair: "createFair",
    },
    // Last: PBKDF2 keeps the CPU busy long after the load stops (the driver waits for it anyway).
    {
      name: "login",
      kind: "login",
      base: "api",
      method: "POST",
      paths: ["/authentication/v1/partner"],
      body: JSON.stringify({ username: small.username, password: small.password }),
    },
  ];
}

/** Applications the archived-get scenario reads (finished ones of the 100k partner). */
const ARCHIVED = 1000;

/**
 * The applications archived by the Worker's own cron (src/db/archive.ts), 50 a run: their idle clock set
 * so far back that even the bench's ARCHIVE_AFTER_DAYS (a century, bench/runtime.ts) has passed for
 * them and for no other. Answers the ids archived.
 */
async function archived(mf: Miniflare, db: Awaited<ReturnType<Miniflare["getD1Database"]>>, picked: string[]) {
  const list = JSON.stringify(picked);
  await db
    .prepare("UPDATE applications SET idle_since = ?1 WHERE id IN (SELECT value FROM json_each(?2))")
    .bind(-8e12, list)
    .run();
  const count = async () =>
    (await db
      .prepare(
        "SELECT COUNT(*) AS n FROM applications WHERE archive_key IS NOT NULL AND id IN (SELECT value FROM json_each(?1))",
      )
      .bind(list)
      .first<{ n: number }>())!.n;
  const worker = await mf.getWorker("api");
  for (let run = 0; run < picked.length / 50 + 5 && (await count()) < picked.length; run++) {
    await worker.scheduled({ cron: "*/5 * * * *", scheduledTime: new Date() });
  }
  const done = await count();
  if (done < picked.length) throw new Error(`archived ${done} of ${picked.length} applications for the bench`);
  return picked;
}

/** A few requests to the counting instance: what one request of the scenario costs in bindings, and its SQL. */
export async function sampleCost(scenario: Scenario, urls: Urls): Promise<Cost> {
  const cost: Cost = { statuses: [], roundTrips: [], statements: [], objectCalls: [] };
  const paths = scenario.samplePaths ?? scenario.paths;
  for (let i = 0; i < config.samples; i++) {
    const headers: Record<string, string> = { Accept: "application/json" };
    if (scenario.token) headers.Authorization = `Bearer ${scenario.token}`;
    if (scenario.body) headers["Content-Type"] = "application/json";
    const res = await fetch(`${urls.count}${paths[i % paths.length]}`, {
      method: scenario.method,
      headers,
      ...(scenario.body ? { body: scenario.body.replace("{{ORDER}}", `sample-${Date.now()}-${i}`) } : {}),
    });
    await res.arrayBuffer();
    cost.statuses.push(res.status);
    cost.roundTrips.push(Number(res.headers.get("X-Count-D1-Round-Trips")));
    cost.statements.push(Number(res.headers.get("X-Count-D1-Statements")));
    cost.objectCalls.push(Number(res.headers.get("X-Count-DO-Calls")));
    const captured = res.headers.get("X-Bench-Statements");
    if (i === 0 && captured) cost.captured = JSON.parse(decodeURIComponent(captured)) as Captured[];
  }
  return cost;
}
