// Floor: one D1 insert into the scratch table the benchmark creates (bench_scratch).
export default {
  async fetch(request, env) {
    const payload = new URL(request.url).pathname.slice(1);
    await env.DB.prepare("INSERT INTO bench_scratch (payload, created_at) VALUES (?, ?)")
      .bind(payload, Date.now())
      .run();
    return Response.json({ ok: true }, { status: 201 });
  },
};
