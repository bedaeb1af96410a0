import { describe, expect, it } from "vitest";
import { call, json, signIn } from "../support/api";
import { forceState, withPath } from "../support/factories";
import { SKIP_PAY_DOCUMENT, skipPayProblems } from "../support/skippay-check";

/**
 * Skip Pay's own request samples: the examples of their document's request schemas (what a reader of
 * their documentation copies), an `allOf` composed as a renderer composes it (the first part's example,
 * the other parts' property examples). Sent as they are; then with only the values that break their own
 * rules repaired, each listed with why.
 */
const schemas = SKIP_PAY_DOCUMENT.components.schemas;
type Body = Record<string, unknown>;
const example = (name: string) => structuredClone(schemas[name]!.example) as Body;
const propertyExamples = (name: string): Body =>
  Object.fromEntries(
    Object.entries(schemas[name]!.properties ?? {}).flatMap(([key, p]) =>
      p.example === undefined ? [] : [[key, structuredClone(p.example)]],
    ),
  );
/** Their file content example (`FileRequest`'s first branch): base64 of the text "File contents. ¯\_(ツ)_/¯". */
const FILE = (schemas.FileRequest as unknown as { oneOf: { example: string }[] }).oneOf[0]!.example;

const itemChange = (part: string, ...more: string[]) => ({
  ...example("OrderItemsChangeRequest"),
  document: example("DocumentRequest"),
  ...Object.assign({}, ...[part, ...more].map(propertyExamples)),
});
const LITERAL = {
  create: example("ApplicationWithoutCustomerRequest"),
  changeOrder: example("ApplicationOrderChangeRequest"),
  cancel: example("ApplicationCancelRequest"),
  send: itemChange("OrderItemsSendRequest_allOf"),
  deliver: itemChange("OrderItemsSendRequest_allOf", "OrderItemsDeliverRequest_allOf"),
  return: itemChange("OrderItemsReturnRequest_allOf"),
};
type Operation = keyof typeof LITERAL;

/** Their request schema of each operation. */
const SCHEMA: Record<Operation, string> = {
  create: "ApplicationRequest",
  changeOrder: "ApplicationOrderChangeRequest",
  cancel: "ApplicationCancelRequest",
  send: "OrderItemsSendRequest",
  deliver: "OrderItemsDeliverRequest",
  return: "OrderItemsReturnRequest",
};

/** Where each sample as published breaks their own schema, as their schema says (asserted below). */
const ITEM_OPERATION_BREAKS = [
  "#/totalVat/0", // null: a VatAmount, not nullable
  "#/totalVat/1",
  "#/totalPrice", // null: an Amount, not nullable
  "#/document/file", // null: required
  "#/document/type", // "": not one of DocumentSerializer
];
const BREAKS: Record<Operation, string[]> = {
  create: [
    "#", // customer: required, missing
    "#/order", // null: required, not nullable
  ],
  changeOrder: [
    "#/order/totalVat/0", // null
    "#/order/totalVat/1",
    "#/order/addresses/0/addressType", // null: a required enum
    "#/order/addresses/1/addressType",
    "#/order/documents/0/file", // null: required
    "#/order/documents/0/type", // "": not one of DocumentSerializer
    "#/order/documents/1/file",
    "#/order/documents/1/type",
    "#/order/deliveryCarrier", // null: not nullable
    "#/order/items/0", // null
    "#/order/items/1",
  ],
  cancel: [],
  send: ITEM_OPERATION_BREAKS,
  deliver: ITEM_OPERATION_BREAKS,
  return: ITEM_OPERATION_BREAKS,
};

const where = (schema: string, body: unknown) =>
  [...new Set(skipPayProblems(schema, body).map((problem) => problem.split(" ")[0]!))].sort();

const CZK = example("Amount");
const VAT = { ...CZK, ...propertyExamples("VatAmount_allOf") };
const ITEM = (example("OrderItemsChangeRequest").items as Body[])[0]!;
/** Their item as an order item: its identifiers from their sample, its price their Amount example. */
const ORDER_ITEM = { ...ITEM, totalPrice: CZK, totalVat: VAT };
const document = (type: string) => ({ ...example("DocumentRequest"), file: FILE, type });

/** An item operation's sample repaired: no null totals, their document with content, their item named once. */
function repairedItems(op: "send" | "deliver" | "return"): Body {
  const { totalVat: _, totalPrice: __, ...rest } = LITERAL[op];
  return { ...rest, items: [ITEM], document: document(op === "return" ? "CREDIT_NOTE" : "INVOICE") };
}

/**
 * Each sample with only what breaks their rules repaired: what their schema refuses (BREAKS), and two
 * rules their prose states and ours enforces. Variable symbols are digits (their change sample sends the
 * word "variableSymbols"), and their item samples name their one item twice with quantity 1 (two units
 * of a line that has one: ours refuses INVALID_QUANTITY), so it is named once.
 */
const REPAIRED: Record<Operation, Body> = {
  create: {
    ...LITERAL.create,
    // Their customer examples; the phone quoted: written +420123456789 unquoted in their YAML, it is a number.
    customer: {
      ...propertyExamples("CustomerBase"),
      ...propertyExamples("CustomerRequest_allOf"),
      phone: "+420123456789",
    },
    order: { ...propertyExamples("OrderBase"), totalPrice: CZK, totalVat: [VAT], items: [ORDER_ITEM] },
  },
  changeOrder: {
    ...LITERAL.changeOrder,
    order: {
      ...(LITERAL.changeOrder.order as Body),
      totalVat: [VAT],
      addresses: [{ ...example("Address"), addressType: "BILLING" }],
      variableSymbols: ["1234567890"],
      documents: [document("INVOICE")],
      deliveryCarrier: "DPD",
      items: [ORDER_ITEM],
    },
  },
  cancel: LITERAL.cancel,
  send: repairedItems("send"),
  deliver: repairedItems("deliver"),
  return: repairedItems("return"),
};

describe("Skip Pay's own request samples, sent by a SKIP_PAY partner", () => {
  it("break their own schema where listed; repaired, they are valid", () => {
    for (const op of Object.keys(LITERAL) as Operation[]) {
      expect(where(SCHEMA[op], LITERAL[op]), op).toEqual([...BREAKS[op]].sort());
      expect(where(SCHEMA[op], REPAIRED[op]), op).toEqual([]);
    }
  });

  it("are accepted as they are once repaired; as published, refused with 400 where they break their schema", async () => {
    const { token } = await signIn({ wireProfile: "SKIP_PAY" });
    const sp = (method: string, path: string, body?: unknown) => call(method, path, { token, body, wire: "SKIP_PAY" });
    const app = (id: string, rest = "") => `/financing/v1/applications/${id}${rest}`;
    const refusedAt = async (res: Response) => {
      expect(res.status).toBe(400);
      return (await json<{ errors: { attribute?: string }[] }>(res)).errors.map((e) => e.attribute);
    };

    expect(await refusedAt(await sp("POST", "/financing/v1/applications", LITERAL.create))).toEqual(
      expect.arrayContaining(["customer", "order"]),
    );
    const created = await sp("POST", "/financing/v1/applications", REPAIRED.create);
    expect(created.status).toBe(201);
    const application = await json<{ id: string }>(created);
    expect(application).toMatchObject({
      customer: { fullName: "Ing. John Newborn, Csc.", firstName: "John", lastName: "Newborn" },
      order: { number: "AA234", items: [{ code: "EXC4677-1a", ean: "888462064002" }] },
    });
    const { id } = application;

    expect(await refusedAt(await sp("PUT", app(id, "/order"), LITERAL.changeOrder))).toEqual(
      expect.arrayContaining(["order.totalVat[0]", "order.items[0]"]),
    );
    expect((await sp("PUT", app(id, "/order"), REPAIRED.changeOrder)).status).toBe(200);

    await forceState(id, "READY", "READY_TO_SHIP");
    for (const [op, path] of [
      ["send", "/order/send"],
      ["deliver", "/order/deliver"],
      ["return", "/order/return"],
    ] as const) {
      expect(await refusedAt(await sp("PUT", app(id, path), LITERAL[op])), op).toContain("totalVat[0]");
      const res = await sp("PUT", app(id, path), REPAIRED[op]);
      expect(res.status, `${op}: ${await res.clone().text()}`).toBe(200);
    }
    const order = await json<{ state: string; documents: { type: string; file: { filename: string } }[] }>(
      await sp("GET", `/financing/v1/orders?applicationId=${id}`),
    );
    expect(order.state).toBe("RETURNED");
    // The documents of send, deliver and return kept, their text content named by its type.
    expect(order.documents.map((d) => [d.type, d.file.filename])).toEqual([
      ["INVOICE", "invoice.txt"],
      ["INVOICE", "invoice.txt"],
      ["CREDIT_NOTE", "credit_note.txt"],
    ]);

    const other = await json<{ id: string }>(
      await sp("POST", "/financing/v1/applications", withPath(REPAIRED.create, ["order", "number"], "AA235")),
    );
    const cancelled = await sp("PUT", app(other.id, "/cancel"), LITERAL.cancel);
    expect(await json(cancelled)).toMatchObject({ state: "CANCELLED", stateReason: "CANCELLED_NOT_PAID" });
  });
});
