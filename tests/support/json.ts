/** A JSON response body, for assertions. */
// biome-ignore lint/suspicious/noExplicitAny: tests assert on the shape, the schemas type it elsewhere
export type JsonBody = any;

export async function readJson(response: Response): Promise<JsonBody> {
  return response.json();
}
