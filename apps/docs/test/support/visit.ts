import type { Browser } from "playwright-core";
import { staysOnSite } from "./origin.js";

/** What a page did while it loaded and rendered, and what it shows once ready. */
export interface PageVisit {
  readonly url: string;
  /** `true` once rendered; Redoc pages say `error` when Redoc failed. */
  readonly ready: string | null;
  /** Console errors, page errors, failed or refused requests, and every request that left the site. */
  readonly problems: string[];
  /** The rendered text, as a person sees it. */
  readonly text: string;
  /** Every link target, resolved to an absolute URL. */
  readonly links: string[];
  readonly ids: Set<string>;
}

/**
 * Opens `url` in a fresh context, waits until the page says it is ready and its images settled, and saves a
 * full-page screenshot. Requests that would leave the site are refused before they go out, and recorded.
 */
export async function visitPage(browser: Browser, url: string, screenshotPath: string): Promise<PageVisit> {
  const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
  const problems: string[] = [];
  try {
    await context.route("**/*", (route) => {
      const target = route.request().url();
      if (staysOnSite(target, url)) return route.continue();
      problems.push(`request leaving the site: ${target}`);
      return route.abort("blockedbyclient");
    });
    const page = await context.newPage();
    // A safety net for a loaded 2-core machine, not an assertion: Redoc can take a while to render there.
    page.setDefaultTimeout(90_000);
    page.on("console", (message) => {
      if (message.type() === "error") problems.push(`console error: ${message.text()}`);
    });
    page.on("pageerror", (error) => problems.push(`page error: ${error.message}`));
    page.on("requestfailed", (request) => {
      problems.push(`request failed: ${request.url()} (${request.failure()?.errorText ?? "unknown"})`);
    });
    page.on("response", (response) => {
      if (response.status() >= 400) problems.push(`HTTP ${response.status()}: ${response.url()}`);
    });
    page.on("websocket", (socket) => problems.push(`websocket: ${socket.url()}`));

    await page.goto(url, { waitUntil: "networkidle" });
    await page.waitForSelector("body[data-ready]");
    // Redoc mounts some images after it reports ready; wait for them so their requests are seen too.
    await page.waitForFunction(() => [...document.images].every((image) => image.complete));
    await page.evaluate(() => document.fonts.ready.then(() => undefined));
    await page.screenshot({ path: screenshotPath, fullPage: true });
    const rendered = await page.evaluate(() => ({
      ready: document.body.dataset.ready ?? null,
      links: [...document.querySelectorAll("a[href]")].map((anchor) => (anchor as HTMLAnchorElement).href),
      ids: [...document.querySelectorAll("[id]")].map((element) => element.id),
    }));
    // biome-ignore lint/performance/useDomNodeTextContent: the assertions are about what a person sees (rendered text).
    const text = await page.locator("body").innerText();
    return { url, problems, text, ...rendered, ids: new Set(rendered.ids) };
  } finally {
    await context.close();
  }
}
