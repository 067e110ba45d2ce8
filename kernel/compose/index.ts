export { compose } from "./compose.js";
export type * from "./types.js";
