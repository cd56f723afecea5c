import { escapeHtml } from "./html.js";

export interface NavLink {
  readonly file: string;
  readonly label: string;
}

// The site may only load what it ships. Browsers enforce this wherever the site is hosted, and the browser
// test fails on the console error a violation would print. Redoc needs inline styles (styled-components)
// and a blob: worker for its search.
const contentSecurityPolicy = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self' 'unsafe-inline'",
  "img-src 'self' data:",
  "font-src 'self'",
  "connect-src 'self'",
  "worker-src 'self' blob:",
  "base-uri 'none'",
  "form-action 'none'",
].join("; ");

/** The HTML shell every page shares: head, CSP, stylesheet, and the header with the site navigation. */
export function renderPage(options: {
  file: string;
  title: string;
  nav: readonly NavLink[];
  body: string;
  /** Static pages are ready once loaded; Redoc pages mark themselves ready after rendering. */
  readyOnLoad: boolean;
}): string {
  const links = options.nav
    .map(({ file, label }) => {
      const current = file === options.file ? ' aria-current="page"' : "";
      return `<a href="${escapeHtml(file)}"${current}>${escapeHtml(label)}</a>`;
    })
    .join("\n      ");
  const ready = options.readyOnLoad ? ' data-ready="true"' : "";
  return `<!doctype html>
<html lang="en">
<head>
  <meta charset="utf-8">
  <meta name="viewport" content="width=device-width, initial-scale=1">
  <meta http-equiv="Content-Security-Policy" content="${contentSecurityPolicy}">
  <title>${escapeHtml(options.title)} · Finetune Studio SDK</title>
  <link rel="stylesheet" href="assets/site.css">
</head>
<body${ready}>
  <header class="site-header">
    <a class="brand" href="index.html">Finetune Studio SDK</a>
    <nav aria-label="Site">
      ${links}
    </nav>
  </header>
${options.body}
</body>
</html>
`;
}
