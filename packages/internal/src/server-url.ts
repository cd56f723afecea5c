// One rule for every place that takes a vLLM server's URL (the client's chat baseUrl, the CLI's URLs).

/**
 * The path of the server's root, from the path of a URL that names it, without a trailing slash ("" for
 * the root). The OpenAI SDKs take a base URL ending in `/v1`, where vLLM's OpenAI-compatible routes hang,
 * and `launch` prints it so: `http://127.0.0.1:8000/v1` names the same server as `http://127.0.0.1:8000`.
 */
export function serverRootPath(pathname: string): string {
  return pathname.replace(/\/+$/, "").replace(/\/v1$/, "");
}
