import { readFile } from "node:fs/promises";
import { describe, expect, it } from "vitest";
import { buildImagehubOpenApiDocument } from "./openapi-document.js";

describe("the committed openapi.json", () => {
  it("is the document the domain package builds (npm run openapi writes it again)", async () => {
    const committed = JSON.parse(await readFile(new URL("../../../openapi.json", import.meta.url), "utf8"));
    // Through JSON, as the file holds it: undefined fields vanish, as they do when written.
    expect(committed).toEqual(JSON.parse(JSON.stringify(buildImagehubOpenApiDocument())));
  });
});
