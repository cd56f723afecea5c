import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { limitsFromDocument } from "../scripts/limits.mjs";
import {
  chatCompletionRequestLimits,
  chatLimits,
  studioLimits,
  traceUpdateLimits,
  updateTraceLimits,
} from "./index.js";

const bundled = (name: string) =>
  JSON.parse(readFileSync(new URL(`../openapi/${name}.openapi.json`, import.meta.url), "utf8"));

describe("the generated limits", () => {
  it.each([
    ["studio", studioLimits],
    ["chat-completions", chatLimits],
  ])("are the limits of the bundled %s document", (name, generated) => {
    expect(generated).toEqual(limitsFromDocument(bundled(name)));
  });

  it("are exported one per operation and schema too, the same objects", () => {
    expect(studioLimits.schemas.TraceUpdate).toBe(traceUpdateLimits);
    expect(studioLimits.operations.updateTrace).toBe(updateTraceLimits);
    expect(chatLimits.schemas.ChatCompletionRequest).toBe(chatCompletionRequestLimits);
    expect(chatCompletionRequestLimits.max_tokens).toEqual({ minimum: 1, type: "integer" });
  });

  it("hold the specification's limits: score 0..1, feedback 2048, uuid ids", () => {
    const { schemas, operations } = studioLimits;
    for (const schema of [schemas.TraceUpdate, schemas.Trace]) {
      expect(schema.score).toEqual({ minimum: 0, maximum: 1 });
      expect(schema.feedback).toEqual({ maxLength: 2048 });
      expect(schema.projectId).toEqual({ format: "uuid" });
    }
    expect(operations.getProjectTree.path.projectId).toEqual({ format: "uuid" });
    expect(operations.getRecommendations.path.snapshotId).toEqual({ format: "uuid" });
    expect(operations.updateTrace.path.id).toEqual({ format: "uuid" });
  });
});

describe("limitsFromDocument", () => {
  it("follows a limit changed in a copy of the contract", () => {
    const copy = bundled("studio");
    copy.components.schemas.TraceUpdate.properties.feedback.maxLength = 100;
    copy.components.schemas.TraceUpdate.properties.score.maximum = 10;
    const { schemas } = limitsFromDocument(copy);
    expect(schemas.TraceUpdate?.feedback).toEqual({ maxLength: 100 });
    expect(schemas.TraceUpdate?.score).toEqual({ minimum: 0, maximum: 10 });
  });

  it("keeps only limit keywords, resolves $refs and leaves out what has no limit", () => {
    const document = {
      paths: {
        "/things/{thingId}": {
          parameters: [{ $ref: "#/components/parameters/ThingId" }],
          get: {
            operationId: "getThing",
            parameters: [
              { name: "limit", in: "query", schema: { type: "integer", minimum: 1, maximum: 50 } },
              { name: "x-trace", in: "header", schema: { type: "string", maxLength: 8 } },
            ],
          },
        },
      },
      components: {
        parameters: { ThingId: { name: "thingId", in: "path", schema: { type: "string", format: "uuid" } } },
        schemas: {
          Name: { type: "string", minLength: 1, maxLength: 40, description: "not a limit" },
          Thing: {
            type: "object",
            properties: { name: { $ref: "#/components/schemas/Name" }, note: { type: "string" } },
          },
          Plain: { type: "object", properties: { note: { type: "string" } } },
        },
      },
    };
    expect(limitsFromDocument(document)).toEqual({
      operations: {
        getThing: {
          path: { thingId: { format: "uuid" } },
          query: { limit: { minimum: 1, maximum: 50, type: "integer" } },
        },
      },
      schemas: { Thing: { name: { minLength: 1, maxLength: 40 } } },
    });
  });
});
