// The chat-completions contract as the mock sees it: the bundled document shipped by
// @finetune-studio/types, its named examples, and a JSON Schema 2020-12 validator for its schemas.
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { Ajv2020, type ErrorObject, type ValidateFunction } from "ajv/dist/2020.js";
import formatsPlugin, { type FormatsPlugin } from "ajv-formats";

// ajv-formats is CommonJS whose typings declare an ES default export; under NodeNext the default import is
// the CommonJS module.exports, which is the plugin itself.
const addFormats = formatsPlugin as unknown as FormatsPlugin;
const require = createRequire(import.meta.url);

// biome-ignore lint/suspicious/noExplicitAny: the document is JSON read at run time
export type ChatDocument = Record<string, any>;

let cached: ChatDocument | undefined;

/** The bundled chat-completions document (read once). */
export function chatDocument(): ChatDocument {
  cached ??= JSON.parse(
    readFileSync(require.resolve("@finetune-studio/types/chat-completions.openapi.json"), "utf8"),
  ) as ChatDocument;
  return cached;
}

/** A copy of the value of a named example of the contract (`components.examples.<name>`). */
export function chatExample<T = unknown>(name: string): T {
  const example = chatDocument().components.examples[name];
  if (!example) throw new Error(`the chat-completions contract has no example ${name}`);
  return structuredClone(example.value) as T;
}

export interface ChatSchemaCheck {
  (value: unknown): boolean;
  /** What the last failed check found, one line per problem (`/messages/0/role must be ...`). */
  readonly problems: string[];
}

let ajv: Ajv2020 | undefined;

function validatorFor(name: string): ValidateFunction {
  if (!ajv) {
    ajv = new Ajv2020({ allErrors: true, strict: true, strictTypes: false, allowUnionTypes: true });
    addFormats(ajv);
    // OpenAPI annotations and the document's own sections, which are not JSON Schema keywords.
    ajv.addVocabulary(["example", "discriminator", "xml", "externalDocs", "components"]);
    ajv.addSchema({ $id: "chat.json", components: chatDocument().components }, undefined, undefined, false);
  }
  const validate = ajv.getSchema(`chat.json#/components/schemas/${name}`);
  if (!validate) throw new Error(`the chat-completions contract has no schema ${name}`);
  return validate;
}

const describeError = (error: ErrorObject): string =>
  `${error.instancePath || "(body)"} ${error.message ?? "is invalid"}`;

/** A check of values against `#/components/schemas/<name>` of the contract. */
export function chatSchema(name: string): ChatSchemaCheck {
  const validate = validatorFor(name);
  let problems: string[] = [];
  const check = ((value: unknown) => {
    const ok = validate(value);
    problems = ok ? [] : (validate.errors ?? []).map(describeError);
    return ok;
  }) as ChatSchemaCheck;
  Object.defineProperty(check, "problems", { get: () => problems });
  return check;
}
