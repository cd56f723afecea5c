import { describe, expect, it } from "vitest";
import { findBrokenLinks, type LinkedPage } from "./support/links.js";

const site = "http://127.0.0.1:4321/";
const page = (links: string[], ids: string[] = []): LinkedPage => ({ links, ids: new Set(ids) });
const files = new Set(["/studio.openapi.json"]);

// The link check must be able to fail: each case is a site with one kind of link, and what the check says.
const cases: [string, { given: Map<string, LinkedPage>; want: string[] }][] = [
  [
    "a link to an existing page and anchor",
    {
      given: new Map([
        ["/index.html", page([`${site}guide.html#install`])],
        ["/guide.html", page([], ["install"])],
      ]),
      want: [],
    },
  ],
  [
    "a link to a missing page",
    { given: new Map([["/index.html", page([`${site}missing.html`])]]), want: ["no page /missing.html"] },
  ],
  [
    "a link to a missing anchor",
    {
      given: new Map([
        ["/index.html", page([`${site}guide.html#gone`])],
        ["/guide.html", page([], ["install"])],
      ]),
      want: ["no anchor #gone in /guide.html"],
    },
  ],
  [
    "a same-page anchor, percent-encoded like Redoc's",
    {
      given: new Map([["/api.html", page([`${site}api.html#tag%2FTraces`])]]),
      want: ["no anchor #tag/Traces in /api.html"],
    },
  ],
  ["the site root means index.html", { given: new Map([["/index.html", page([site])]]), want: [] }],
  [
    "downloads must exist",
    {
      given: new Map([["/index.html", page([`${site}studio.openapi.json`, `${site}chat.openapi.json`])]]),
      want: ["no file /chat.openapi.json"],
    },
  ],
  [
    "links to other sites are not followed",
    { given: new Map([["/index.html", page(["https://github.com/vllm-project/vllm"])]]), want: [] },
  ],
];

describe("findBrokenLinks", () => {
  it.each(cases)("%s", (_name, { given, want }) => {
    const problems = findBrokenLinks(given, site, (path) => files.has(path)).map((broken) => broken.problem);
    expect(problems).toEqual(want);
  });
});
