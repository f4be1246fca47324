import sharp from "sharp";
import { afterAll, beforeAll } from "vitest";
import { BLUE, fakePicture } from "./fake-pictures.js";
import { FakeService } from "./fake-service.js";

/** The size of /large.png, a noisy picture that compresses badly: above a small IMAGE_PROMPT_MAX_BYTES. */
export const LARGE_PICTURE_BYTES_AT_LEAST = 100_000;

/**
 * For a suite: a web server on loopback with the pictures image prompts point at: /blue.png (640×480),
 * /large.png (noise), /page.html (not a picture), /broken.png (said to be a PNG, is not), /moved.png (a
 * redirect to /blue.png); anything else 404.
 */
export function usePictureServer(): FakeService {
  const pictures = new FakeService();
  beforeAll(async () => {
    const blue = await fakePicture(640, 480, { colour: BLUE });
    const noise = Buffer.alloc(LARGE_PICTURE_BYTES_AT_LEAST * 2).map(() => Math.floor(Math.random() * 256));
    const large = await sharp(noise, { raw: { width: 400, height: 500, channels: 1 } })
      .png()
      .toBuffer();
    const png = { "content-type": "image/png" };
    pictures
      .on("GET", "/blue.png", () => ({ headers: png, bytes: blue }))
      .on("GET", "/large.png", () => ({ headers: png, bytes: large }))
      .on("GET", "/page.html", () => ({
        headers: { "content-type": "text/html" },
        bytes: Buffer.from("<p>hi</p>"),
      }))
      .on("GET", "/broken.png", () => ({ headers: png, bytes: Buffer.from("not a picture at all") }))
      .on("GET", "/moved.png", () => ({ status: 302, headers: { location: "/blue.png" } }));
    await pictures.start();
  });
  afterAll(() => pictures.stop());
  return pictures;
}
