// Renders the OpenAPI document embedded in this page with the Redoc bundle shipped next to it (no CDN).
// `data-ready` tells the browser test (and anything else waiting) that rendering has finished, and how.
const readJson = (id) => JSON.parse(document.getElementById(id).textContent);

window.Redoc.init(
  readJson("openapi-document"),
  readJson("redoc-options"),
  document.getElementById("redoc"),
  (error) => {
    document.body.dataset.ready = error ? "error" : "true";
  },
);
