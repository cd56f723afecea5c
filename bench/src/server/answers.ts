// The bodies the answering server sends, taken from the contracts' own `components.examples`, so the bench
// parses the same realistic documents the contract tests check (and follows them when they change).
import { createRequire } from "node:module";

const require = createRequire(import.meta.url);

interface OpenApiDocument {
  components: { examples: Record<string, { value: unknown }> };
  paths: Record<string, Record<string, { requestBody: { content: Record<string, RequestContent> } }>>;
}

interface RequestContent {
  examples: Record<string, { value?: unknown; $ref?: string }>;
}

function example(documentName: string, exampleName: string): unknown {
  const document = require(`@finetune-studio/types/${documentName}`) as OpenApiDocument;
  const found = document.components.examples[exampleName];
  if (!found) throw new Error(`${documentName} has no example named ${exampleName}`);
  return found.value;
}

/** A request body example of an operation, as the contract gives it. */
function requestExample(documentName: string, path: string, method: string, exampleName: string): unknown {
  const document = require(`@finetune-studio/types/${documentName}`) as OpenApiDocument;
  const found =
    document.paths[path]?.[method]?.requestBody.content["application/json"]?.examples[exampleName];
  if (!found)
    throw new Error(`${documentName} has no ${method} ${path} request example named ${exampleName}`);
  // A bundled document keeps shared examples under components and points at them.
  const shared = found.$ref?.replace("#/components/examples/", "");
  return shared === undefined ? found.value : example(documentName, shared);
}

/** One answer per route, serialised once: the server should cost the same for every client measured. */
export const answers = {
  projectTree: JSON.stringify(example("studio.openapi.json", "ProjectTreeFull")),
  recommendations: JSON.stringify(example("studio.openapi.json", "RecommendationsCompleted")),
  trace: JSON.stringify(example("studio.openapi.json", "TraceScored")),
  chatCompletion: JSON.stringify(example("chat-completions.openapi.json", "ChatCompletionReply")),
  models: JSON.stringify(example("chat-completions.openapi.json", "ModelListLora")),
} as const;

/** The ids the scenarios ask for: the ones the examples themselves carry. */
export const ids = {
  projectId: (JSON.parse(answers.projectTree) as { project: { id: string } }).project.id,
  snapshotId: (JSON.parse(answers.recommendations) as { snapshot_id: string }).snapshot_id,
  traceId: (JSON.parse(answers.trace) as { id: string }).id,
  model: (JSON.parse(answers.chatCompletion) as { model: string }).model,
};

/** What the scenarios send: the request examples of the contracts. */
export const requests = {
  traceUpdate: requestExample("studio.openapi.json", "/api/v1/traces/{id}", "put", "score"),
  chatCompletion: requestExample("chat-completions.openapi.json", "/v1/chat/completions", "post", "adapter"),
};

/** The body answering `method path`, or undefined for a route no scenario calls (a 404). */
export function answerFor(method: string, path: string): string | undefined {
  if (method === "GET" && path.startsWith("/api/v1/public/projects/")) return answers.projectTree;
  if (method === "GET" && path.startsWith("/api/v1/public/recommendations/")) return answers.recommendations;
  if (method === "PUT" && path.startsWith("/api/v1/traces/")) return answers.trace;
  if (method === "POST" && path === "/v1/chat/completions") return answers.chatCompletion;
  if (method === "GET" && path === "/v1/models") return answers.models;
  if (method === "GET" && path === "/health") return "";
  return undefined;
}
