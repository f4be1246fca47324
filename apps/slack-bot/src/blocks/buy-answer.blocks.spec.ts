import { describe, expect, it } from "vitest";
import { buyAnswer } from "./buy-answer.blocks.js";

const links = {
  full: "https://imagehub.example/v1/file/a?sig=1&exp=2",
  upscale: "https://imagehub.example/v1/file/b",
  uhd: "https://imagehub.example/v1/file/c",
};

describe("buyAnswer", () => {
  it("gives the three links and the credits left", () => {
    const answer = buyAnswer({ kind: "bought", imageNumber: 3, links, creditsLeft: 9 }, "en");

    const text = JSON.stringify(answer.blocks);
    expect(text).toContain("Image 3 is yours");
    expect(text).toContain("<https://imagehub.example/v1/file/a?sig=1&amp;exp=2|Full size>");
    expect(text).toContain("|Upscale 2×>");
    expect(text).toContain("|UHD>");
    expect(text).toContain("Purchase credits left: 9");
  });

  it("leaves out the upscale link when there is none", () => {
    const answer = buyAnswer(
      {
        kind: "bought",
        imageNumber: 1,
        links: { ...links, upscale: undefined },
        creditsLeft: 2,
      },
      "en",
    );

    expect(JSON.stringify(answer.blocks)).not.toContain("Upscale");
  });

  it("says unlimited for an unlimited bucket", () => {
    const answer = buyAnswer({ kind: "bought", imageNumber: 1, links, creditsLeft: "unlimited" }, "en");

    expect(JSON.stringify(answer.blocks)).toContain("Purchase credits left: unlimited");
  });

  it("says clearly when the credits are not enough", () => {
    const answer = buyAnswer(
      {
        kind: "no-credits",
        imageNumber: 2,
        message: "no f_images credit left (0 left)",
      },
      "en",
    );

    expect(answer.text).toBe(
      ":no_entry: Not enough credits to buy image 2: no f_images credit left (0 left)",
    );
  });
});
