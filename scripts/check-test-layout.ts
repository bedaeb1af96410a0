/**
 * The test tree mirrors src/ (STYLE.md): the tests of src/x/y.ts live in test/x/y.test.ts, or in
 * test/x/y.<aspect>.test.ts when one file would grow too long; those of the build wing's build/x.ts in
 * test/build/x.test.ts. Run by `npm run lint`; it names every test file that has no source file to
 * belong to.
 */
import { existsSync, readdirSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const testDir = path.join(root, "test");
/** Helpers and the browser tests are not tests of one source file. */
const OWN_TREES = new Set(["support", "e2e"]);

function* testFiles(dir: string): Generator<string> {
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory() && !(dir === testDir && OWN_TREES.has(entry.name))) yield* testFiles(full);
    else if (entry.isFile() && entry.name.endsWith(".test.ts")) yield full;
  }
}

const orphans = [...testFiles(testDir)].filter((file) => {
  const relative = path.relative(testDir, file);
  const subject = path.join(path.dirname(relative), path.basename(relative).split(".")[0]!);
  const source = subject.startsWith(`build${path.sep}`) ? path.join(root, subject) : path.join(root, "src", subject);
  return ![".ts", ".tsx"].some((ext) => existsSync(source + ext));
});

if (orphans.length > 0) {
  console.error(
    "Test files without a source file to mirror (test/x/y[.aspect].test.ts tests src/x/y.ts, test/build/x.test.ts build/x.ts):",
  );
  for (const file of orphans) console.error(`  ${path.relative(root, file)}`);
  process.exit(1);
}
console.log("test/ mirrors src/");
