import { describe, expect, it } from "vitest";
import { partnerNotificationsCollection } from "../../src/collections/notifications";
import { parsePageRequest } from "../../src/collections/query";

const LOG = "http://api.test/financing/v1/notifications";

// This file's module graph is its own (vitest isolates test files), and nothing here loads zod before
// the parse: as on a route whose query the build compiled, the parse must load it for the filter.
describe("parsePageRequest", () => {
  it("checks a date-time filter with zod, loading zod itself when nothing has yet", async () => {
    const parsed = await parsePageRequest(
      partnerNotificationsCollection,
      `${LOG}?filter=occurredAt|gteq|2026-11-01T00:00:00%2B01:00`,
      {
        limit: 20,
      },
    );
    expect(parsed.ok).toBe(true);
    expect(parsed.ok && parsed.value.filter.map(({ name, operator, values }) => ({ name, operator, values }))).toEqual([
      { name: "occurredAt", operator: "gteq", values: ["2026-11-01T00:00:00+01:00"] },
    ]);
    const refused = await parsePageRequest(partnerNotificationsCollection, `${LOG}?filter=occurredAt|gt|2026-11-01`, {
      limit: 20,
    });
    expect(refused.ok).toBe(false);
    expect(!refused.ok && refused.problems.map((p) => p.message)).toEqual([
      'value "2026-11-01" of "occurredAt" must be an ISO 8601 date-time with offset, e.g. 2026-11-22T10:15:00+01:00',
    ]);
  });
});
