import { fileURLToPath } from "node:url";

/** Where the docs app's inputs live, and where the site is written. */
export const docsDir = fileURLToPath(new URL("../../", import.meta.url));
export const contentDir = `${docsDir}content`;
export const assetsDir = `${docsDir}assets`;
export const distDir = `${docsDir}dist`;
export const repoRoot = fileURLToPath(new URL("../../../../", import.meta.url));
