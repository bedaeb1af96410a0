// Floor: what any authenticated read costs at least here. One call to the API's own rate-limit object
// (RateLimiter.hit: count the request, read the session) and then one D1 read by primary key.
export default {
  async fetch(request, env) {
    const limiter = env.RATE_LIMITER.get(env.RATE_LIMITER.idFromName("bench:floor"));
    await limiter.hit(Date.now(), 1e9, 60);
    const id = new URL(request.url).pathname.slice(1);
    const row = await env.DB.prepare("SELECT * FROM applications WHERE id = ?").bind(id).first();
    if (!row) return new Response("not found", { status: 404 });
    return Response.json(row);
  },
};
