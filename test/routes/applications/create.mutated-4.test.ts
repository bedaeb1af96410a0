import { describe, it } from "vitest";
import { mutatedBodies } from "../../support/create-bodies";

// The 2,000 mutated bodies are spread over four files: each file runs in an isolate of its own, and
// the local runtime slows down as one isolate accumulates objects.
describe("POST /financing/v1/applications under random input (4 of 4)", () => {
  it("never answers 500 and stores only valid requests (500 mutated bodies)", () => mutatedBodies(500), 300_000);
});
