import { describe, expect, it } from "vitest";
import { DEAD_LETTER_QUEUE, NOTIFICATION_QUEUE } from "../../src/notifications/message";
import wranglerToml from "../../wrangler.toml?raw";

/** The `key = "value"` lines of one kind of table in wrangler.toml. */
function values(table: string, key: string): string[] {
  return wranglerToml
    .split(/^\[\[/m)
    .filter((section) => section.startsWith(`${table}]]`))
    .flatMap((section) => [...section.matchAll(new RegExp(`^${key}\\s*=\\s*"([^"]+)"`, "gm"))].map((m) => m[1]!));
}

describe("the notification queues' names", () => {
  it("are the ones wrangler.toml binds: produced to, consumed, and the dead letters'", () => {
    expect(values("queues.producers", "queue")).toEqual([NOTIFICATION_QUEUE]);
    expect(values("queues.consumers", "queue")).toEqual([NOTIFICATION_QUEUE, DEAD_LETTER_QUEUE]);
    expect(values("queues.consumers", "dead_letter_queue")).toEqual([DEAD_LETTER_QUEUE]);
  });
});
