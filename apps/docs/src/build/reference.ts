import type { Contract } from "./contracts.js";
import { escapeHtml, jsonForScript } from "./html.js";

const fontStack = 'system-ui, -apple-system, "Segoe UI", Roboto, "Helvetica Neue", Arial, sans-serif';
const monoStack = 'ui-monospace, "SFMono-Regular", Menlo, Consolas, "Liberation Mono", monospace';

/** Redoc options: system fonts (nothing to download), the site header accounted for, our download link. */
function redocOptions(contract: Contract): Record<string, unknown> {
  return {
    scrollYOffset: "header.site-header",
    expandResponses: "200",
    sortRequiredPropsFirst: true,
    jsonSamplesExpandLevel: 4,
    // Redoc would otherwise offer a blob: download of its own copy; point at the file the site ships.
    downloadUrls: [{ title: "Download OpenAPI (JSON)", url: contract.download }],
    theme: {
      colors: { primary: { main: "#2f54c8" } },
      typography: {
        fontFamily: fontStack,
        fontSize: "15px",
        headings: { fontFamily: fontStack, fontWeight: "600" },
        code: { fontFamily: monoStack },
      },
      sidebar: { width: "270px" },
    },
  };
}

/**
 * Redoc 2 shows the security schemes only where the description places `<SecurityDefinitions />`. The
 * contracts do not (they are not Redoc-specific), so the page's copy gets an "Authentication" section at the
 * end of its description; the downloadable document stays exactly as published.
 */
function withAuthenticationSection(document: Contract["document"]): Contract["document"] {
  const components = document.components as { securitySchemes?: unknown } | undefined;
  const description = document.info.description ?? "";
  if (!components?.securitySchemes || /<SecurityDefinitions\s*\/>|security-definitions/.test(description)) {
    return document;
  }
  return {
    ...document,
    info: {
      ...document.info,
      description: `${description.trimEnd()}\n\n## Authentication\n\n<SecurityDefinitions />\n`,
    },
  };
}

/**
 * The body of an API reference page: the bundled document and the options embedded as JSON data blocks,
 * rendered in the browser by the Redoc bundle shipped in assets/. Embedding (rather than fetching) the
 * document keeps the page working when opened straight from disk.
 */
export function renderReferenceBody(contract: Contract): string {
  return `  <main class="reference">
    <div id="redoc"></div>
    <noscript>
      <p class="noscript">The interactive reference needs JavaScript.
        The OpenAPI document itself: <a href="${escapeHtml(contract.download)}">${escapeHtml(contract.download)}</a>.</p>
    </noscript>
  </main>
  <script id="openapi-document" type="application/json">${jsonForScript(withAuthenticationSection(contract.document))}</script>
  <script id="redoc-options" type="application/json">${jsonForScript(redocOptions(contract))}</script>
  <script src="assets/redoc.standalone.js"></script>
  <script src="assets/reference.js"></script>`;
}
