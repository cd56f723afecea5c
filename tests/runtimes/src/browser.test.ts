// The client as a web page uses it: bundled from the npm-installed tarball by bundleForBrowser (browser
// platform, ESM, minified: what the bench measures and an app's bundler builds), loaded by a page in
// Debian's Chromium, calling the shared Prism mocks on another origin, so every call is a real CORS request.
import { createServer, type Server } from "node:http";
import { bundleForBrowser, getFreePort, launchChromium } from "@finetune-studio/testing";
import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";

const consumerDir = inject("consumerDir");
const studioUrl = inject("studioMockUrl");
const chatUrl = inject("chatMockUrl");
const token = "browser-test-token";
const projectId = "6f1c2a8e-4b7d-4e5a-9c3f-2d8b7a1e0f45";
// openai-node's name for the same opt-in; the client refuses a token-bearing Studio client in a browser without it.
const BROWSER_OPT_IN = "dangerouslyAllowBrowser";

/** What an app would ship: a module script that imports the bundle (handed to the tests on `window`). */
const page = `<!doctype html><title>client</title>
<script type="module">import * as client from "/client.js"; window.client = client;</script>`;

let bundle = "";
let pageServer: Server | undefined;
let pageUrl = "";
let browser: Browser | undefined;
let tab: Page | undefined;
const pageErrors: string[] = [];
/** Every request the page sent to the Studio mock's origin. */
const studioRequests: string[] = [];

function usePage(): Page {
  if (!tab) throw new Error("the page did not load");
  return tab;
}

/** The bundle's exports, as the page's module script put them on `window` (untyped JavaScript there). */
type PageWindow = { client: any };

beforeAll(async () => {
  const result = await bundleForBrowser({
    stdin: { contents: 'export * from "@finetune-studio/client";', resolveDir: consumerDir, loader: "js" },
  });
  bundle = result.outputFiles[0]?.text ?? "";
  pageServer = createServer((request, response) => {
    if (request.url === "/client.js") {
      response.writeHead(200, { "content-type": "text/javascript" }).end(bundle);
    } else if (request.url === "/") {
      response.writeHead(200, { "content-type": "text/html" }).end(page);
    } else {
      response.writeHead(404).end();
    }
  });
  const port = await getFreePort();
  await new Promise<void>((resolve) => pageServer?.listen(port, "127.0.0.1", resolve));
  pageUrl = `http://127.0.0.1:${port}/`;
  browser = await launchChromium();
  tab = await browser.newPage();
  tab.on("pageerror", (error) => pageErrors.push(error.message));
  tab.on("request", (request) => {
    if (new URL(request.url()).origin === new URL(studioUrl).origin) {
      studioRequests.push(`${request.method()} ${request.url()}`);
    }
  });
  await tab.goto(pageUrl);
  await tab.waitForFunction(() => "client" in window, undefined, { timeout: 30_000 });
});

afterAll(async () => {
  await browser?.close();
  await new Promise((resolve) => (pageServer ? pageServer.close(resolve) : resolve(undefined)));
});

describe("the client bundle in Chromium", () => {
  it("serves the page and the mocks from different origins, so every call is cross-origin", () => {
    expect(new Set([new URL(pageUrl).origin, new URL(studioUrl).origin, new URL(chatUrl).origin]).size).toBe(
      3,
    );
  });

  it("completes a chat with the chat client (no key, no opt-in)", async () => {
    const content = await usePage().evaluate(async (baseUrl) => {
      const { createChatClient } = (window as unknown as PageWindow).client;
      const chat = createChatClient({ baseUrl });
      return chat.text({
        model: "support-lora",
        messages: [{ role: "user", content: "How do I reset my password?" }],
        max_tokens: 64,
      });
    }, chatUrl);
    expect(typeof content).toBe("string");
    expect(content.length).toBeGreaterThan(0);
    expect(pageErrors).toEqual([]);
  });

  it(`reads a project tree with a Studio client created with ${BROWSER_OPT_IN}: true`, async () => {
    const name = await usePage().evaluate(
      async ({ baseUrl, token, projectId, optIn }) => {
        const { createStudioClient } = (window as unknown as PageWindow).client;
        const studio = createStudioClient({
          baseUrl,
          token,
          headers: { Prefer: "example=fullTree" },
          [optIn]: true,
        });
        const tree = await studio.getProjectTree(projectId);
        return tree.project.name as string;
      },
      { baseUrl: studioUrl, token, projectId, optIn: BROWSER_OPT_IN },
    );
    expect(name).toBe("Support assistant");
  });

  it(`refuses a token-bearing Studio client without ${BROWSER_OPT_IN}, before any request`, async () => {
    const before = studioRequests.length;
    const outcome = await usePage().evaluate(
      async ({ baseUrl, token, projectId }) => {
        const { createStudioClient } = (window as unknown as PageWindow).client;
        try {
          await createStudioClient({ baseUrl, token }).getProjectTree(projectId);
          return { refused: false, name: "", message: "" };
        } catch (error) {
          const { name, message } = error as Error;
          return { refused: true, name, message };
        }
      },
      { baseUrl: studioUrl, token, projectId },
    );
    expect(outcome.refused).toBe(true);
    expect(outcome.name).toBe("StudioValidationError");
    expect(outcome.message).toContain(BROWSER_OPT_IN);
    expect(outcome.message).not.toContain(token);
    expect(studioRequests.length).toBe(before);
  });
});
