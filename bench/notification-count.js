// The Worker of the benchmark's notification phase (bench/notifications.ts): the bundle as built, behind a
// wrapper that counts every D1 statement its queue consumer and its notification mailboxes execute (each
// statement run alone, and each statement of a batch), and answers the total at GET /__bench/d1-statements.
// The rest of the Worker (requests, the cron's sweep) runs uncounted. build() copies this file next to
// the Worker's entry (index.mjs). Never used for the other measured runs.
import api, { EndpointMailbox as Mailbox, RateLimiter } from "./index.mjs";

const RAW = Symbol("count: raw statement");
let statements = 0;

function counting(db) {
  const statement = (real) =>
    new Proxy(real, {
      get(target, prop) {
        if (prop === RAW) return target;
        const value = Reflect.get(target, prop);
        if (typeof value !== "function") return value;
        if (prop === "bind") return (...args) => statement(value.apply(target, args));
        if (prop === "first" || prop === "all" || prop === "run" || prop === "raw") {
          return (...args) => {
            statements++;
            return value.apply(target, args);
          };
        }
        return value.bind(target);
      },
    });
  return new Proxy(db, {
    get(target, prop) {
      const value = Reflect.get(target, prop);
      if (prop === "prepare") return (sql) => statement(target.prepare(sql));
      if (prop === "batch") {
        return (list) => {
          statements += list.length;
          return target.batch(list.map((s) => s[RAW] ?? s));
        };
      }
      return typeof value === "function" ? value.bind(target) : value;
    },
  });
}

// One counted environment per environment object: the Worker keeps one Drizzle instance per binding.
const counted = new WeakMap();
function withCounting(env) {
  let wrapped = counted.get(env);
  if (!wrapped) {
    wrapped = { ...env, DB: counting(env.DB) };
    counted.set(env, wrapped);
  }
  return wrapped;
}

export { RateLimiter };

export class EndpointMailbox extends Mailbox {
  constructor(ctx, env) {
    super(ctx, withCounting(env));
  }
}

export default {
  fetch(request, env, ctx) {
    if (new URL(request.url).pathname === "/__bench/d1-statements") return Response.json({ statements });
    return api.fetch(request, env, ctx);
  },
  queue: (batch, env, ctx) => api.queue(batch, withCounting(env), ctx),
  scheduled: (controller, env, ctx) => api.scheduled(controller, env, ctx),
};
