import type { ServeClientConfig } from "@finetune-studio/serve-kit";

/**
 * How to call the started server: curl, the SDK's chat client, and the OpenAI Python SDK. A key is written
 * as a reference to its environment variable, never as its value.
 */
export function clientSnippet(client: ServeClientConfig, apiKeyEnv: string | undefined): string {
  const body = JSON.stringify({
    model: client.model,
    messages: [{ role: "user", content: "Hello" }],
    max_tokens: 64,
  });
  const auth = apiKeyEnv === undefined ? "" : ` -H "Authorization: Bearer $${apiKeyEnv}"`;
  const tsKey = apiKeyEnv === undefined ? "" : `, apiKey: process.env.${apiKeyEnv}`;
  const pyKey = apiKeyEnv === undefined ? `"EMPTY"` : `os.environ["${apiKeyEnv}"]`;
  return [
    "Call it with curl:",
    `  curl ${client.baseURL}/chat/completions -H 'Content-Type: application/json'${auth} -d ${singleQuoted(body)}`,
    "with @finetune-studio/client:",
    `  const chat = createChatClient({ baseUrl: ${JSON.stringify(client.rootURL)}${tsKey} });`,
    `  const reply = await chat.text({ model: ${JSON.stringify(client.model)}, messages: [{ role: "user", content: "Hello" }], max_tokens: 64 });`,
    "with the OpenAI Python SDK:",
    `  client = OpenAI(base_url=${JSON.stringify(client.baseURL)}, api_key=${pyKey})`,
    "",
  ].join("\n");
}

/** One shell word: single quotes keep every byte literal; a single quote itself is closed, escaped, reopened. */
function singleQuoted(text: string): string {
  return `'${text.replaceAll("'", `'\\''`)}'`;
}
