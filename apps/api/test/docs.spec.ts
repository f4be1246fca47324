import { accountOperations, operations } from "@imagehub/domain";
import { DiscoveryService, MetadataScanner, ModulesContainer, Reflector } from "@nestjs/core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { readJson } from "../../../tests/support/json.js";
import { startTestApi, type TestApi } from "../../../tests/support/test-api.js";
import { OPERATION, toNestPath, UNDOCUMENTED_PUBLIC } from "../src/common/endpoint.decorator.js";

describe("API reference", () => {
  let api: TestApi;

  beforeAll(async () => {
    api = await startTestApi({ env: { PUBLIC_BASE_URL: "https://images.example.test" } });
  });
  afterAll(() => api.close());

  it("serves an OpenAPI 3.1 document with every operation, without a key", async () => {
    const response = await api.request("/doc-json");
    expect(response.status).toBe(200);
    const document = await readJson(response);
    expect(document.openapi).toBe("3.1.0");
    expect(document.servers).toEqual([{ url: "https://images.example.test" }]);
    for (const operation of Object.values(operations)) {
      expect(document.paths[operation.path]?.[operation.method.toLowerCase()]?.operationId).toBe(
        operation.operationId,
      );
    }
  });

  it("resolves every $ref of the document to a component", async () => {
    const text = await (await api.request("/doc-json")).text();
    const { components } = JSON.parse(text);
    const refs = [...text.matchAll(/"\$ref":"#\/components\/schemas\/([^"]+)"/g)].map((match) => match[1]);
    expect(refs.length).toBeGreaterThan(0);
    for (const ref of refs) expect(components.schemas, `component ${ref}`).toHaveProperty(ref as string);
  });

  it("documents the error body on every operation", async () => {
    const { paths } = await readJson(await api.request("/doc-json"));
    for (const operation of Object.values(operations)) {
      const responses = paths[operation.path][operation.method.toLowerCase()].responses;
      expect(responses["500"].content["application/json"].schema).toEqual({
        $ref: "#/components/schemas/ErrorBody",
      });
      if (operation.auth === "required") expect(responses).toHaveProperty("401");
    }
  });

  it("serves the interactive reference page and its assets", async () => {
    const page = await api.request("/doc");
    expect(page.headers.get("content-type")).toMatch(/text\/html/);
    const html = await page.text();
    expect(html).toContain("/doc-json");
    for (const asset of html.matchAll(/(?:src|href)="(\/doc\/assets\/[^"]+)"/g)) {
      expect((await api.request(asset[1] as string)).status).toBe(200);
    }
    expect((await api.request("/doc/assets/package.json")).status).toBe(404);
  });

  it("maps every route of the app to a documented operation, or marks it as the reference itself", () => {
    const reflector = api.app.get(Reflector);
    const scanner = new MetadataScanner();
    const discovery = new DiscoveryService(api.app.get(ModulesContainer));
    const served: string[] = [];
    for (const wrapper of discovery.getControllers()) {
      const prototype = Object.getPrototypeOf(wrapper.instance);
      for (const method of scanner.getAllMethodNames(prototype)) {
        const handler = prototype[method];
        const operation = reflector.get(OPERATION, handler);
        if (operation) served.push(operation.operationId);
        else
          expect(reflector.getAllAndOverride(UNDOCUMENTED_PUBLIC, [handler, wrapper.metatype]), method).toBe(
            true,
          );
      }
    }
    // The web area's session routes are defined operations too, kept out of the /v1 document.
    const defined = [...Object.values(operations), ...Object.values(accountOperations)];
    expect(served.sort()).toEqual(defined.map((operation) => operation.operationId).sort());
  });

  it("routes each operation at its documented path", async () => {
    for (const operation of Object.values(operations)) {
      const path = toNestPath(operation.path);
      expect(
        api.app.getHttpAdapter().getInstance().hasRoute({ method: operation.method, url: path }),
        path,
      ).toBe(true);
    }
  });
});
