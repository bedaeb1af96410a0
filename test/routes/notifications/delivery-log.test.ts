import { describe, expect, it } from "vitest";
import { call, json, signIn } from "../../support/api";
import { createApplication } from "../../support/factories";
import type { NotificationView } from "../../support/notifications";
import { dbOfApplication } from "../../support/shards";

const LOG = "/financing/v1/notifications";

interface Page {
  data: (NotificationView & { applicationId: string; failureReason?: string })[];
  pagingInfo: { nextPage?: string; prevPage?: string };
}

async function page(token: string, query = "") {
  const res = await call("GET", `${LOG}${query}`, { token });
  expect(res.status).toBe(200);
  return json<Page>(res);
}

describe("GET /financing/v1/notifications", () => {
  it("lists the partner's events across applications, never another partner's, oldest first", async () => {
    const { token } = await signIn();
    const other = await signIn();
    const first = await createApplication(token);
    const second = await createApplication(token);
    await call("PUT", `/financing/v1/applications/${second.id}/cancel`, { token });
    await createApplication(other.token);
    const { data } = await page(token);
    expect(data.map((n) => [n.applicationId, n.sequence, n.state])).toEqual([
      [first.id, 1, "PROCESSING"],
      [second.id, 1, "PROCESSING"],
      [second.id, 2, "CANCELLED"],
    ]);
    expect(data.every((n) => n.status === "PENDING" && n.attempts.length === 0)).toBe(true);
  });

  it("filters by status, application and time, sorts, pages, and shows why an event failed", async () => {
    const { token } = await signIn();
    const apps = [await createApplication(token), await createApplication(token), await createApplication(token)];
    await (await dbOfApplication(apps[1]!.id))
      .prepare(
        "UPDATE events SET status = 'FAILED', failure_reason = 'HTTP 410 Gone: the endpoint asked for no more deliveries' WHERE application_id = ?",
      )
      .bind(apps[1]!.id)
      .run();
    const failed = await page(token, "?filter=status|eq|FAILED");
    expect(failed.data.map((n) => n.applicationId)).toEqual([apps[1]!.id]);
    expect(failed.data[0]!.failureReason).toBe("HTTP 410 Gone: the endpoint asked for no more deliveries");
    const one = await page(token, `?filter=applicationId|eq|${apps[2]!.id}`);
    expect(one.data.map((n) => n.applicationId)).toEqual([apps[2]!.id]);
    const newest = await page(token, "?sort=-occurredAt&limit=2");
    expect(newest.data).toHaveLength(2);
    expect(newest.pagingInfo.nextPage).toMatch(/^\/financing\/v1\/notifications\?sort=-occurredAt&limit=2&after=/);
    const rest = await page(token, newest.pagingInfo.nextPage!.slice(LOG.length));
    expect([...newest.data, ...rest.data].map((n) => n.applicationId).sort()).toEqual(apps.map((a) => a.id).sort());
    const future = await page(token, "?filter=occurredAt|gt|2100-01-01T00:00:00%2B00:00");
    expect(future.data).toEqual([]);
  });

  it("refuses a filter it does not offer with 400 naming it", async () => {
    const { token } = await signIn();
    const res = await call("GET", `${LOG}?filter=endpoint|eq|x`, { token });
    expect(res.status).toBe(400);
    expect(await json(res)).toMatchObject({ errors: [{ code: "INVALID_VALUE", attribute: "filter" }] });
  });
});
