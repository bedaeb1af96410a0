import fc from "fast-check";
import { expect } from "vitest";
import { newId } from "../../src/ids";
import { call, signIn } from "./api";
import { applicationCount, applicationRequest, REMOVE, withPath } from "./factories";

type Path = (string | number)[];

/** Every path into the valid request: each is a place a mutation can strike. */
function pathsOf(value: unknown, prefix: Path = []): Path[] {
  if (value === null || typeof value !== "object") return [prefix];
  const entries = Array.isArray(value) ? value.map((v, i) => [i, v] as const) : Object.entries(value);
  return [prefix, ...entries.flatMap(([key, child]) => pathsOf(child, [...prefix, key]))].filter((p) => p.length > 0);
}

const template = applicationRequest();
const paths = pathsOf(template);

// Values that are valid JSON but often hostile: wrong types, extremes, empty and huge strings.
const hostile = fc.oneof(
  fc.jsonValue(),
  fc.constantFrom("", " ", "0", "-1", "1e309", "null", "<script>", "x".repeat(5000), "\u0000", "\ud800"),
  fc.constantFrom(0, -1, 1.5, 2 ** 53, -(2 ** 53), 1e308, -0),
  fc.constantFrom(null, true, false, [], {}),
);

const mutation = fc.record({
  strikes: fc.array(fc.record({ path: fc.constantFrom(...paths), value: fc.oneof(fc.constant(REMOVE), hostile) }), {
    minLength: 1,
    maxLength: 4,
  }),
});

export async function expectNeverBroken(token: string, partnerId: string, body: string | unknown) {
  const before = await applicationCount(partnerId);
  const res = await call("POST", "/financing/v1/applications", { token, body });
  const after = await applicationCount(partnerId);
  expect([200, 201, 400, 413, 415]).toContain(res.status);
  // A row appears exactly when the request was accepted as new.
  expect(after - before).toBe(res.status === 201 ? 1 : 0);
  if (res.status !== 201 && res.status !== 200) {
    const error = (await res.json()) as { error: string; requestId: string };
    expect(error.requestId).toBeTruthy();
    expect(["invalid_request", "unsupported_media_type", "request_too_large"]).toContain(error.error);
  }
}

/** `runs` mutated valid bodies for a new partner: never a 500, a row exactly when one was created. */
export async function mutatedBodies(runs: number) {
  const { partner, token } = await signIn();
  await fc.assert(
    fc.asyncProperty(mutation, async ({ strikes }) => {
      let body: unknown = withPath(template, ["order", "number"], `P-${newId()}`);
      for (const { path, value } of strikes) {
        try {
          body = withPath(body, path, value);
        } catch {
          // An earlier strike removed the parent of this path: nothing to strike.
        }
      }
      await expectNeverBroken(token, partner.id, body);
    }),
    { numRuns: runs },
  );
}

/** `runs` arbitrary JSON values and strings as bodies. */
export async function arbitraryBodies(runs: number) {
  const { partner, token } = await signIn();
  await fc.assert(
    fc.asyncProperty(fc.oneof(fc.jsonValue(), fc.string()), async (value) => {
      const body = typeof value === "string" ? value : JSON.stringify(value);
      await expectNeverBroken(token, partner.id, body);
    }),
    { numRuns: runs },
  );
}
