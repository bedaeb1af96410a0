import { describe, expect, it } from "vitest";
import { json, signIn } from "../support/api";
import { signedInBrowser } from "../support/console";
import { app, approved, type OrderView, put } from "../support/orders";

describe("GET /console/applications/:applicationId/documents/:documentId", () => {
  it("downloads a return's document as the API serves it, linked from the application's page; never another partner's", async () => {
    const { partner, token } = await signIn();
    const id = await approved(token);
    await put(token, `${app(id)}/order/send`);
    const returned = await put(token, `${app(id)}/order/return`, {
      items: [{ code: "BK-7" }],
      document: { type: "CREDIT_NOTE", file: { filename: "credit-note.pdf", content: btoa("%PDF-1.4 note") } },
    });
    const [document] = (await json<OrderView>(returned)).documents;
    const link = `/console/applications/${id}/documents/${document!.id}`;
    const browser = await signedInBrowser(partner);
    expect((await browser.get(`/console/applications/${id}`)).html).toContain(
      `<a href="${link}" download="">credit-note.pdf</a>`,
    );
    const download = await browser.get(link);
    expect(download.status).toBe(200);
    expect(download.headers.get("Content-Type")).toBe("application/pdf");
    expect(download.headers.get("Content-Disposition")).toBe(
      `attachment; filename="credit-note.pdf"; filename*=UTF-8''credit-note.pdf`,
    );
    expect(download.headers.get("Cache-Control")).toBe("no-store");
    expect(download.html).toBe("%PDF-1.4 note");

    const stranger = await signedInBrowser((await signIn()).partner);
    const refused = await stranger.get(link);
    expect(refused.status).toBe(404);
    expect(refused.html).not.toContain("%PDF");
  });
});
