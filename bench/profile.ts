/**
 * BENCH_PROFILE=1: a V8 CPU profile of the `api` worker while a scenario runs, through workerd's
 * inspector (Chrome DevTools protocol). Writes the raw profile (open it in Chrome DevTools) and a
 * summary of self time by function, so the cost of a request can be split between our code, Hono,
 * zod, Drizzle and the runtime.
 */
import { existsSync, readFileSync, writeFileSync } from "node:fs";

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number; columnNumber: number };
  hitCount?: number;
  children?: number[];
}

interface Profile {
  nodes: ProfileNode[];
  startTime: number;
  endTime: number;
  samples?: number[];
  timeDeltas?: number[];
}

type Send = (method: string, params?: Record<string, unknown>) => Promise<Record<string, unknown>>;

/** A DevTools protocol session over the inspector's WebSocket at `url`: send a command, await its result. */
export async function devtools(url: string): Promise<{ send: Send; close: () => void }> {
  if (typeof WebSocket === "undefined") {
    throw new Error(
      "profiling needs a global WebSocket: on Node 20 run through the npm scripts (--experimental-websocket)",
    );
  }
  const socket = new WebSocket(url);
  await new Promise((resolve, reject) => {
    socket.addEventListener("open", resolve, { once: true });
    socket.addEventListener("error", reject, { once: true });
  });
  let next = 1;
  const pending = new Map<number, (value: Record<string, unknown>) => void>();
  socket.addEventListener("message", (event) => {
    const message = JSON.parse(String(event.data)) as { id?: number; result?: Record<string, unknown> };
    if (message.id !== undefined) pending.get(message.id)?.(message.result ?? {});
  });
  const send: Send = (method, params = {}) =>
    new Promise((resolve) => {
      const id = next++;
      pending.set(id, resolve);
      socket.send(JSON.stringify({ id, method, params }));
    });
  return { send, close: () => socket.close() };
}

async function connect(inspectorPort: number, worker: string): Promise<{ send: Send; close: () => void }> {
  const targets = (await (await fetch(`http://127.0.0.1:${inspectorPort}/json/list`)).json()) as {
    id: string;
    title: string;
    webSocketDebuggerUrl: string;
  }[];
  const target = targets.find((t) => t.title === worker || t.id.endsWith(worker) || t.title.includes(worker));
  if (!target) throw new Error(`no inspector target for ${worker}: ${targets.map((t) => t.title).join(", ")}`);
  return devtools(target.webSocketDebuggerUrl);
}

/** Starts profiling `worker`; the returned function stops and writes `<file>.cpuprofile` and `<file>.txt`. */
export async function startProfile(inspectorPort: number, worker: string, file: string): Promise<() => Promise<void>> {
  const { send, close } = await connect(inspectorPort, worker);
  await send("Profiler.enable");
  await send("Profiler.setSamplingInterval", { interval: 100 });
  await send("Profiler.start");
  return async () => {
    const { profile } = (await send("Profiler.stop")) as unknown as { profile: Profile };
    close();
    writeFileSync(`${file}.cpuprofile`, JSON.stringify(profile));
    writeFileSync(`${file}.txt`, summarise(profile));
  };
}

/**
 * esbuild marks where each module starts in the bundle (`// node_modules/hono/dist/compose.js`), so a
 * bundle line maps back to its package or source file.
 */
function moduleMap(url: string): (line: number) => string {
  const file = url.replace(/^file:\/\//, "");
  if (!existsSync(file)) return () => url;
  const starts: [number, string][] = [];
  readFileSync(file, "utf8")
    .split("\n")
    .forEach((text, i) => {
      const match = /^\/\/ ((?:node_modules\/(?:@[^/]+\/)?[^/]+)|src\/\S+|\S+\.js)/.exec(text);
      if (match) starts.push([i, match[1]!]);
    });
  return (line) => {
    let found = "(bundle)";
    for (const [start, name] of starts) {
      if (start > line) break;
      found = name;
    }
    return found;
  };
}

/** Self and total time by function, and self time by package, in percent of the profiled time. */
function summarise(profile: Profile): string {
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const self = new Map<number, number>();
  const deltas = profile.timeDeltas ?? [];
  // timeDeltas[i] is the time before sample i, so sample i lasted until the next one.
  (profile.samples ?? []).forEach((id, i) => {
    self.set(id, (self.get(id) ?? 0) + (deltas[i + 1] ?? 0));
  });
  const total = profile.endTime - profile.startTime;
  const maps = new Map<string, (line: number) => string>();
  const source = (frame: ProfileNode["callFrame"]) => {
    if (frame.functionName.startsWith("(")) return frame.functionName;
    if (!frame.url) return "(runtime built-in)";
    if (!maps.has(frame.url)) maps.set(frame.url, moduleMap(frame.url));
    return maps.get(frame.url)!(frame.lineNumber);
  };
  const label = (frame: ProfileNode["callFrame"]) =>
    `${frame.functionName || "(anonymous)"} ${source(frame)}:${frame.lineNumber + 1}`;

  const selfByFunction = new Map<string, number>();
  const selfBySource = new Map<string, number>();
  const totalByFunction = new Map<string, number>();
  const add = (map: Map<string, number>, key: string, micros: number) => map.set(key, (map.get(key) ?? 0) + micros);
  // Total time: a node's own samples plus its subtree's, counted once per function on each path.
  const walk = (id: number, onPath: Set<string>): number => {
    const node = byId.get(id)!;
    const name = label(node.callFrame);
    const mine = self.get(id) ?? 0;
    add(selfByFunction, name, mine);
    add(selfBySource, source(node.callFrame), mine);
    const nested = new Set(onPath).add(name);
    let sum = mine;
    for (const child of node.children ?? []) sum += walk(child, nested);
    if (!onPath.has(name)) add(totalByFunction, name, sum);
    return sum;
  };
  walk(profile.nodes[0]!.id, new Set());

  const table = (map: Map<string, number>, rows: number) =>
    [...map]
      .sort((a, b) => b[1] - a[1])
      .slice(0, rows)
      .map(([name, micros]) => `${((100 * micros) / total).toFixed(1).padStart(5)}%  ${name}`)
      .join("\n");
  return [
    `Profiled ${(total / 1e6).toFixed(1)} s of the api worker's isolate (the Worker and its Durable Objects)`,
    `\nSelf time by package or source:\n${table(selfBySource, 25)}`,
    `\nTotal time (self and callees) by function:\n${table(totalByFunction, 80)}`,
    `\nSelf time by function:\n${table(selfByFunction, 60)}`,
  ].join("\n");
}
