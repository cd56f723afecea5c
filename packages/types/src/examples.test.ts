import { describe, expect, it } from "vitest";
import { type ApiName, createValidator, loadDocument } from "./test/contract-schema.js";

const { schema: validatorFor, inline } = createValidator();

interface ExampleCase {
  api: ApiName;
  where: string;
  /** A component schema's name, or an inline schema. */
  schema: string | object;
  value: unknown;
}

function deref(document: Record<string, any>, node: any): any {
  if (node && typeof node.$ref === "string" && node.$ref.startsWith("#/")) {
    const target = node.$ref
      .slice(2)
      .split("/")
      .reduce((at: any, key: string) => at[key.replace(/~1/g, "/").replace(/~0/g, "~")], document);
    return deref(document, target);
  }
  return node;
}

const schemaNameOf = (media: any): string | undefined =>
  media.schema?.$ref?.replace("#/components/schemas/", "");

/** Every named example of every request and response body, with the schema it must satisfy. */
function collectExamples(api: ApiName): ExampleCase[] {
  const document = loadDocument(api);
  const cases: ExampleCase[] = [];
  const addMedia = (where: string, content: Record<string, any> | undefined) => {
    for (const [mediaType, media] of Object.entries(content ?? {})) {
      // A body without a named schema (the LoRA routes' plain-text answers) is checked against its inline one.
      const schema = schemaNameOf(media) ?? media.schema;
      if (!schema) continue;
      if (media.example !== undefined) {
        cases.push({ api, where: `${where} ${mediaType} example`, schema, value: media.example });
      }
      for (const [name, example] of Object.entries<any>(media.examples ?? {})) {
        const value = deref(document, example).value;
        cases.push({ api, where: `${where} ${mediaType} example "${name}"`, schema, value });
      }
    }
  };
  for (const [path, item] of Object.entries<any>(document.paths)) {
    for (const [method, operation] of Object.entries<any>(item)) {
      const where = `${method.toUpperCase()} ${path}`;
      addMedia(`${where} request`, deref(document, operation.requestBody)?.content);
      for (const [status, response] of Object.entries<any>(operation.responses)) {
        addMedia(`${where} ${status}`, deref(document, response).content);
      }
    }
  }
  return cases;
}

describe.each(["studio", "chat-completions"] as const)(
  "every example in %s validates against its schema",
  (api) => {
    const cases = collectExamples(api);

    it("has named examples for every body of every success response", () => {
      const document = loadDocument(api);
      for (const [path, item] of Object.entries<any>(document.paths)) {
        for (const [method, operation] of Object.entries<any>(item)) {
          const content = deref(document, operation.responses["200"])?.content;
          if (!content) continue; // /health answers with no body
          for (const [mediaType, media] of Object.entries<any>(content)) {
            const examples = Object.keys(media.examples ?? {});
            expect(examples.length, `${method} ${path} ${mediaType}`).toBeGreaterThan(0);
          }
        }
      }
    });

    it.each(cases.map((c) => [c.where, c] as const))("%s", (_where, { schema, value }) => {
      const validate = typeof schema === "string" ? validatorFor(api, schema) : inline(schema);
      expect(validate(value), JSON.stringify(validate.errors)).toBe(true);
    });
  },
);
