import { escapeHtml } from "./html.js";
import type { Heading } from "./markdown.js";

/** A guide's body: an "On this page" list of its sections beside the rendered Markdown. */
export function renderGuideBody(rendered: { html: string; headings: readonly Heading[] }): string {
  const sections = rendered.headings
    .filter((heading) => heading.depth === 2)
    .map((heading) => `<li><a href="#${heading.id}">${escapeHtml(heading.text)}</a></li>`)
    .join("\n        ");
  return `  <main class="guide">
    <nav class="toc" aria-label="On this page">
      <p>On this page</p>
      <ol>
        ${sections}
      </ol>
    </nav>
    <article>
${rendered.html}
    </article>
  </main>`;
}
