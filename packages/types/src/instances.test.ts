import { describe, expect, it } from "vitest";
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

describe("chat-completions", () => {
  const request = validatorFor("chat-completions", "ChatCompletionRequest");
  const completion = validatorFor("chat-completions", "ChatCompletion");
  const base = { model: "support-lora", messages: [{ role: "user", content: "Hi" }], max_tokens: 16 };

  it.each([
    ["the minimal call", base],
    ["with temperature", { ...base, temperature: 0.7 }],
    ["with other OpenAI fields", { ...base, top_p: 0.9, seed: 1 }],
  ])("accepts %s", (_name, body) => expect(request(body)).toBe(true));

  it.each([
    ["no model", { ...base, model: undefined }],
    ["no messages", { ...base, messages: [] }],
    ["a message without content", { ...base, messages: [{ role: "user" }] }],
    ["no max_tokens", { ...base, max_tokens: undefined }],
    ["a fractional max_tokens", { ...base, max_tokens: 1.5 }],
    ["a temperature as a string", { ...base, temperature: "hot" }],
  ])("rejects %s", (_name, body) => expect(request(JSON.parse(JSON.stringify(body)))).toBe(false));

  it("accepts a reply whose content is null", () => {
    const reply = {
      id: "c",
      object: "chat.completion",
      created: 1,
      model: "m",
      choices: [{ index: 0, message: { role: "assistant", content: null } }],
    };
    expect(completion(reply)).toBe(true);
    expect(completion({ ...reply, choices: undefined })).toBe(false);
  });
});
