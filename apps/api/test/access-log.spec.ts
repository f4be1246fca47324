import { Writable } from "node:stream";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createImage } from "../../../tests/support/images.js";
import { readJson } from "../../../tests/support/json.js";
import { startTestApi, type TestApi } from "../../../tests/support/test-api.js";

describe("the access log", () => {
  let api: TestApi;
  const lines: string[] = [];
  beforeAll(async () => {
    const destination = new Writable({
      write(chunk, _encoding, done) {
        lines.push(...String(chunk).split("\n").filter(Boolean));
        done();
      },
    });
    api = await startTestApi({ env: { LOG_LEVEL: "info" }, logDestination: destination });
  });
  afterAll(() => api.close());

  /** A bought image's signed download link, and its signature. */
  async function boughtLink() {
    const { apiKey } = await api.createAccount({ credits: { f_images: 10 } });
    const image = await createImage(api.resources.database.prisma);
    const bought = await readJson(
      await api.request("/v1/images/buy", { apiKey, method: "POST", json: { id: image.id } }),
    );
    const link = new URL(bought.urlFull);
    return { image, link, signature: link.searchParams.get("signature") as string };
  }

  it("logs signed download links without their signature", async () => {
    const { image, link, signature } = await boughtLink();
    const fetched = await api.request(`${link.pathname}${link.search}`);
    expect(fetched.status).toBe(200);
    const logged = lines.filter((line) => line.includes(`/v1/images/files/${image.id}/full.jpg`));
    expect(logged.length).toBeGreaterThan(0);
    expect(lines.filter((line) => line.includes(signature))).toEqual([]);
    expect(logged.join("\n")).toContain("signature=[redacted]");
  });

  it("redacts a credential whose name is percent-encoded, as the server decodes it", async () => {
    const { link, signature } = await boughtLink();
    const disguised = link.search.replace("signature=", "sig%6Eature=");
    expect(disguised).toContain("sig%6Eature=");
    const fetched = await api.request(`${link.pathname}${disguised}`);
    expect(fetched.status).toBe(200);
    expect(lines.filter((line) => line.includes(signature))).toEqual([]);
    expect(lines.join("\n")).toContain("sig%6Eature=[redacted]");
  });
});
