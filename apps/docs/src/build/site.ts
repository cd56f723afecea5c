import { copyFile, mkdir, rename, rm, writeFile } from "node:fs/promises";
import { createRequire } from "node:module";
import { join } from "node:path";
import { readBenchResults } from "./bench.js";
import { loadContracts } from "./contracts.js";
import { renderGuideBody } from "./guide.js";
import { guides } from "./guides.js";
import { renderIndexBody } from "./index-page.js";
import { type NavLink, renderPage } from "./layout.js";
import { renderMarkdown } from "./markdown.js";
import { assetsDir, distDir } from "./paths.js";
import { readRedocBundle } from "./redoc-bundle.js";
import { renderReferenceBody } from "./reference.js";

const require = createRequire(import.meta.url);

interface Page {
  readonly file: string;
  readonly title: string;
  /** The page body, rendered once the whole navigation is known. */
  readonly render: (nav: readonly NavLink[]) => string;
}

/**
 * Builds the whole site into `outDir`: pages, the two downloadable documents, and assets. It is written to a
 * staging directory first and swapped in at the end, so a failed build never leaves half a site behind.
 */
export async function buildSite(
  outDir: string = distDir,
  options: { benchResultsPath?: string } = {},
): Promise<{ files: string[] }> {
  const contracts = loadContracts();
  const redocVersion: string = require("redoc/package.json").version;
  const bench = readBenchResults(options.benchResultsPath);

  const guidePages: Page[] = guides.map((guide) => ({
    file: guide.file,
    title: guide.title,
    render: (nav) => {
      const rendered = renderMarkdown(guide.markdown(), guide.snippets());
      const body = renderGuideBody(rendered);
      return renderPage({ file: guide.file, title: guide.title, nav, body, readyOnLoad: true });
    },
  }));
  const referencePages: Page[] = [contracts.studio, contracts.chat].map((contract) => ({
    file: contract.page,
    title: contract.title,
    render: (nav) =>
      renderPage({
        file: contract.page,
        title: contract.title,
        nav,
        body: renderReferenceBody(contract),
        readyOnLoad: false,
      }),
  }));
  const benchEntry = {
    file: "bench.html",
    title: "Benchmark results",
    summary: "Latest results of the bench package (bench/RESULTS.md).",
  };
  const benchPages: Page[] = bench
    ? [
        {
          file: benchEntry.file,
          title: benchEntry.title,
          render: (nav) =>
            renderPage({
              file: benchEntry.file,
              title: benchEntry.title,
              nav,
              body: renderGuideBody(renderMarkdown(bench)),
              readyOnLoad: true,
            }),
        },
      ]
    : [];
  const indexPage: Page = {
    file: "index.html",
    title: "Documentation",
    render: (nav) =>
      renderPage({
        file: "index.html",
        title: "Documentation",
        nav,
        body: renderIndexBody({
          guides,
          contracts: [contracts.studio, contracts.chat],
          ...(bench ? { bench: benchEntry } : {}),
          redocVersion,
        }),
        readyOnLoad: true,
      }),
  };

  const pages = [indexPage, ...guidePages, ...referencePages, ...benchPages];
  const nav: NavLink[] = [
    { file: "index.html", label: "Home" },
    ...guides.map(({ file, navLabel }) => ({ file, label: navLabel })),
    { file: contracts.studio.page, label: "Studio API" },
    { file: contracts.chat.page, label: "Chat API" },
    ...(bench ? [{ file: benchEntry.file, label: "Benchmarks" }] : []),
  ];

  const staging = `${outDir}.staging`;
  await rm(staging, { recursive: true, force: true });
  await mkdir(join(staging, "assets"), { recursive: true });
  const files: string[] = [];
  const write = async (file: string, content: string) => {
    await writeFile(join(staging, file), content);
    files.push(file);
  };
  for (const page of pages) await write(page.file, page.render(nav));
  for (const contract of [contracts.studio, contracts.chat]) {
    await write(contract.download, `${JSON.stringify(contract.document, null, 2)}\n`);
  }
  const redoc = readRedocBundle();
  await write("assets/redoc.standalone.js", redoc.script);
  await write("assets/redoc.standalone.js.LICENSE.txt", redoc.license);
  for (const asset of ["site.css", "reference.js"]) {
    await copyFile(join(assetsDir, asset), join(staging, "assets", asset));
    files.push(`assets/${asset}`);
  }

  await rm(outDir, { recursive: true, force: true });
  await rename(staging, outDir);
  return { files };
}
