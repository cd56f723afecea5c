import { existsSync } from "node:fs";
import { type Browser, chromium } from "playwright-core";

/** Debian's Chromium (`.ci/run` installs the package when it is missing); playwright-core never downloads one. */
export const chromiumPath = process.env.CHROMIUM_PATH ?? "/usr/bin/chromium";

export async function launchChromium(): Promise<Browser> {
  if (!existsSync(chromiumPath)) {
    throw new Error(
      `Chromium not found at ${chromiumPath}: install Debian's chromium package (.ci/run does)`,
    );
  }
  return chromium.launch({
    executablePath: chromiumPath,
    headless: true,
    // No sandbox (containers and CI run as root), no GPU, and none of Chromium's own traffic to Google,
    // so that every request the test sees comes from the page.
    args: [
      "--no-sandbox",
      "--disable-gpu",
      "--disable-background-networking",
      "--disable-component-update",
      "--disable-sync",
    ],
  });
}
