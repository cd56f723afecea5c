import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";

const require = createRequire(import.meta.url);

// Redoc's side menu shows an <img> of its logo from this CDN: the one thing the bundle would fetch from
// another origin. `data:,` is an image that fails to decode, so Redoc's own onError handler hides it and no
// request leaves the page.
const remoteLogo = "https://cdn.redoc.ly/redoc/logo-mini.svg";
const sourceMapComment = /\n\/\/# sourceMappingURL=\S+\s*$/;

/** Redoc's standalone bundle from the npm package, made fully offline, with its license notice. */
export function readRedocBundle(): { script: string; license: string } {
  const bundles = join(dirname(require.resolve("redoc/package.json")), "bundles");
  const original = readFileSync(join(bundles, "redoc.standalone.js"), "utf8");
  // The map would not match the patched file, so the bundle does not point at one.
  const script = original.replaceAll(remoteLogo, "data:,").replace(sourceMapComment, "\n");
  if (script.includes("cdn.redoc.ly")) {
    throw new Error("redoc.standalone.js still references cdn.redoc.ly: check what this Redoc version loads");
  }
  return { script, license: readFileSync(join(bundles, "redoc.standalone.js.LICENSE.txt"), "utf8") };
}
