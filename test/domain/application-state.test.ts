import { describe, expect, it } from "vitest";
import {
  APPLICATION_STATES,
  type ApplicationState,
  deriveOrderState,
  type LineState,
  OPERATIONS,
  permits,
  STATE_REASONS,
  type StateReason,
  stateAfterLines,
} from "../../src/domain/application-state";
import type { RefusalCode } from "../../src/domain/result";

type Expected = "ok" | RefusalCode;
const ok = "ok";
const NOT_READY = "APPLICATION_NOT_READY";
const REJECTED = "APPLICATION_REJECTED";
const CANCELLED = "APPLICATION_ALREADY_CANCELLED";
const SENT = "ORDER_ALREADY_SENT";
const DECIDED = "APPLICATION_ALREADY_DECIDED";

const COLUMNS = [
  "DECIDE",
  "CANCEL",
  "CHANGE_ORDER",
  "CANCEL_ITEMS",
  "SEND",
  "DELIVER",
  "RETURN",
  "REFUND",
  "EXTEND",
] as const;

const NONE = (code: Expected): Expected[] => Array(9).fill(code);

// Written out by hand from the spec and CONTRACT 4–6a, one row per state, reason and goodsOut.
const TABLE: [ApplicationState, StateReason, boolean, Expected[]][] = [
  [
    "PROCESSING",
    "PROCESSING_REDIRECT_NEEDED",
    false,
    [ok, ok, ok, ok, NOT_READY, NOT_READY, NOT_READY, NOT_READY, NOT_READY],
  ],
  [
    "PROCESSING",
    "PROCESSING_REDIRECT_NEEDED",
    true,
    [ok, ok, ok, ok, NOT_READY, NOT_READY, NOT_READY, NOT_READY, NOT_READY],
  ],
  // Under review the customer has answered: the partner may cancel, nothing else.
  [
    "PROCESSING",
    "PROCESSING_MANUAL_REVIEW",
    false,
    [DECIDED, ok, NOT_READY, NOT_READY, NOT_READY, NOT_READY, NOT_READY, NOT_READY, NOT_READY],
  ],
  [
    "PROCESSING",
    "PROCESSING_MANUAL_REVIEW",
    true,
    [DECIDED, ok, NOT_READY, NOT_READY, NOT_READY, NOT_READY, NOT_READY, NOT_READY, NOT_READY],
  ],
  ["READY", "READY_TO_SHIP", false, [DECIDED, ok, ok, ok, ok, ok, ok, ok, ok]],
  ["READY", "READY_TO_SHIP", true, [DECIDED, SENT, SENT, ok, ok, ok, ok, ok, ok]],
  ["READY", "READY_SHIPPED", false, [DECIDED, ok, ok, ok, ok, ok, ok, ok, ok]],
  ["READY", "READY_SHIPPED", true, [DECIDED, SENT, SENT, ok, ok, ok, ok, ok, ok]],
  ["READY", "READY_DELIVERED", false, [DECIDED, ok, ok, ok, ok, ok, ok, ok, ok]],
  ["READY", "READY_DELIVERED", true, [DECIDED, SENT, SENT, ok, ok, ok, ok, ok, ok]],
  ["READY", "READY_PAID", false, [DECIDED, ok, ok, ok, ok, ok, ok, ok, ok]],
  ["READY", "READY_PAID", true, [DECIDED, SENT, SENT, ok, ok, ok, ok, ok, ok]],
  ["REJECTED", "REJECTED", false, NONE(REJECTED)],
  ["REJECTED", "REJECTED", true, NONE(REJECTED)],
  ["CANCELLED", "CANCELLED_NOT_PAID", false, NONE(CANCELLED)],
  ["CANCELLED", "CANCELLED_NOT_PAID", true, NONE(CANCELLED)],
  ["CANCELLED", "CANCELLED_RETURNED", false, NONE(CANCELLED)],
  ["CANCELLED", "CANCELLED_RETURNED", true, NONE(CANCELLED)],
  ["CANCELLED", "CANCELLED_EXPIRED", false, NONE(CANCELLED)],
  ["CANCELLED", "CANCELLED_EXPIRED", true, NONE(CANCELLED)],
];

const REASONS_OF: Record<ApplicationState, StateReason[]> = {
  PROCESSING: ["PROCESSING_REDIRECT_NEEDED", "PROCESSING_MANUAL_REVIEW"],
  READY: ["READY_TO_SHIP", "READY_SHIPPED", "READY_DELIVERED", "READY_PAID"],
  REJECTED: ["REJECTED"],
  CANCELLED: ["CANCELLED_NOT_PAID", "CANCELLED_RETURNED", "CANCELLED_EXPIRED"],
};

describe("permits", () => {
  it("the expected table covers every state, reason, goodsOut and operation exactly once", () => {
    expect([...COLUMNS].sort()).toEqual([...OPERATIONS].sort());
    expect(Object.values(REASONS_OF).flat().sort()).toEqual([...STATE_REASONS].sort());
    const wanted = APPLICATION_STATES.flatMap((state) =>
      REASONS_OF[state].flatMap((reason) => [`${state}/${reason}/false`, `${state}/${reason}/true`]),
    );
    expect(TABLE.map(([s, r, g]) => `${s}/${r}/${g}`).sort()).toEqual(wanted.sort());
    for (const row of TABLE) expect(row[3]).toHaveLength(OPERATIONS.length);
  });

  const cases = TABLE.flatMap(([state, stateReason, goodsOut, verdicts]) =>
    COLUMNS.map((operation, k) => {
      const expected = verdicts[k] as Expected;
      const outcome = expected === ok ? "is allowed" : `is refused with ${expected}`;
      const goods = goodsOut ? "goods out" : "no goods out";
      const name = `${operation} in ${state}/${stateReason} with ${goods} ${outcome}`;
      return { name, operation, status: { state, stateReason, goodsOut }, expected };
    }),
  );

  it.each(cases)("$name", ({ operation, status, expected }) => {
    const verdict = permits(operation, status);
    if (expected === ok) {
      expect(verdict).toEqual({ ok: true });
    } else {
      expect(verdict).toEqual({ ok: false, code: expected, message: expect.any(String) });
      if (!verdict.ok) expect(verdict.message.length).toBeGreaterThan(0);
    }
  });

  it("cancel in READY with goods out is refused with ORDER_ALREADY_SENT", () => {
    expect(permits("CANCEL", { state: "READY", stateReason: "READY_SHIPPED", goodsOut: true })).toMatchObject({
      ok: false,
      code: "ORDER_ALREADY_SENT",
    });
  });

  it("cancel items in READY with goods out is allowed (lines are checked one by one)", () => {
    expect(permits("CANCEL_ITEMS", { state: "READY", stateReason: "READY_SHIPPED", goodsOut: true })).toEqual({
      ok: true,
    });
  });
});

describe("stateAfterLines", () => {
  const processing = { state: "PROCESSING", stateReason: "PROCESSING_REDIRECT_NEEDED" } as const;
  const ready = { state: "READY", stateReason: "READY_TO_SHIP" } as const;
  const cases: [
    string,
    { state: ApplicationState; stateReason: StateReason },
    LineState[],
    ApplicationState,
    StateReason,
  ][] = [
    [
      "PROCESSING with every line cancelled is cancelled, not paid",
      processing,
      ["CANCELLED", "CANCELLED"],
      "CANCELLED",
      "CANCELLED_NOT_PAID",
    ],
    [
      "PROCESSING with a line left stays as it is",
      processing,
      ["CANCELLED", "PROCESSING"],
      "PROCESSING",
      "PROCESSING_REDIRECT_NEEDED",
    ],
    [
      "PROCESSING with no change stays as it is",
      processing,
      ["PROCESSING"],
      "PROCESSING",
      "PROCESSING_REDIRECT_NEEDED",
    ],
    ["READY with every line cancelled is cancelled, not paid", ready, ["CANCELLED"], "CANCELLED", "CANCELLED_NOT_PAID"],
    [
      "READY with every active line returned is cancelled, returned",
      ready,
      ["RETURNED", "RETURNED"],
      "CANCELLED",
      "CANCELLED_RETURNED",
    ],
    [
      "READY with returned and cancelled lines only is cancelled, returned",
      ready,
      ["RETURNED", "CANCELLED"],
      "CANCELLED",
      "CANCELLED_RETURNED",
    ],
    ["READY with every line delivered is delivered", ready, ["DELIVERED", "DELIVERED"], "READY", "READY_DELIVERED"],
    [
      "READY with delivered, returned and cancelled lines is delivered",
      ready,
      ["DELIVERED", "RETURNED", "CANCELLED"],
      "READY",
      "READY_DELIVERED",
    ],
    ["READY with one line sent and one delivered is shipped", ready, ["SENT", "DELIVERED"], "READY", "READY_SHIPPED"],
    ["READY with one line sent and one unsent is shipped", ready, ["PROCESSING", "SENT"], "READY", "READY_SHIPPED"],
    [
      "READY with one line delivered and one unsent is shipped",
      ready,
      ["PROCESSING", "DELIVERED"],
      "READY",
      "READY_SHIPPED",
    ],
    [
      "READY with one line returned and one unsent is shipped",
      ready,
      ["PROCESSING", "RETURNED"],
      "READY",
      "READY_SHIPPED",
    ],
    [
      "READY with unsent and cancelled lines is ready to ship",
      ready,
      ["PROCESSING", "CANCELLED"],
      "READY",
      "READY_TO_SHIP",
    ],
    [
      "READY_SHIPPED with every line back to unsent is ready to ship",
      { state: "READY", stateReason: "READY_SHIPPED" },
      ["PROCESSING"],
      "READY",
      "READY_TO_SHIP",
    ],
    [
      "READY_PAID stays paid when more goes out",
      { state: "READY", stateReason: "READY_PAID" },
      ["SENT", "DELIVERED"],
      "READY",
      "READY_PAID",
    ],
    [
      "READY_PAID with every line returned is cancelled, returned",
      { state: "READY", stateReason: "READY_PAID" },
      ["RETURNED"],
      "CANCELLED",
      "CANCELLED_RETURNED",
    ],
  ];

  it.each(cases)("%s", (_name, current, lines, state, stateReason) => {
    expect(stateAfterLines(current, lines)).toEqual({ state, stateReason });
  });

  it("REJECTED and CANCELLED never change, whatever the lines", () => {
    const terminal = [
      { state: "REJECTED", stateReason: "REJECTED" },
      { state: "CANCELLED", stateReason: "CANCELLED_NOT_PAID" },
      { state: "CANCELLED", stateReason: "CANCELLED_RETURNED" },
    ] as const;
    for (const current of terminal) {
      for (const lines of [["CANCELLED"], ["RETURNED"], ["DELIVERED"], ["PROCESSING", "SENT"]] as LineState[][]) {
        expect(stateAfterLines(current, lines)).toEqual(current);
      }
    }
  });
});

describe("deriveOrderState", () => {
  const cases: [string, LineState[], LineState][] = [
    ["no lines is CANCELLED", [], "CANCELLED"],
    ["all cancelled is CANCELLED", ["CANCELLED", "CANCELLED"], "CANCELLED"],
    ["all non-cancelled returned is RETURNED", ["RETURNED", "CANCELLED", "RETURNED"], "RETURNED"],
    ["a single unsent line is PROCESSING", ["PROCESSING"], "PROCESSING"],
    ["sent and unsent is PROCESSING (least advanced)", ["SENT", "PROCESSING"], "PROCESSING"],
    ["delivered and sent is SENT", ["DELIVERED", "SENT"], "SENT"],
    ["all delivered is DELIVERED", ["DELIVERED", "DELIVERED"], "DELIVERED"],
    ["returned lines are ignored next to delivered ones", ["RETURNED", "DELIVERED"], "DELIVERED"],
    ["cancelled and returned lines are ignored next to sent ones", ["CANCELLED", "SENT", "RETURNED"], "SENT"],
    ["every state mixed is PROCESSING", ["DELIVERED", "RETURNED", "CANCELLED", "SENT", "PROCESSING"], "PROCESSING"],
  ];
  it.each(cases)("%s", (_name, lines, expected) => {
    expect(deriveOrderState(lines)).toBe(expected);
  });
});
