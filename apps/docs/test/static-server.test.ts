import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { request } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type StaticServer, startStaticServer } from "../src/server/static-server.js";

const parent = mkdtempSync(join(tmpdir(), "docs-static-"));
const root = join(parent, "site");
let server: StaticServer;

/** A raw GET, so the path reaches the server exactly as written (fetch would normalise `..`). */
function get(path: string): Promise<{ status: number; type: string | undefined; body: string }> {
  return new Promise((resolve, reject) => {
    const req = request({ host: "127.0.0.1", port: server.port, path }, (response) => {
      let body = "";
      response.on("data", (chunk: Buffer) => {
        body += chunk.toString();
      });
      response.on("end", () =>
        resolve({ status: response.statusCode ?? 0, type: response.headers["content-type"], body }),
      );
    });
    req.on("error", reject);
    req.end();
  });
}

beforeAll(async () => {
  rmSync(root, { recursive: true, force: true });
  mkdirSync(root);
  writeFileSync(join(root, "index.html"), "<p>home</p>");
  writeFileSync(join(root, "studio.openapi.json"), "{}");
  writeFileSync(join(parent, "secret.txt"), "outside the site");
  server = await startStaticServer({ root });
});

afterAll(async () => {
  await server.close();
  rmSync(parent, { recursive: true, force: true });
});

describe("startStaticServer", () => {
  it("binds to loopback by default", () => {
    expect(server.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/$/);
  });

  it.each([
    ["/", 200, "text/html; charset=utf-8"],
    ["/index.html", 200, "text/html; charset=utf-8"],
    ["/studio.openapi.json", 200, "application/json; charset=utf-8"],
    ["/missing.html", 404, "text/plain; charset=utf-8"],
  ])("GET %s answers %i", async (path, status, type) => {
    const response = await get(path);
    expect(response.status).toBe(status);
    expect(response.type).toBe(type);
  });

  it.each(["/../secret.txt", "/%2e%2e/secret.txt", "/..%2fsecret.txt"])(
    "never serves a file outside its root (%s)",
    async (path) => {
      const response = await get(path);
      expect(response.status).toBe(404);
      expect(response.body).not.toContain("outside the site");
    },
  );
});
