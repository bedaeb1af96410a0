import { describe, expect, it } from "vitest";
import { type ArchiveFacts, archivable, finished } from "../../src/domain/archive";

const DAY = 86_400_000;
const AGE = 90 * DAY;
const NOW = Date.parse("2027-06-01T00:00:00Z");

const facts = (over: Partial<ArchiveFacts> = {}): ArchiveFacts => ({
  state: "READY",
  stateReason: "READY_PAID",
  lineStates: ["DELIVERED", "RETURNED", "CANCELLED"],
  nextDueAt: null,
  idleSince: NOW - AGE,
  pendingEvents: 0,
  unpaidEntries: 0,
  ...over,
});

describe("finished", () => {
  it("is CANCELLED or REJECTED whatever the lines, and READY once every good arrived, came back or was cancelled", () => {
    expect(finished(facts({ state: "CANCELLED", stateReason: "CANCELLED_NOT_PAID", lineStates: ["CANCELLED"] }))).toBe(
      true,
    );
    expect(finished(facts({ state: "REJECTED", stateReason: "REJECTED", lineStates: ["PROCESSING"] }))).toBe(true);
    expect(finished(facts({ stateReason: "READY_DELIVERED" }))).toBe(true);
    expect(finished(facts())).toBe(true);
  });

  it("is not while goods wait to be sent or to arrive, nor while a decision is pending", () => {
    expect(finished(facts({ lineStates: ["DELIVERED", "SENT"] }))).toBe(false);
    expect(finished(facts({ stateReason: "READY_SHIPPED", lineStates: ["DELIVERED"] }))).toBe(false);
    expect(finished(facts({ stateReason: "READY_PAID", lineStates: ["PROCESSING"] }))).toBe(false);
    expect(finished(facts({ state: "PROCESSING", stateReason: "PROCESSING_MANUAL_REVIEW", lineStates: [] }))).toBe(
      false,
    );
  });
});

describe("archivable", () => {
  it("takes a finished application with nothing left to happen once idle for the whole age, not a millisecond sooner", () => {
    expect(archivable(facts(), NOW, AGE)).toBe(true);
    expect(archivable(facts({ idleSince: NOW - AGE + 1 }), NOW, AGE)).toBe(false);
  });

  it("leaves one with something due, a notification being delivered, or money not yet paid out", () => {
    expect(archivable(facts({ nextDueAt: NOW + DAY }), NOW, AGE)).toBe(false);
    expect(archivable(facts({ pendingEvents: 1 }), NOW, AGE)).toBe(false);
    expect(archivable(facts({ unpaidEntries: 1 }), NOW, AGE)).toBe(false);
    expect(archivable(facts({ lineStates: ["SENT"] }), NOW, AGE)).toBe(false);
  });
});
