import { existsSync, mkdirSync, readdirSync, statSync } from "node:fs";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { getFreePort } from "@finetune-studio/testing";
import type { Browser } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ALERT_NAMES, dashboardPanels } from "../src/build/monitoring-snippets.js";
import { distDir, docsDir } from "../src/build/paths.js";
import { type StaticServer, startStaticServer } from "../src/server/static-server.js";
import { launchChromium } from "./support/chromium.js";
import { findBrokenLinks } from "./support/links.js";
import { type PageVisit, visitPage } from "./support/visit.js";

// Built by `pnpm build` (turbo runs it before this test). Every top-level .html file is a page.
const pageFiles = existsSync(distDir)
  ? readdirSync(distDir)
      .filter((file) => file.endsWith(".html"))
      .sort()
  : [];
const screenshotDir = join(docsDir, "test-artifacts", "screenshots");

let server: StaticServer | undefined;
let browser: Browser | undefined;
const visits = new Map<string, PageVisit>();

function visitOf(file: string): PageVisit {
  const visit = visits.get(file);
  if (!visit) throw new Error(`${file} was not built or not visited`);
  return visit;
}

beforeAll(async () => {
  if (!pageFiles.includes("index.html")) throw new Error(`no site in ${distDir}: run \`pnpm build\` first`);
  mkdirSync(screenshotDir, { recursive: true });
  server = await startStaticServer({ root: distDir, host: "127.0.0.1", port: await getFreePort() });
  browser = await launchChromium();
  for (const file of pageFiles) {
    visits.set(
      file,
      await visitPage(browser, new URL(file, server.url).href, join(screenshotDir, `${file}.png`)),
    );
  }
});

afterAll(async () => {
  await browser?.close();
  await server?.close();
});

describe("every page, served on loopback", () => {
  it.each(pageFiles)("%s renders with no console error, page error or request leaving the site", (file) => {
    const visit = visitOf(file);
    expect(visit.problems).toEqual([]);
    expect(visit.ready).toBe("true");
  });

  it("the index links to every page", () => {
    const linked = new Set(visitOf("index.html").links.map((link) => new URL(link).pathname.slice(1)));
    expect(pageFiles.filter((file) => !linked.has(file))).toEqual([]);
  });

  it("every internal link and anchor resolves", () => {
    const pages = new Map([...visits].map(([file, visit]) => [`/${file}`, visit]));
    const fileExists = (path: string) => {
      const file = join(distDir, decodeURIComponent(path));
      return file.startsWith(distDir) && existsSync(file) && statSync(file).isFile();
    };
    expect(findBrokenLinks(pages, server?.url ?? "", fileExists)).toEqual([]);
  });
});

describe("what the pages show", () => {
  it("the Studio reference renders its three paths", () => {
    const { text } = visitOf("studio-api.html");
    for (const path of [
      "/api/v1/public/projects/{projectId}",
      "/api/v1/public/recommendations/{snapshotId}",
      "/api/v1/traces/{id}",
    ]) {
      expect(text).toContain(path);
    }
  });

  it("the chat-completions reference renders /v1/chat/completions", () => {
    expect(visitOf("chat-completions-api.html").text).toContain("/v1/chat/completions");
  });

  it("the serving guide renders the serving commands", () => {
    const { text } = visitOf("serving.html");
    for (const command of ["vllm serve", "--lora-modules", "--served-model-name"])
      expect(text).toContain(command);
  });

  it("the monitoring guide renders the three commands, and explains every panel and alert", () => {
    const { text } = visitOf("monitoring.html");
    for (const command of [
      "launch full",
      "prometheus --launch 8000",
      "grafana --slo",
      "job_name: front-door",
    ])
      expect(text).toContain(command);
    for (const panel of dashboardPanels()) expect(text).toContain(panel.title);
    for (const alert of ALERT_NAMES) expect(text).toContain(alert);
  });
});

describe("opened straight from disk (file://), as on an air-gapped machine", () => {
  it.each(pageFiles)("%s renders with no error and nothing fetched from elsewhere", async (file) => {
    if (!browser) throw new Error("no browser");
    const url = pathToFileURL(join(distDir, file)).href;
    const visit = await visitPage(browser, url, join(screenshotDir, `file-${file}.png`));
    expect(visit.problems).toEqual([]);
    expect(visit.ready).toBe("true");
  });
});
