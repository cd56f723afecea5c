// The runtime smoke suite: one plain ES module, no test framework, run unchanged by every runtime the
// packages claim (Node, Bun, Deno) from inside a project where the packed tarballs were installed with npm.
// It uses only what those runtimes share (fetch, crypto, process, node:module) and prints one line per
// check, `SMOKE {"check","status","detail"}`, so the harness can tabulate a runtime even if it dies midway.
// argv[2] is a JSON object: { packages, studioUrl, chatUrl, faultUrl } (see matrix.test.ts).
import { createRequire } from "node:module";

const config = JSON.parse(process.argv[2] ?? "{}");
const CHECK_TIMEOUT_MS = 30_000;
const token = "runtime-smoke-token";
const ids = {
  project: "6f1c2a8e-4b7d-4e5a-9c3f-2d8b7a1e0f45",
  snapshot: "0b5e9d4c-7a21-4f3e-8d6b-1c9a2e4f7b80",
  trace: "3d2f8a61-95c4-4b0e-a7d3-6e1f0c9b8a27",
};
const chatRequest = {
  model: "support-lora",
  messages: [{ role: "user", content: "How do I reset my password?" }],
  max_tokens: 64,
};

function report(check, status, detail = "") {
  console.log(`SMOKE ${JSON.stringify({ check, status, detail: String(detail).slice(0, 500) })}`);
}

/** A check passes when `run` resolves; it resolves to a detail, or to `{ skipped }` for "not applicable". */
async function check(name, run) {
  let timer;
  const timeout = new Promise((_, reject) => {
    timer = setTimeout(() => reject(new Error(`no result after ${CHECK_TIMEOUT_MS} ms`)), CHECK_TIMEOUT_MS);
  });
  try {
    const result = await Promise.race([run(), timeout]);
    if (result && typeof result === "object" && "skipped" in result) report(name, "skipped", result.skipped);
    else report(name, "pass", result ?? "");
  } catch (error) {
    report(name, "fail", error instanceof Error ? `${error.name}: ${error.message}` : String(error));
  } finally {
    clearTimeout(timer);
  }
}

function assert(condition, message) {
  if (!condition) throw new Error(message);
}

function sameJson(actual, expected, what) {
  assert(
    JSON.stringify(actual) === JSON.stringify(expected),
    `${what}: got ${JSON.stringify(actual)?.slice(0, 200)}`,
  );
}

/** A fetch that counts the requests the client really sends. */
function countingFetch() {
  const counted = (input, init) => {
    counted.calls += 1;
    return fetch(input, init);
  };
  counted.calls = 0;
  return counted;
}

const require = createRequire(import.meta.url);

// The packages with a JavaScript entry (a bin-only package has nothing to import).
function importable(names) {
  return names.filter((name) => {
    const manifest = require(`${name}/package.json`);
    return manifest.exports?.["."] !== undefined || manifest.main !== undefined;
  });
}

const packages = importable(config.packages);

const namespaces = new Map();

await check("import", async () => {
  for (const name of packages) namespaces.set(name, await import(name));
  const client = namespaces.get("@finetune-studio/client") ?? {};
  for (const used of ["createStudioClient", "createChatClient", "findNodes", "StudioValidationError"]) {
    assert(used in client, `@finetune-studio/client has no export ${used}`);
  }
  return [...namespaces].map(([name, namespace]) => `${name}: ${Object.keys(namespace).length}`).join(", ");
});

await check("require", () => {
  // require(esm) must hand back the same module that import does.
  const exportNames = (module) =>
    Object.keys(module)
      .filter((key) => key !== "__esModule")
      .sort()
      .join();
  for (const name of packages) {
    const required = exportNames(require(name));
    const imported = exportNames(namespaces.get(name) ?? {});
    assert(required === imported, `require("${name}") exports [${required}], import exports [${imported}]`);
  }
  const studioDocument = require("@finetune-studio/types/studio.openapi.json");
  assert(studioDocument.openapi?.startsWith("3."), "the bundled Studio contract did not load");
  return `${packages.length} packages and a JSON contract`;
});

// Loaded once for the checks below; if it fails, "import" above has already said why and each check fails.
const client = await import("@finetune-studio/client").catch(() => ({}));
const studioDocument = await import("@finetune-studio/types/studio.openapi.json", { with: { type: "json" } })
  .then((module) => module.default)
  .catch(() => ({ components: { examples: {} } }));
const example = (name) => studioDocument.components.examples[name]?.value;

/** A Studio client against the Prism mock; `prefer` picks one of the contract's named examples. */
const studioAt = (prefer, extra = {}) =>
  client.createStudioClient({
    baseUrl: config.studioUrl,
    token,
    headers: { Prefer: `example=${prefer}` },
    ...extra,
  });

await check("studio.getProjectTree", async () => {
  const tree = await studioAt("fullTree").getProjectTree(ids.project);
  sameJson(tree, example("ProjectTreeFull"), "the project tree");
  const experiments = client.findNodes(tree, "experiment").map((node) => node.label);
  return `${experiments.length} experiments`;
});

await check("studio.getRecommendations", async () => {
  const recommendations = await studioAt("completed").getRecommendations(ids.snapshot);
  sameJson(recommendations, example("RecommendationsCompleted"), "the recommendations");
  return recommendations.status;
});

await check("studio.updateTrace", async () => {
  const trace = await studioAt("scored").updateTrace(ids.trace, {
    score: 0.85,
    feedback: "Right, too formal.",
  });
  sameJson(trace, example("TraceScored"), "the trace");
  return `score ${trace.score}`;
});

await check("chat.complete", async () => {
  const completion = await client.createChatClient({ baseUrl: config.chatUrl }).complete(chatRequest);
  const content = completion.choices?.[0]?.message?.content;
  assert(typeof content === "string" && content.length > 0, "the completion has no message content");
  return `${content.length} characters`;
});

await check("validation error", async () => {
  const fetch = countingFetch();
  const studio = client.createStudioClient({ baseUrl: config.studioUrl, token, fetch });
  const error = await studio.updateTrace(ids.trace, { score: 2 }).then(
    () => undefined,
    (caught) => caught,
  );
  assert(error instanceof client.StudioValidationError, `expected a StudioValidationError, got ${error}`);
  assert(error.field === "score", `the error names field ${error.field}, not score`);
  assert(fetch.calls === 0, `${fetch.calls} request(s) were sent before the error`);
  return `${error.field}: ${error.rule}`;
});

await check("retried 503", async () => {
  // The fault server answers 503 to the first request for each project id, then the tree.
  const fetch = countingFetch();
  const studio = client.createStudioClient({ baseUrl: config.faultUrl, token, fetch, maxRetries: 2 });
  const tree = await studio.getProjectTree(crypto.randomUUID());
  assert(
    tree.project?.name === "served after a 503",
    `unexpected tree ${JSON.stringify(tree).slice(0, 200)}`,
  );
  assert(fetch.calls === 2, `${fetch.calls} requests, expected the failed one and one retry`);
  return "2 requests";
});

// ── A STREAM ───────────────────────────────────────────────────────────────────────────────────────────
// `chat.stream(request)` resolves to a ChatCompletionStream, an async iterable of chat.completion.chunk
// objects; here it reads the fault server's server-sent events (two content deltas, then [DONE]).
await check("chat.stream", async () => {
  const chat = client.createChatClient({ baseUrl: config.faultUrl });
  assert(typeof chat.stream === "function", "the packed client has no chat.stream");
  let text = "";
  for await (const chunk of await chat.stream(chatRequest)) text += chunk.choices?.[0]?.delta?.content ?? "";
  assert(text === "Open Settings.", `the streamed deltas read ${JSON.stringify(text)}`);
  return "2 deltas";
});
// ───────────────────────────────────────────────────────────────────────────────────────────────────────

report("done", "pass");
