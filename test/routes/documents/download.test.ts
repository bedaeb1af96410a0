import { describe, expect, it } from "vitest";
import { call, json, signIn } from "../../support/api";
import { countRows } from "../../support/factories";
import { app, approved, expect422, type OrderView, order, put } from "../../support/orders";

describe("return documents", () => {
  const pdf = btoa("%PDF-1.4 credit note");

  it("keeps the document with the order and lets the owner download it with its content type", async () => {
    const owner = await signIn();
    const id = await approved(owner.token);
    await put(owner.token, `${app(id)}/order/send`);
    const res = await put(owner.token, `${app(id)}/order/return`, {
      items: [{ code: "BK-7" }],
      document: {
        type: "CREDIT_NOTE",
        file: { filename: "credit-note.pdf", content: pdf },
        description: "credit note for the book",
        extraData: { variableSymbol: "778899" },
      },
    });
    expect(res.status).toBe(200);
    const [document] = (await json<OrderView>(res)).documents;
    expect(document).toEqual({
      id: expect.any(String),
      type: "CREDIT_NOTE",
      filename: "credit-note.pdf",
      description: "credit note for the book",
      url: `http://api.test${app(id)}/documents/${document!.id}`,
    });
    const download = await call("GET", document!.url, { token: owner.token });
    expect(download.status).toBe(200);
    expect(download.headers.get("Content-Type")).toBe("application/pdf");
    expect(download.headers.get("Content-Disposition")).toBe(
      `attachment; filename="credit-note.pdf"; filename*=UTF-8''credit-note.pdf`,
    );
    expect(await download.text()).toBe("%PDF-1.4 credit note");
    const refund = await countRows("refunds", "application_id = ? AND variable_symbol = '778899'", id);
    expect(refund).toBe(1);

    const stranger = await signIn();
    expect((await call("GET", document!.url, { token: stranger.token })).status).toBe(404);
  });

  it.each([
    ["a file over 500 kB", "big.pdf", btoa("x".repeat(500 * 1024 + 1)), "FILE_TOO_LARGE"],
    ["a file type outside the table", "run.exe", btoa("MZ"), "FILE_TYPE_NOT_ALLOWED"],
  ])("refuses %s with 422 and changes nothing", async (_, filename, content, code) => {
    const { token } = await signIn();
    const id = await approved(token);
    await put(token, `${app(id)}/order/send`);
    const before = await order(token, id);
    await expect422(
      await put(token, `${app(id)}/order/return`, {
        items: [{ code: "BK-7" }],
        document: { type: "INVOICE", file: { filename, content } },
      }),
      code,
    );
    expect(await order(token, id)).toEqual(before);
  });

  it("accepts a file of exactly 500 kB", async () => {
    const { token } = await signIn();
    const id = await approved(token);
    await put(token, `${app(id)}/order/send`);
    const res = await put(token, `${app(id)}/order/return`, {
      items: [{ code: "BK-7" }],
      document: { type: "OTHER", file: { filename: "photo.png", content: btoa("x".repeat(500 * 1024)) } },
    });
    expect(res.status).toBe(200);
  });

  it("refuses content that is not base64 with 400 INVALID_VALUE at the attribute, changing nothing", async () => {
    const { token } = await signIn();
    const id = await approved(token);
    await put(token, `${app(id)}/order/send`);
    const before = await order(token, id);
    const res = await put(token, `${app(id)}/order/return`, {
      items: [{ code: "BK-7" }],
      document: { type: "INVOICE", file: { filename: "note.txt", content: "not base64!" } },
    });
    expect(res.status).toBe(400);
    expect(await json(res)).toMatchObject({
      error: "invalid_request",
      errors: [{ code: "INVALID_VALUE", attribute: "document.file.content" }],
    });
    expect(await order(token, id)).toEqual(before);
  });

  it("downloads a file named in any script with an ASCII filename and the exact name as filename*", async () => {
    const { token } = await signIn();
    const id = await approved(token);
    await put(token, `${app(id)}/order/send`);
    const returned = await json<OrderView>(
      await put(token, `${app(id)}/order/return`, {
        items: [{ code: "BK-7" }],
        document: { type: "INVOICE", file: { filename: "résumé-文件.pdf", content: btoa("%PDF-1.4") } },
      }),
    );
    const download = await call("GET", returned.documents[0]!.url, { token });
    expect(download.headers.get("Content-Disposition")).toBe(
      `attachment; filename="r_sum_-__.pdf"; filename*=UTF-8''r%C3%A9sum%C3%A9-%E6%96%87%E4%BB%B6.pdf`,
    );
    expect(download.headers.get("Content-Disposition")).toMatch(/^[\x20-\x7e]+$/);
  });
});
