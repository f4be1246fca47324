// Writes openapi.json, the interface's OpenAPI document as packages/domain builds it; a test fails when
// the committed file differs from what this would write.
import { writeFile } from "node:fs/promises";
import { buildImagehubOpenApiDocument } from "@imagehub/domain";

const file = new URL("../openapi.json", import.meta.url);
await writeFile(file, `${JSON.stringify(buildImagehubOpenApiDocument(), null, 2)}\n`);
console.log(`Wrote ${file.pathname}`);
