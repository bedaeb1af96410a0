import { describe, it } from "vitest";
import { mutatedBodies } from "../../support/create-bodies";

// 500 valid bodies, each struck in one to four places by a hostile value or a removal, drawn by
// fast-check from the suite's seed (test/support/property-seed.ts): another seed draws other bodies.
describe("POST /financing/v1/applications under random input", () => {
  it("never answers 500 and stores only valid requests (500 mutated bodies)", () => mutatedBodies(500), 300_000);
});
