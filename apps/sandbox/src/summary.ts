import { projectId, SANDBOX_TOKEN } from "./walkthrough.js";

export interface SandboxUrls {
  studio: string;
  chat: string;
  docs: string;
}

/** The URLs and a snippet to paste into a script of your own. */
export function printSummary(urls: SandboxUrls, out: NodeJS.WriteStream = process.stdout): void {
  out.write(`
Sandbox ready:
  Studio API mock        ${urls.studio}   (Prism, requests validated against openapi/studio.yaml)
  chat-completions mock  ${urls.chat}   (streams like vLLM, requests validated against openapi/chat-completions.yaml)
  docs                   ${urls.docs}/

Try it from your own code:

  import { createStudioClient } from "@finetune-studio/client";

  const studio = createStudioClient({ baseUrl: "${urls.studio}", token: "${SANDBOX_TOKEN}" });
  const { project } = await studio.getProjectTree("${projectId}");
  console.log(project.name);
`);
}
