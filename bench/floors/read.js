// Floor: one D1 read by primary key. The path is the application id (rotated by the load generator).
export default {
  async fetch(request, env) {
    const id = new URL(request.url).pathname.slice(1);
    const row = await env.DB.prepare("SELECT * FROM applications WHERE id = ?").bind(id).first();
    if (!row) return new Response("not found", { status: 404 });
    return Response.json(row);
  },
};
