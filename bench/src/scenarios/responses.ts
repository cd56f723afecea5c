// Each scenario fails loudly on an unexpected answer, so that a misrouted request can never be timed as a
// fast one. The checks are a property read: they cost nothing next to a request.

export async function okJson(response: Response): Promise<unknown> {
  if (!response.ok) throw new Error(`${response.url} answered ${response.status}`);
  return response.json();
}

export function dataOf<T>(result: { data?: T; error?: unknown; response: Response }): T {
  if (result.data === undefined) throw new Error(`${result.response.url} answered ${result.response.status}`);
  return result.data;
}
