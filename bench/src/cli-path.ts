import { fileURLToPath } from "node:url";

/** The built `studio-serve` the bench runs (`pnpm bench` builds it first). */
export const STUDIO_SERVE = fileURLToPath(new URL("../../packages/cli/dist/main.js", import.meta.url));
