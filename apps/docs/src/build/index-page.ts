import type { Contract } from "./contracts.js";
import { escapeHtml } from "./html.js";

export interface IndexEntry {
  readonly file: string;
  readonly title: string;
  readonly summary: string;
}

/** The landing page: every guide, both references with their downloads, and the optional benchmark page. */
export function renderIndexBody(options: {
  guides: readonly IndexEntry[];
  contracts: readonly Contract[];
  bench?: IndexEntry;
  redocVersion: string;
}): string {
  const guideCards = options.guides.map(
    (guide) => `<li class="card">
          <h3><a href="${escapeHtml(guide.file)}">${escapeHtml(guide.title)}</a></h3>
          <p>${escapeHtml(guide.summary)}</p>
        </li>`,
  );
  const referenceCards = options.contracts.map(({ page, download, title, document }) => {
    const { info } = document;
    return `<li class="card">
          <h3><a href="${escapeHtml(page)}">${escapeHtml(title)}</a></h3>
          <p>${escapeHtml(info.title)}, version ${escapeHtml(info.version)}. ${escapeHtml(info.summary ?? "")}</p>
          <p><a class="download" href="${escapeHtml(download)}" download>Download ${escapeHtml(download)}</a></p>
        </li>`;
  });
  const bench = options.bench
    ? `
    <section>
      <h2 id="benchmarks">Benchmarks</h2>
      <ul class="cards">
        <li class="card">
          <h3><a href="${escapeHtml(options.bench.file)}">${escapeHtml(options.bench.title)}</a></h3>
          <p>${escapeHtml(options.bench.summary)}</p>
        </li>
      </ul>
    </section>`
    : "";
  return `  <main class="index">
    <h1>Finetune Studio SDK</h1>
    <p class="lead">TypeScript packages for the Model Fine-Tuning Studio public API, and for serving the models
      you fine-tune there on your own machines with vLLM. Everything on these pages is generated from the
      OpenAPI contracts and from the packages themselves.</p>
    <section>
      <h2 id="guides">Guides</h2>
      <ul class="cards">
        ${guideCards.join("\n        ")}
      </ul>
    </section>
    <section>
      <h2 id="api-reference">API reference</h2>
      <ul class="cards">
        ${referenceCards.join("\n        ")}
      </ul>
    </section>${bench}
    <footer class="site-footer">
      <p>This site is self-contained: it loads nothing from other origins and works offline.
        The references are rendered by Redoc ${escapeHtml(options.redocVersion)}
        (<a href="assets/redoc.standalone.js.LICENSE.txt">license notices</a>).</p>
    </footer>
  </main>`;
}
