import { readFile, symlink, writeFile } from "node:fs/promises";
import { join } from "node:path";
import sharp from "sharp";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { CLI_RUNS_MS, catalogueWorkspace, line } from "../../../tests/support/catalogue-workspace.js";
import { type FakePictureHost, startFakePictureHost } from "../../../tests/support/fake-picture-host.js";
import { fakePicture, meanColour, RED } from "../../../tests/support/fake-pictures.js";

describe("catalogue import: bad lines and pictures from elsewhere", { timeout: CLI_RUNS_MS }, () => {
  const workspace = catalogueWorkspace();

  it("reports each bad line with its number and reason, loads the others, and exits 5 naming how many", async () => {
    await writeFile(join(workspace.picturesDir, "not-a-picture.jpg"), "plain text, not a JPEG");
    await writeFile(
      join(workspace.picturesDir, "a.gif"),
      await sharp({ create: { width: 8, height: 8, channels: 3, background: RED } })
        .gif()
        .toBuffer(),
    );
    const truncated = await fakePicture(300, 200, { format: "jpeg" });
    await writeFile(
      join(workspace.picturesDir, "truncated.jpg"),
      truncated.subarray(0, Math.floor(truncated.length / 2)),
    );
    const run = await workspace.importLines([
      line("bad-1"),
      "{ not json",
      line("bad-3", { titles: {} }),
      line("bad-4", { price: -1 }),
      line("bad-1", { price: 2 }),
      line("bad-6", { file: "missing.png" }),
      line("bad-7", { file: "not-a-picture.jpg" }),
      line("bad-8", { file: "a.gif" }),
      line("bad-9", { file: "truncated.jpg" }),
      line("bad-10", { file: "x.png", url: "https://pictures.example.test/x.png" }),
      "",
      line("bad-12", { colour: "red" }),
      line("bad-13"),
    ]);
    expect(run.code).toBe(5);
    expect(run.summary).toMatchObject({ lines: 13, added: 2, skipped: 10 });
    const reported = run.stderr.split("\n").filter((text) => text.startsWith("line "));
    expect(reported).toEqual([
      expect.stringMatching(/^line 2: not JSON/),
      "line 3: titles: at least one title",
      "line 4: price: Too small: expected number to be >=0",
      'line 5: externalId "bad-1" is already on line 1',
      'line 6: file "missing.png" does not exist',
      expect.stringMatching(/^line 7: not a readable picture/),
      "line 8: a gif picture: JPEG, PNG or WebP only",
      // libvips's reason ("premature end of JPEG image") is not always the one it reports when busy.
      expect.stringMatching(/^line 9: not a readable picture/),
      "line 10: give file or url, not both",
      'line 12: Unrecognized key: "colour"',
    ]);
    expect(run.stderr).toContain("10 lines were skipped");
    expect((await workspace.importedRows("bad-")).map((row) => row.external_id)).toEqual(["bad-1", "bad-13"]);
    await workspace.expectWholeImages();
  });

  it("refuses files outside the images folder, by path or by link", async () => {
    const outside = join(workspace.work, "outside.png");
    await writeFile(outside, await fakePicture(50, 50));
    await symlink(outside, join(workspace.picturesDir, "link-out.png"));
    const run = await workspace.importLines([
      line("escape-1", { file: "../outside.png" }),
      line("escape-2", { file: outside }),
      line("escape-3", { file: "sub/../../outside.png" }),
      line("escape-4", { file: "link-out.png" }),
    ]);
    expect(run.code).toBe(5);
    expect(run.stderr).toContain('line 1: file "../outside.png" is outside the images folder');
    expect(run.stderr).toContain(`line 2: file ${JSON.stringify(outside)} is outside the images folder`);
    expect(run.stderr).toContain('line 3: file "sub/../../outside.png" is outside the images folder');
    expect(run.stderr).toContain('line 4: file "link-out.png" links outside the images folder');
    expect(await workspace.importedRows("escape-")).toEqual([]);
  });

  describe("pictures by URL", () => {
    let host: FakePictureHost;
    let base: string;
    let requested: string[];

    beforeAll(async () => {
      host = await startFakePictureHost();
      ({ base, requested } = host);
    });
    afterAll(() => host.close());

    it("fetches a picture through the address guard when loopback is allowed (as the webhook tests allow it)", async () => {
      const run = await workspace.importLines(
        [
          line("url-1", { url: `${base}/fox.png` }),
          line("url-2", { url: `${base}/page.html` }),
          line("url-3", { url: `${base}/moved.png` }),
          line("url-4", { url: `${base}/huge.png` }),
          line("url-5", { url: `${base}/gone.png` }),
        ],
        { env: { WEBHOOK_ALLOW_HTTP: "true", WEBHOOK_ALLOW_PRIVATE: "true" } },
      );
      expect(run.summary).toMatchObject({ added: 1, skipped: 4 });
      expect(run.stderr).toContain(`line 2: ${base}/page.html answered text/html, not an image`);
      expect(run.stderr).toContain(`line 3: ${base}/moved.png answered 302 (redirects are not followed)`);
      expect(run.stderr).toContain(`line 4: ${base}/huge.png is larger than ${50 * 1024 * 1024} bytes`);
      expect(run.stderr).toContain(`line 5: ${base}/gone.png answered 404`);
      const [image] = await workspace.importedRows("url-");
      expect(image).toMatchObject({ width: 320, height: 240, external_source: `${base}/fox.png` });
      const stored = await meanColour(
        await readFile(join(workspace.storageDir, image?.renditions.original?.key as string)),
      );
      expect(stored.g).toBeGreaterThan(stored.r + 100);

      // The same URL again is not fetched again.
      const fetched = requested.length;
      const again = await workspace.importLines([line("url-1", { url: `${base}/fox.png` })], {
        env: { WEBHOOK_ALLOW_HTTP: "true", WEBHOOK_ALLOW_PRIVATE: "true" },
      });
      expect(again.summary).toMatchObject({ unchanged: 1 });
      expect(requested.length).toBe(fetched);
    });

    it("refuses an internal address without sending it anything", async () => {
      const fetched = requested.length;
      const run = await workspace.importLines(
        [
          line("internal-1", { url: `${base}/fox.png` }),
          line("internal-2", { url: `http://localhost:${new URL(base).port}/fox.png` }),
          line("internal-3", { url: "http://169.254.169.254/latest/meta-data" }),
        ],
        { env: { WEBHOOK_ALLOW_HTTP: "true" } },
      );
      expect(run.code).toBe(5);
      expect(run.stderr).toContain(`line 1: ${base}/fox.png refused: 127.0.0.1 is a loopback address`);
      expect(run.stderr).toMatch(
        /line 2: http:\/\/localhost:\d+\/fox.png refused: localhost is an internal host/,
      );
      expect(run.stderr).toContain(
        "line 3: http://169.254.169.254/latest/meta-data refused: 169.254.169.254 is a cloud metadata address",
      );
      expect(requested.length).toBe(fetched);
      expect(await workspace.importedRows("internal-")).toEqual([]);
    });
  });
});
