import { createChatClient, createStudioClient, findNodes } from "@finetune-studio/client";
import { buildServeCommand, serveConfigFromRecommendations } from "@finetune-studio/serve-kit";
import studio from "@finetune-studio/types/studio.openapi.json" with { type: "json" };
import { progressLine } from "./progress.js";
import { renderTree } from "./render-tree.js";
import { scriptedRecommendations } from "./scripted-fetch.js";

export interface WalkthroughUrls {
  studio: string;
  chat: string;
}

/** Any token will do for the mock; Prism only checks that one is sent. */
export const SANDBOX_TOKEN = "sandbox-token";

/** The studio's base model ids, mapped to the hub ids vLLM would load (the "model mapping table"). */
const baseModelMapping = {
  "llama-3.1-8b-instruct": "meta-llama/Llama-3.1-8B-Instruct",
  "qwen2.5-1.5b-instruct": "Qwen/Qwen2.5-1.5B-Instruct",
};

// The ids the contract's own examples use, so the walkthrough reads like the documentation.
export const projectId = studio.paths["/api/v1/public/projects/{projectId}"].get.parameters[0]?.example ?? "";
const traceId = studio.paths["/api/v1/traces/{id}"].put.parameters[0]?.example ?? "";

function heading(out: NodeJS.WriteStream, step: number, title: string) {
  out.write(`\n${step}. ${title}\n`);
}

/** Uses the real packages against the mocks, printing each step for a person to read. */
export async function runWalkthrough(urls: WalkthroughUrls, out: NodeJS.WriteStream = process.stdout) {
  const client = createStudioClient({
    baseUrl: urls.studio,
    token: SANDBOX_TOKEN,
    fetch: scriptedRecommendations(2),
  });

  heading(out, 1, `Project tree (GET /api/v1/public/projects/${projectId})`);
  const tree = await client.getProjectTree(projectId);
  for (const line of renderTree(tree.project)) out.write(`   ${line}\n`);

  const snapshot = findNodes(tree, "snapshot")[0];
  if (!snapshot) throw new Error("the mock's project tree has no snapshot");
  heading(out, 2, `Recommendations for snapshot "${snapshot.label}"`);
  const progress = progressLine(out);
  const recommendations = await client.waitForRecommendations(snapshot.id, {
    intervalMs: 400,
    onPoll: (answer, poll) => progress.update(`poll ${poll}: ${answer.status}`),
  });
  progress.done(`recommendations ${recommendations.status}`);

  const experiment = recommendations.recommended_experiments?.find((candidate) => candidate.recommended);
  if (experiment) {
    heading(out, 3, "Recommended experiment");
    out.write(`   base model      ${experiment.base_model_id}\n`);
    out.write(`   fine-tuning     ${experiment.lora ? "LoRA" : "full"}\n`);
    out.write(
      `   hyperparameters n_epochs=${experiment.n_epochs} batch_size=${experiment.batch_size} learning_rate_multiplier=${experiment.learning_rate_multiplier}\n`,
    );
    if (experiment.reason_for_recommendation)
      out.write(`   why             ${experiment.reason_for_recommendation}\n`);
  }

  heading(out, 4, "Serve it with vLLM (built by @finetune-studio/serve-kit)");
  const serve = buildServeCommand(
    serveConfigFromRecommendations(recommendations, {
      adapterPath: "./adapters/support-lora",
      baseModelMapping,
    }),
  );
  out.write(`   ${serve.shell}\n`);
  out.write(`   clients send model "${serve.client.model}" to ${serve.client.baseURL}\n`);

  heading(out, 5, `Score a trace (PUT /api/v1/traces/${traceId})`);
  const update = { score: 0.9, feedback: "Helpful and concise." };
  const trace = await client.updateTrace(traceId, update);
  out.write(`   sent    score ${update.score}, feedback ${JSON.stringify(update.feedback)}\n`);
  // Prism's static mock answers with the contract's example trace, whatever was sent.
  out.write(
    `   answer  score ${trace.score}, feedback ${JSON.stringify(trace.feedback)} (the mock's example trace)\n`,
  );
  out.write(`   model ${trace.modelId}, linked project ${trace.projectId ?? "none"}\n`);
  out.write(`   processing ${trace.processingStatus}, in dataset: ${trace.addedToDataset ? "yes" : "no"}\n`);

  heading(out, 6, "Chat with the served model (POST /v1/chat/completions on the chat mock)");
  const chat = createChatClient({ baseUrl: urls.chat });
  const question = "How do I reset my password?";
  const stream = await chat.stream({
    model: serve.client.model,
    messages: [{ role: "user", content: question }],
    max_tokens: 64,
  });
  // The reply is written as it arrives, token by token (the mock paces its chunks).
  out.write(`   you:   ${question}\n   model: `);
  for await (const piece of stream.textStream()) out.write(piece);
  out.write("\n");
}
