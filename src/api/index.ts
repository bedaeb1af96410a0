/** Defining an operation of the API: its route, its request's schemas, what it answers (see each module). */
export * from "./request";
export * from "./responses";
export * from "./route";
