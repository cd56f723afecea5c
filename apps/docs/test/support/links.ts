/** A rendered page as the link check sees it: where it links to, and which anchors it offers. */
export interface LinkedPage {
  readonly links: readonly string[];
  readonly ids: ReadonlySet<string>;
}

export interface BrokenLink {
  readonly from: string;
  readonly href: string;
  readonly problem: string;
}

/**
 * Checks every link between pages of the site at `siteUrl`. `pages` maps a page's path (`/index.html`) to
 * what it rendered; `fileExists` answers for other files (downloads, assets). Links to other sites are not
 * followed: the site must work offline, so only its own links are its business.
 */
export function findBrokenLinks(
  pages: ReadonlyMap<string, LinkedPage>,
  siteUrl: string,
  fileExists: (path: string) => boolean,
): BrokenLink[] {
  const site = new URL(siteUrl);
  const broken: BrokenLink[] = [];
  for (const [from, page] of pages) {
    for (const href of page.links) {
      const target = new URL(href, new URL(from, site));
      if (target.origin !== site.origin) continue;
      const path = target.pathname.endsWith("/") ? `${target.pathname}index.html` : target.pathname;
      const anchor = decodeURIComponent(target.hash.slice(1));
      if (path.endsWith(".html")) {
        const linked = pages.get(path);
        if (!linked) broken.push({ from, href, problem: `no page ${path}` });
        else if (anchor && !linked.ids.has(anchor))
          broken.push({ from, href, problem: `no anchor #${anchor} in ${path}` });
      } else if (!fileExists(path)) {
        broken.push({ from, href, problem: `no file ${path}` });
      }
    }
  }
  return broken;
}
