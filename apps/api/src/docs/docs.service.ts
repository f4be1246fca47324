import { readFile } from "node:fs/promises";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { buildImagehubOpenApiDocument } from "@imagehub/domain";
import { Inject, Injectable } from "@nestjs/common";
import { APP_CONFIG, type AppConfig } from "../common/config.js";
import { NotFound } from "../common/domain-errors.js";

const SWAGGER_UI_DIR = dirname(createRequire(import.meta.url).resolve("swagger-ui-dist/package.json"));
/** The only files of swagger-ui-dist the reference page loads. */
const ASSET_TYPES: Record<string, string> = {
  "swagger-ui.css": "text/css; charset=utf-8",
  "swagger-ui-bundle.js": "text/javascript; charset=utf-8",
};

@Injectable()
export class DocsService {
  private document: Record<string, unknown> | undefined;

  constructor(@Inject(APP_CONFIG) private readonly config: AppConfig) {}

  /** Built on first use from the operations and their zod schemas, then kept. */
  openApiDocument(): Record<string, unknown> {
    this.document ??= buildImagehubOpenApiDocument(this.config.http.publicBaseUrl);
    return this.document;
  }

  /** The key typed into "Authorize" lives as long as the page: never kept in localStorage for the next visitor. */
  referencePage(): string {
    return `<!doctype html>
<html lang="en">
<head>
  <meta charset="utf-8">
  <title>imagehub API reference</title>
  <link rel="stylesheet" href="/doc/assets/swagger-ui.css">
</head>
<body>
  <div id="reference"></div>
  <script src="/doc/assets/swagger-ui-bundle.js"></script>
  <script>
    SwaggerUIBundle({ url: "/doc-json", dom_id: "#reference", persistAuthorization: false, tryItOutEnabled: true });
  </script>
</body>
</html>`;
  }

  async asset(name: string): Promise<{ body: Buffer; contentType: string }> {
    const contentType = ASSET_TYPES[name];
    if (!contentType) throw new NotFound(`no asset ${name}`);
    return { body: await readFile(join(SWAGGER_UI_DIR, name)), contentType };
  }
}
