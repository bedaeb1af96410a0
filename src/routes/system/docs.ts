import { html, raw } from "hono/html";

type Operation = {
  summary?: string;
  description?: string;
  tags?: string[];
  requestBody?: { content?: Record<string, { schema?: unknown }> };
  responses?: Record<string, { description?: string }>;
};
type Document = {
  info: { title: string; version: string; description?: string };
  paths?: Record<string, Record<string, Operation>>;
};

const escapeJson = (value: unknown) => JSON.stringify(value, null, 2);

/**
 * A readable reference rendered on the server from the same OpenAPI document as /openapi.json: no
 * script and no third-party assets, so it works offline and under a strict CSP.
 */
export function renderDocs(doc: Document) {
  const operations = Object.entries(doc.paths ?? {}).flatMap(([path, methods]) =>
    Object.entries(methods).map(([method, op]) => ({ path, method: method.toUpperCase(), op })),
  );
  return html`<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>${doc.info.title} — reference</title>
<style>
body{font:15px/1.5 system-ui,sans-serif;max-width:60rem;margin:2rem auto;padding:0 1rem;color:#1b1f24}
h2{margin-top:2.5rem;font-size:1.1rem}code,pre{font-family:ui-monospace,monospace;font-size:13px}
pre{background:#f5f6f8;padding:.75rem;overflow:auto;border-radius:6px}.m{font-weight:700;margin-right:.5rem}
li{margin:.2rem 0}
</style>
</head>
<body>
<h1>${doc.info.title} <small>${doc.info.version}</small></h1>
<p>${doc.info.description ?? ""}</p>
<p>Machine-readable: <a href="/openapi.json">/openapi.json</a> (OpenAPI 3.1).</p>
<ul>${operations.map((o) => html`<li><a href="#${o.method}-${o.path}"><span class="m">${o.method}</span><code>${o.path}</code></a> ${o.op.summary ?? ""}</li>`)}</ul>
${operations.map(
  (o) => html`<section id="${o.method}-${o.path}">
<h2><span class="m">${o.method}</span><code>${o.path}</code></h2>
<p><strong>${o.op.summary ?? ""}</strong></p>
<p>${o.op.description ?? ""}</p>
${
  o.op.requestBody?.content?.["application/json"]?.schema
    ? html`<h3>Request body</h3><pre>${escapeJson(o.op.requestBody.content["application/json"].schema)}</pre>`
    : raw("")
}
<h3>Responses</h3>
<ul>${Object.entries(o.op.responses ?? {}).map(([status, r]) => html`<li><code>${status}</code> ${r.description ?? ""}</li>`)}</ul>
</section>`,
)}
</body>
</html>`;
}
