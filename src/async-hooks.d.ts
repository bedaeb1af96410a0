// The part of node:async_hooks the Workers runtime provides under the `nodejs_als` compatibility flag.
// (@types/node would declare all of Node for the Worker's code; this is all it uses.)
declare module "node:async_hooks" {
  export class AsyncLocalStorage<T> {
    getStore(): T | undefined;
    run<R>(store: T, callback: () => R): R;
  }
}
