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

  it("logs signed download links without their signature", async () => {
    const { apiKey } = await api.createAccount({ credits: { f_images: 10 } });
    const image = await createImage(api.resources.database.prisma);
    const bought = await readJson(
      await api.request("/v1/images/buy", { apiKey, method: "POST", json: { id: image.id } }),
    );
    const link = new URL(bought.urlFull);
    const signature = link.searchParams.get("signature") as string;
    const fetched = await api.request(`${link.pathname}${link.search}`);
    expect(fetched.status).toBe(200);
    const logged = lines.filter((line) => line.includes(`/v1/images/files/${image.id}/full.jpg`));
    expect(logged.length).toBeGreaterThan(0);
    expect(lines.filter((line) => line.includes(signature))).toEqual([]);
    expect(logged.join("\n")).toContain("signature=[redacted]");
  });
});
