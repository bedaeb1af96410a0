import { describe, it } from "vitest";
import { arbitraryBodies } from "../../support/create-bodies";

describe("POST /financing/v1/applications under random input", () => {
  it("never answers 500 for arbitrary JSON or text bodies (600 bodies)", () => arbitraryBodies(600), 300_000);
});
