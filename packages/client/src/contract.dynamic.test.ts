// `prism mock --dynamic` invents answers from the Studio contract's schemas alone. What it invents for
// experiment metadata shows what the schema says of it: typed fields, not objects of `description` text.
import { type PrismMock, startPrism } from "@finetune-studio/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ids } from "./test/fixtures.js";

let mock: PrismMock;
beforeAll(async () => {
  mock = await startPrism("studio", { dynamic: true });
}, 90_000);
afterAll(() => mock?.stop());

const EXPECTED_TYPES = {
  id: "string",
  experiment_number: "number",
  base_model_id: "string",
  model_id: "string",
} as const;

describe("a dynamic mock of the Studio contract", () => {
  it("invents experiment metadata of the types the vendor's SDK states", async () => {
    const metadata: Record<string, unknown>[] = [];
    for (let read = 0; read < 5; read++) {
      const answer = await fetch(`${mock.url}/api/v1/public/projects/${ids.project}`, {
        headers: { Authorization: "Bearer dynamic-mock-token" },
      });
      expect(answer.status).toBe(200);
      const stack: { type?: unknown; metadata?: unknown; children?: unknown }[] = [
        ((await answer.json()) as { project: never }).project,
      ];
      for (let node = stack.pop(); node !== undefined; node = stack.pop()) {
        if (node.type === "experiment" && node.metadata !== undefined) {
          metadata.push(node.metadata as Record<string, unknown>);
        }
        if (Array.isArray(node.children)) stack.push(...node.children);
      }
    }
    expect(metadata.length).toBeGreaterThan(0);
    for (const entry of metadata) {
      for (const [field, type] of Object.entries(EXPECTED_TYPES)) {
        if (field in entry) expect(typeof entry[field], `${field} in ${JSON.stringify(entry)}`).toBe(type);
      }
    }
  }, 60_000);
});
