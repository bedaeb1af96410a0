import { beforeAll, describe, expect, it } from "vitest";
import { call, json, signIn } from "../../support/api";
import {
  expectedOrder,
  generate,
  ids,
  insert,
  LIST,
  type ListBody,
  list,
  type Seeded,
  sortValue,
} from "../../support/collections";

let token: string;
let strangerToken: string;
let seeded: Seeded[];
let strangers: Seeded[];

beforeAll(async () => {
  const owner = await signIn();
  const stranger = await signIn();
  token = owner.token;
  strangerToken = stranger.token;
  seeded = generate(300, 1);
  strangers = generate(5, 2);
  await insert(owner.partner.id, seeded);
  await insert(stranger.partner.id, strangers);
});

const idsOf = (page: ListBody) => page.data.map((a) => a.id);

/** Walks forward with nextPage to the end, then back from the last page with prevPage to the start. */
async function walk(query: string) {
  const forward: ListBody[] = [];
  for (let next: string | undefined = `${LIST}?${query}`; next; ) {
    const page = await list(token, next);
    forward.push(page);
    next = page.pagingInfo.nextPage;
  }
  const backward: ListBody[] = [forward.at(-1)!];
  for (let prev = forward.at(-1)!.pagingInfo.prevPage; prev; ) {
    const page = await list(token, prev);
    backward.unshift(page);
    prev = page.pagingInfo.prevPage;
  }
  return { forward, backward };
}

function expectConsistentWalk(walked: Awaited<ReturnType<typeof walk>>, expected: string[], limit: number) {
  const { forward, backward } = walked;
  // Every item exactly once, in the order computed in JS.
  expect(forward.flatMap(idsOf)).toEqual(expected);
  expect(forward.map((p) => p.data.length)).toEqual(
    Array.from({ length: Math.ceil(expected.length / limit) }, (_, i) => Math.min(limit, expected.length - i * limit)),
  );
  // Walking back meets the same pages, and a page reached backwards links like the same page reached forward.
  expect(backward.map(idsOf)).toEqual(forward.map(idsOf));
  expect(backward.map((p) => p.pagingInfo)).toEqual(forward.map((p) => p.pagingInfo));
  expect(forward[0]!.pagingInfo.prevPage).toBeUndefined();
  expect(forward.at(-1)!.pagingInfo.nextPage).toBeUndefined();
  for (const page of forward) expect(page.pagingInfo.itemsPerPage).toBe(limit);
  for (const page of forward.slice(1, -1)) {
    expect(page.pagingInfo).toEqual({
      itemsPerPage: limit,
      nextPage: expect.any(String),
      prevPage: expect.any(String),
    });
  }
}

describe("GET /financing/v1/applications paging", () => {
  const SORTS = ["createdAt", "updatedAt", "state", "type", "orderNumber", "totalPrice", "id"].flatMap((name) => [
    name,
    `-${name}`,
  ]);

  it("walks the whole list in id order with no sort, forward and back", async () => {
    expectConsistentWalk(await walk("limit=37"), ids(expectedOrder(seeded, "")), 37);
  });

  it.each(SORTS)("walks every item exactly once with sort=%s, ties broken by id, forward and back", async (sort) => {
    // The seed holds ties on every attribute but the id, so the final id key is exercised.
    const name = sort.replace(/^-/, "");
    if (name !== "id") expect(new Set(seeded.map((a) => sortValue(a, name))).size).toBeLessThan(seeded.length);
    expectConsistentWalk(await walk(`sort=${sort}&limit=37`), ids(expectedOrder(seeded, sort)), 37);
  });

  it.each([
    "state,-totalPrice",
    "-type,createdAt,orderNumber",
    "-orderNumber,updatedAt",
  ])("walks a sort on several attributes (%s) with mixed directions", async (sort) => {
    expectConsistentWalk(await walk(`sort=${sort}&limit=41`), ids(expectedOrder(seeded, sort)), 41);
  });

  it("walks a filtered and sorted list, keeping sort and filter in every link", async () => {
    const expected = expectedOrder(
      seeded.filter((a) => a.state === "READY" || a.state === "CANCELLED"),
      "-totalPrice",
    );
    const walked = await walk(`sort=-totalPrice&filter=state|in|READY,CANCELLED&limit=13`);
    expectConsistentWalk(walked, ids(expected), 13);
    const next = new URL(walked.forward[0]!.pagingInfo.nextPage!, "http://x");
    expect(next.pathname).toBe(LIST);
    expect(Object.fromEntries(next.searchParams)).toEqual({
      sort: "-totalPrice",
      filter: "state|in|READY,CANCELLED",
      limit: "13",
      after: expected[12]!.id,
    });
  });

  it("answers 20 items by default, with nextPage carrying limit and the last id", async () => {
    const page = await list(token, LIST);
    const expected = ids(expectedOrder(seeded, ""));
    expect(idsOf(page)).toEqual(expected.slice(0, 20));
    expect(page.pagingInfo).toEqual({ itemsPerPage: 20, nextPage: `${LIST}?limit=20&after=${expected[19]}` });
  });

  it("writes links as paths with the full query, URL-encoded", async () => {
    const expected = ids(expectedOrder(seeded, "-createdAt,state"));
    const page = await list(token, `${LIST}?sort=-createdAt,state&limit=5&after=${expected[4]}`);
    expect(idsOf(page)).toEqual(expected.slice(5, 10));
    expect(page.pagingInfo).toEqual({
      itemsPerPage: 5,
      nextPage: `${LIST}?sort=-createdAt%2Cstate&limit=5&after=${expected[9]}`,
      prevPage: `${LIST}?sort=-createdAt%2Cstate&limit=5&before=${expected[5]}`,
    });
  });

  it("reads backwards from before, answering the page in the requested order", async () => {
    const expected = ids(expectedOrder(seeded, "totalPrice"));
    const page = await list(token, `${LIST}?sort=totalPrice&limit=10&before=${expected[25]}`);
    expect(idsOf(page)).toEqual(expected.slice(15, 25));
    expect(page.pagingInfo.nextPage).toBe(`${LIST}?sort=totalPrice&limit=10&after=${expected[24]}`);
    expect(page.pagingInfo.prevPage).toBe(`${LIST}?sort=totalPrice&limit=10&before=${expected[15]}`);
  });

  it("answers the first items with before near the start, without prevPage", async () => {
    const expected = ids(expectedOrder(seeded, ""));
    const page = await list(token, `${LIST}?limit=10&before=${expected[3]}`);
    expect(idsOf(page)).toEqual(expected.slice(0, 3));
    expect(page.pagingInfo).toEqual({ itemsPerPage: 10, nextPage: `${LIST}?limit=10&after=${expected[2]}` });
  });

  it("answers an empty page without links after the last item", async () => {
    const expected = ids(expectedOrder(seeded, ""));
    const page = await list(token, `${LIST}?after=${expected.at(-1)}`);
    expect(page).toEqual({ data: [], pagingInfo: { itemsPerPage: 20 } });
  });

  it("presents each item exactly as GET one does", async () => {
    const page = await list(token, `${LIST}?sort=-updatedAt&limit=6`);
    expect(page.data).toHaveLength(6);
    for (const item of page.data) {
      const one = await call("GET", `${LIST}/${item.id}`, { token });
      expect(item).toEqual(await json(one));
    }
  });

  it("shows a partner only its own applications", async () => {
    const page = await list(strangerToken, `${LIST}?limit=100`);
    expect(idsOf(page)).toEqual(ids(expectedOrder(strangers, "")));
    expect(page.pagingInfo).toEqual({ itemsPerPage: 100 });
  });

  it("is documented in the OpenAPI document with its query parameters and page shape", async () => {
    const doc = await json<{
      paths: Record<string, { get?: { parameters: { name: string; in: string }[] } }>;
      components: { schemas: Record<string, { properties: Record<string, unknown> }> };
    }>(await call("GET", "/openapi.json"));
    const parameters = doc.paths[LIST]!.get!.parameters;
    expect(parameters.map((p) => [p.name, p.in])).toEqual(
      ["limit", "after", "before", "sort", "filter"].map((name) => [name, "query"]),
    );
    expect(Object.keys(doc.components.schemas.ApplicationPage!.properties)).toEqual(["data", "pagingInfo"]);
    expect(Object.keys(doc.components.schemas.PagingInfo!.properties)).toEqual([
      "itemsPerPage",
      "nextPage",
      "prevPage",
    ]);
  });

  it("answers 401 without a token", async () => {
    const res = await call("GET", LIST);
    expect(res.status).toBe(401);
  });
});
