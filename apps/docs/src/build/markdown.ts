import { Marked, type Tokens } from "marked";
import { decodeHtml, escapeHtml } from "./html.js";

/**
 * A block of code produced at build time, inserted where a guide says `<!-- insert: name -->`. A snippet of
 * `lang: "markdown"` (a generated table) is inserted as Markdown rather than as a code block.
 */
export interface Snippet {
  readonly lang: string;
  readonly code: string;
  /** Shown above the block; for TypeScript it is also the file name the snippet check compiles it as. */
  readonly title?: string;
}

export interface Heading {
  readonly depth: number;
  readonly id: string;
  readonly text: string;
}

const insertDirective = /^<!--\s*insert:\s*([\w.-]+)\s*-->$/gm;

/**
 * Renders a guide written in Markdown. Generated snippets replace the guide's insert directives; an
 * unknown name, or a snippet the guide never places, fails the build so nothing is silently lost.
 */
export function renderMarkdown(
  source: string,
  snippets: Readonly<Record<string, Snippet>> = {},
): { html: string; headings: Heading[] } {
  const unused = new Set(Object.keys(snippets));
  const expanded = source.replace(insertDirective, (_match, name: string) => {
    const snippet = snippets[name];
    if (!snippet) throw new Error(`unknown snippet "${name}" (known: ${Object.keys(snippets).join(", ")})`);
    unused.delete(name);
    return snippet.lang === "markdown" ? snippet.code : toFence(snippet);
  });
  if (unused.size > 0) throw new Error(`snippets never inserted: ${[...unused].join(", ")}`);

  const headings: Heading[] = [];
  const slugs = new Map<string, number>();
  const marked = new Marked({
    gfm: true,
    renderer: {
      heading({ tokens, depth }: Tokens.Heading) {
        const inner = this.parser.parseInline(tokens);
        const text = decodeHtml(inner.replace(/<[^>]*>/g, ""));
        const id = uniqueSlug(text, slugs);
        headings.push({ depth, id, text });
        return `<h${depth} id="${id}"><a class="anchor" href="#${id}" aria-hidden="true">#</a>${inner}</h${depth}>\n`;
      },
      code({ text, lang }: Tokens.Code) {
        const { language, title } = parseInfo(lang ?? "");
        const file = title ? ` data-file="${escapeHtml(title)}"` : "";
        const code = `<pre><code class="language-${language}" data-lang="${language}"${file}>${escapeHtml(text)}</code></pre>`;
        if (!title) return `${code}\n`;
        return `<figure class="code"><figcaption>${escapeHtml(title)}</figcaption>${code}</figure>\n`;
      },
    },
  });
  return { html: marked.parse(expanded, { async: false }), headings };
}

/** A fence longer than any backtick run in the code, so generated code can hold anything. */
function toFence(snippet: Snippet): string {
  const longestRun = Math.max(2, ...[...snippet.code.matchAll(/`+/g)].map((match) => match[0].length));
  const fence = "`".repeat(longestRun + 1);
  const title = snippet.title ? ` title=${snippet.title}` : "";
  return `${fence}${snippet.lang}${title}\n${snippet.code.replace(/\n$/, "")}\n${fence}`;
}

/** Fence info strings look like `ts title=studio.ts`. */
function parseInfo(info: string): { language: string; title?: string } {
  const [language = "text", ...rest] = info.trim().split(/\s+/);
  const title = rest.find((part) => part.startsWith("title="))?.slice("title=".length);
  return { language: language.replace(/[^\w-]/g, "") || "text", ...(title ? { title } : {}) };
}

function uniqueSlug(text: string, seen: Map<string, number>): string {
  const base =
    text
      .toLowerCase()
      .replace(/[^\p{L}\p{N}\s-]/gu, "")
      .trim()
      .replace(/\s+/g, "-") || "section";
  const count = seen.get(base) ?? 0;
  seen.set(base, count + 1);
  return count === 0 ? base : `${base}-${count + 1}`;
}
