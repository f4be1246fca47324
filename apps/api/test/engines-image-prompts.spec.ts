import { beforeEach, describe, expect, it } from "vitest";
import { IMG2IMG_PATH, img2ImgAnswer, startFakeSdWebUi } from "../../../tests/support/fake-sdwebui.js";
import { FOX, runGeneration, useEngineTestApi } from "../../../tests/support/generation-runs.js";
import { usePictureServer } from "../../../tests/support/picture-server.js";

const MAX_BYTES = 50_000;

const withImage = (url: string) => ({
  ...FOX,
  params: [...FOX.params, { name: "fromImageUrl", value: url }],
});

describe("image prompts behind the address guard", () => {
  const engine = useEngineTestApi(startFakeSdWebUi, (fakeUrl) => ({
    IMAGE_ENGINE: "sdwebui",
    SDWEBUI_BASE_URL: fakeUrl,
  }));
  const pictures = usePictureServer();

  it.each([
    [
      "an address",
      (port: string) => `http://127.0.0.1:${port}/blue.png`,
      /^127\.0\.0\.1 is a loopback address/,
    ],
    ["a name", (port: string) => `http://localhost:${port}/blue.png`, /^localhost is an internal host/],
  ])("refuses %s inside the network without fetching it, and draws nothing", async (_, url, reason) => {
    const port = new URL(pictures.url).port;
    const before = { pictures: pictures.requests.length, engine: engine.fake.requests.length };
    const { finished } = await runGeneration(engine.api, engine.fake, withImage(url(port)));
    expect(finished.status).toBe(4);
    const failureReason = String(finished.failureReason);
    expect(failureReason.startsWith("the image prompt was refused: ")).toBe(true);
    expect(failureReason.slice("the image prompt was refused: ".length)).toMatch(reason);
    expect(failureReason).toMatch(/, which is not fetched$/);
    expect(pictures.requests.length).toBe(before.pictures);
    expect(engine.fake.requests.length).toBe(before.engine);
  });
});

describe("image prompts: size and type", () => {
  const engine = useEngineTestApi(startFakeSdWebUi, (fakeUrl) => ({
    IMAGE_ENGINE: "sdwebui",
    SDWEBUI_BASE_URL: fakeUrl,
    IMAGE_PROMPT_ALLOW_PRIVATE: "true",
    IMAGE_PROMPT_MAX_BYTES: String(MAX_BYTES),
  }));
  const pictures = usePictureServer();
  beforeEach(() => {
    engine.fake.on("POST", IMG2IMG_PATH, (request) => img2ImgAnswer(request));
  });

  it.each([
    ["/large.png", `is larger than ${MAX_BYTES} bytes`],
    ["/page.html", "is text/html, not a PNG, JPEG or WebP picture"],
    ["/broken.png", "is not a PNG, JPEG or WebP picture"],
    ["/missing.png", "answered HTTP 404 Not Found"],
    ["/moved.png", "answered HTTP 302 Found: redirects are not followed"],
  ])("ends a generation whose image prompt %s in Error: it %s", async (path, reason) => {
    const before = engine.fake.requests.length;
    const url = `${pictures.url}${path}`;
    const { finished } = await runGeneration(engine.api, engine.fake, withImage(url));
    expect(finished).toMatchObject({
      status: 4,
      failureReason: `the image prompt was refused: ${url} ${reason}`,
    });
    expect(engine.fake.requests.slice(before)).toEqual([]);
  });

  it("draws from a picture within the limit", async () => {
    const { finished } = await runGeneration(engine.api, engine.fake, withImage(`${pictures.url}/blue.png`));
    expect(finished).toMatchObject({ status: 3, nbImages: 4 });
  });
});
