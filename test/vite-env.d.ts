/** Vite's `?raw` imports: a file's text (test/notifications/message.test.ts reads wrangler.toml). */
declare module "*?raw" {
  const text: string;
  export default text;
}
