/**
 * Whether a request stays on the site: same origin as `siteUrl` (or, for a site opened from disk, another
 * file: URL). `data:` and `blob:` URLs are made inside the page and never touch the network, so they stay.
 */
export function staysOnSite(url: string, siteUrl: string): boolean {
  const target = new URL(url);
  const site = new URL(siteUrl);
  if (target.protocol === "data:" || target.protocol === "blob:") return true;
  if (site.protocol === "file:") return target.protocol === "file:";
  return target.origin === site.origin;
}
