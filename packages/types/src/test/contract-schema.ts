// Test support: compiles the bundled documents' schemas with a JSON Schema 2020-12 validator, formats on.
import { readFileSync } from "node:fs";
import { Ajv2020, type ValidateFunction } from "ajv/dist/2020.js";
import formatsPlugin, { type FormatsPlugin } from "ajv-formats";

// ajv-formats is CommonJS whose typings declare an ES default export; under NodeNext the default import is
// the CommonJS module.exports, which is the plugin itself.
const addFormats = formatsPlugin as unknown as FormatsPlugin;

export type ApiName = "studio" | "chat-completions";

export function loadDocument(api: ApiName): Record<string, any> {
  const url = new URL(`../../openapi/${api}.openapi.json`, import.meta.url);
  return JSON.parse(readFileSync(url, "utf8"));
}

export function createValidator() {
  const ajv = new Ajv2020({ allErrors: true, strict: true, strictTypes: false, allowUnionTypes: true });
  addFormats(ajv);
  // OpenAPI annotations that are not JSON Schema keywords.
  ajv.addVocabulary(["example", "discriminator", "xml", "externalDocs"]);
  // The documents are added whole under their components, which JSON Schema knows nothing of.
  ajv.addVocabulary(["components"]);
  for (const api of ["studio", "chat-completions"] as const) {
    const { components } = loadDocument(api);
    ajv.addSchema({ $id: `${api}.json`, components }, undefined, undefined, false);
  }
  /** A validator for `#/components/schemas/<name>` of a document (compiled once, then cached by ajv). */
  const schema = (api: ApiName, name: string): ValidateFunction => {
    const validate = ajv.getSchema(`${api}.json#/components/schemas/${name}`);
    if (!validate) throw new Error(`${api} has no schema ${name}`);
    return validate;
  };
  /** A validator for a schema taken out of a document (one with no references). */
  const inline = (schemaObject: object): ValidateFunction => ajv.compile(schemaObject);
  return { schema, inline };
}
