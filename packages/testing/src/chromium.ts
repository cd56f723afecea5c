import type { Browser } from "playwright-core";
import { requireSystemTool } from "./system-tools.js";

/**
 * Debian's Chromium, headless, through playwright-core (which never downloads a browser of its own).
 * CHROMIUM_PATH may point at another build.
 */
export async function launchChromium(): Promise<Browser> {
  const executablePath = requireSystemTool("chromium");
  const { chromium } = await import("playwright-core");
  return chromium.launch({
    executablePath,
    headless: true,
    // No sandbox (containers and CI run as root), no GPU, and none of Chromium's own traffic to Google,
    // so that every request a test sees comes from the page.
    args: [
      "--no-sandbox",
      "--disable-gpu",
      "--disable-background-networking",
      "--disable-component-update",
      "--disable-sync",
    ],
  });
}
