// Startup floor: a one-route Hono Worker, bundled like the API (wrangler, the API's compatibility date).
// bench/startup.ts profiles its startup with `wrangler check startup` beside the API's.
import { Hono } from "hono";

const app = new Hono();
app.get("/", (c) => c.json({ status: "OK" }));

export default app;
