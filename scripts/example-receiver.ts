/**
 * `npm run example:receiver`: a partner's notification endpoint, as small as it can be, verifying every
 * notification with the `standardwebhooks` library before trusting it. It listens where RECEIVER says
 * (the README's quick start exports it; http://127.0.0.1:4000 by default), on the path /notifications,
 * and uses the local demo partner's secret unless WEBHOOK_SECRET is set. Point an application's
 * `merchantUrls.notificationEndpoint` at `$RECEIVER/notifications` while `npm start` runs (loopback
 * endpoints are accepted there, where HTTPS is not required).
 */
import { createServer } from "node:http";
import { Webhook } from "standardwebhooks";
import { DEMO } from "./lib";

const receiver = new URL(process.env.RECEIVER ?? "http://127.0.0.1:4000");
const webhook = new Webhook(process.env.WEBHOOK_SECRET ?? DEMO.signingSecret);

const server = createServer((req, res) => {
  if (req.method !== "POST" || req.url !== "/notifications") {
    res.writeHead(404).end();
    return;
  }
  const chunks: Buffer[] = [];
  req.on("data", (chunk: Buffer) => chunks.push(chunk));
  req.on("end", () => {
    // Verify the raw body exactly as it arrived: parsed and serialised again, its bytes (and the
    // signature over them) would differ.
    const body = Buffer.concat(chunks).toString("utf8");
    try {
      const event = webhook.verify(body, req.headers as Record<string, string>) as Record<string, unknown>;
      // Accept event types you do not know (answer 2xx): new kinds may come.
      const what =
        event.eventType === "AUTHORIZATION_EXPIRING"
          ? `the authorization of application ${event.id} expires at ${event.expiresAt}: send, extend or cancel`
          : `application ${event.id} is ${event.state} / ${event.stateReason}`;
      console.log(`verified ${req.headers["webhook-id"]}: ${what}`);
      // Answer fast; do the work later. Deduplicate by eventId, order by sequence.
      res.writeHead(204).end();
    } catch (error) {
      console.log(`refused a notification: ${(error as Error).message}`);
      res.writeHead(400).end();
    }
  });
});

server.on("error", (error) => {
  console.error(`example:receiver cannot listen at ${receiver.origin} (RECEIVER): ${error.message}`);
  process.exit(1);
});
server.listen(Number(receiver.port || 80), receiver.hostname, () => {
  console.log(`Receiving notifications on ${receiver.origin}/notifications`);
});
