import { describe, expect, it } from "vitest";
import { invalidChat, validChat } from "./test/chat-instances.js";
import { createValidator, loadDocument } from "./test/contract-schema.js";
import { invalid, valid } from "./test/instances.js";

const { schema: validatorFor, inline } = createValidator();

describe.each(Object.keys(valid))("%s", (schema) => {
  const validate = validatorFor("studio", schema);
  it.each(valid[schema] ?? [])("accepts %s", (_name, instance) => {
    expect(validate(instance), JSON.stringify(validate.errors)).toBe(true);
  });
  it.each(invalid[schema] ?? [])("rejects %s", (_name, instance) => {
    expect(validate(instance)).toBe(false);
  });
});

describe("path parameters", () => {
  const studio = loadDocument("studio");
  const parameters = Object.entries<any>(studio.paths).flatMap(([path, item]) =>
    Object.values<any>(item).flatMap((operation) =>
      operation.parameters.map((p: any) => [`${path} ${p.name}`, p] as const),
    ),
  );

  it.each(parameters)("%s is a required uuid", (_name, parameter) => {
    expect(parameter).toMatchObject({
      in: "path",
      required: true,
      schema: { type: "string", format: "uuid" },
    });
  });

  it.each(parameters)("%s refuses ids that are not uuids", (_name, parameter) => {
    const validate = inline(parameter.schema);
    expect(validate(parameter.example)).toBe(true);
    for (const bad of ["../admin", "", "6f1c2a8e4b7d4e5a9c3f2d8b7a1e0f45x", "not-a-uuid"]) {
      expect(validate(bad), bad).toBe(false);
    }
  });
});

describe("authentication", () => {
  const studio = loadDocument("studio");
  it("requires a bearer token on every operation", () => {
    expect(studio.components.securitySchemes.bearerAuth).toMatchObject({ type: "http", scheme: "bearer" });
    expect(studio.security).toEqual([{ bearerAuth: [] }]);
    for (const item of Object.values<any>(studio.paths)) {
      for (const operation of Object.values<any>(item)) expect(operation.security).toBeUndefined();
    }
  });
});

describe.each(Object.keys(validChat))("chat-completions %s", (schema) => {
  const validate = validatorFor("chat-completions", schema);
  it.each(validChat[schema] ?? [])("accepts %s", (_name, instance) => {
    expect(validate(instance), JSON.stringify(validate.errors)).toBe(true);
  });
  it.each(invalidChat[schema] ?? [])("rejects %s", (_name, instance) => {
    expect(validate(JSON.parse(JSON.stringify(instance)))).toBe(false);
  });
});

describe("chat-completions limits", () => {
  const request = loadDocument("chat-completions").components.schemas.ChatCompletionRequest;
  // The limits vLLM checks (SamplingParams and the request validators), read from the contract.
  it.each<[string, Record<string, number>]>([
    ["temperature", { minimum: 0 }],
    ["top_p", { exclusiveMinimum: 0, maximum: 1 }],
    ["top_k", { minimum: -1 }],
    ["min_p", { minimum: 0, maximum: 1 }],
    ["presence_penalty", { minimum: -2, maximum: 2 }],
    ["frequency_penalty", { minimum: -2, maximum: 2 }],
    ["repetition_penalty", { exclusiveMinimum: 0 }],
    ["max_tokens", { minimum: 1 }],
    ["max_completion_tokens", { minimum: 1 }],
    ["n", { minimum: 1 }],
    ["top_logprobs", { minimum: -1 }],
  ])("%s", (field, bounds) => {
    expect(request.properties[field]).toMatchObject(bounds);
  });

  it("requires only messages", () => {
    expect(request.required).toEqual(["messages"]);
  });
});
