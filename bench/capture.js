// The counting instance of the API (`api-count`, COUNT_BINDINGS="true"): the bundle behind a wrapper
// that records every D1 statement a request executes, with the method that ran it (first, all, run,
// raw) or the batch it went in, and returns them as the `X-Bench-Statements` header (URI-encoded JSON).
// The benchmark compares them with the fair floors' SQL (bench/floors/do-get.js, do-create.js), so a
// floor that no longer runs the API's own statements is reported as stale. build() copies this file
// next to the Worker's entry (index.mjs). Never used for the measured runs, only for the cost samples.
import api from "./index.mjs";

const RAW = Symbol("capture: raw statement");
const SQL = Symbol("capture: sql");

function capturing(db, log) {
  const statement = (real, sql) =>
    new Proxy(real, {
      get(target, prop) {
        if (prop === RAW) return target;
        if (prop === SQL) return sql;
        const value = Reflect.get(target, prop);
        if (typeof value !== "function") return value;
        if (prop === "bind") return (...args) => statement(value.apply(target, args), sql);
        if (prop === "first" || prop === "all" || prop === "run" || prop === "raw") {
          return (...args) => {
            log.push({ sql, method: prop });
            return value.apply(target, args);
          };
        }
        return value.bind(target);
      },
    });
  return new Proxy(db, {
    get(target, prop) {
      const value = Reflect.get(target, prop);
      if (prop === "prepare") return (sql) => statement(target.prepare(sql), sql);
      // The API runs its statements in a Sessions API session (src/db/client.ts): record those too.
      if (prop === "withSession") return (constraint) => capturing(target.withSession(constraint), log);
      if (prop === "batch") {
        return (statements) => {
          log.push({ batch: statements.map((s) => s[SQL] ?? "?") });
          return target.batch(statements.map((s) => s[RAW] ?? s));
        };
      }
      if (prop === "exec") {
        return (sql) => {
          log.push({ sql, method: "exec" });
          return target.exec(sql);
        };
      }
      return typeof value === "function" ? value.bind(target) : value;
    },
  });
}

export default {
  async fetch(request, env, ctx) {
    const log = [];
    const response = await api.fetch(request, { ...env, DB: capturing(env.DB, log) }, ctx);
    const copy = new Response(response.body, response);
    copy.headers.set("X-Bench-Statements", encodeURIComponent(JSON.stringify(log)));
    return copy;
  },
};
