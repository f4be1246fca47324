import type { GenerationView } from "@imagehub/chat-core";
import { ButtonStyle, ComponentType } from "discord.js";
import { describe, expect, it } from "vitest";
import { buyAnswer, endNotice, previewFiles, problemsAnswer, statusMessage } from "./messages.js";

const doneView: GenerationView = {
  title: "a lighthouse",
  prompt: "a lighthouse on a cliff",
  parameters: ["format 16:9", "weather snowy"],
  phase: "done",
  status: "Done",
  locale: "en",
  imagesDone: 4,
  images: [],
  buttons: [
    ...[1, 2, 3, 4].map((number) => ({
      id: `imagehub:buy:${number}:image-${number}:gen-1`,
      label: `Buy ${number}`,
      action: {
        kind: "buy" as const,
        imageId: `image-${number}`,
        imageNumber: number,
        generationId: "gen-1",
      },
    })),
    ...[1, 2, 3, 4].map((number) => ({
      id: `imagehub:upscale:${number}:image-${number}:gen-1`,
      label: `U${number}`,
      action: {
        kind: "upscale" as const,
        imageId: `image-${number}`,
        imageNumber: number,
        generationId: "gen-1",
      },
    })),
    ...[1, 2, 3, 4].map((imageNumber) => ({
      id: `imagehub:vary:${imageNumber}:gen-1`,
      label: `V${imageNumber}`,
      action: { kind: "vary" as const, generationId: "gen-1", imageNumber },
    })),
    { id: "imagehub:show:gen-1", label: "Show all 4", action: { kind: "show", generationId: "gen-1" } },
    { id: "imagehub:again:gen-1", label: "Again", action: { kind: "again", generationId: "gen-1" } },
  ],
};
const grid = { name: "images.jpg", jpeg: Buffer.from([1, 2, 3]), width: 1024, height: 576 };

describe("Discord messages", () => {
  it("shows the grid of the images drawn so far while generating", () => {
    const drawing: GenerationView = {
      ...doneView,
      phase: "active",
      status: "Generating… 2/4",
      imagesDone: 2,
      buttons: [],
    };
    const message = statusMessage(drawing, grid);
    expect(message.embeds[0]?.image).toEqual({ url: "attachment://images.jpg" });
    expect(message.files[0]?.description).toBe(
      "The first 2 images of “a lighthouse”, 1 and 2 above, 3 and 4 below",
    );
    expect(message.components).toEqual([]);
  });

  it("shows a finished generation: one embed showing the grid, Buy 1 to 4, U1 to U4 and V1 to V4 a row each, Show all and Again below", () => {
    const message = statusMessage(doneView, grid);
    expect(message.embeds).toEqual([
      {
        title: "a lighthouse",
        description: "a lighthouse on a cliff",
        color: 0x57f287,
        fields: [
          { name: "Parameters", value: "format 16:9 · weather snowy" },
          { name: "Status", value: "Done" },
        ],
        image: { url: "attachment://images.jpg" },
      },
    ]);
    expect(message.files).toEqual([
      {
        name: "images.jpg",
        data: grid.jpeg,
        contentType: "image/jpeg",
        description: "The 4 images of “a lighthouse”, 1 and 2 above, 3 and 4 below",
      },
    ]);
    expect(message.components).toHaveLength(4);
    expect(
      message.components.map((row) =>
        row.components.map((button) => ["label" in button && button.label, button.style]),
      ),
    ).toEqual([
      [
        ["Buy 1", ButtonStyle.Primary],
        ["Buy 2", ButtonStyle.Primary],
        ["Buy 3", ButtonStyle.Primary],
        ["Buy 4", ButtonStyle.Primary],
      ],
      [
        ["U1", ButtonStyle.Secondary],
        ["U2", ButtonStyle.Secondary],
        ["U3", ButtonStyle.Secondary],
        ["U4", ButtonStyle.Secondary],
      ],
      [
        ["V1", ButtonStyle.Secondary],
        ["V2", ButtonStyle.Secondary],
        ["V3", ButtonStyle.Secondary],
        ["V4", ButtonStyle.Secondary],
      ],
      [
        ["Show all 4", ButtonStyle.Secondary],
        ["Again", ButtonStyle.Secondary],
      ],
    ]);
    expect(message.components[0]?.components[0]).toEqual({
      type: ComponentType.Button,
      custom_id: "imagehub:buy:1:image-1:gen-1",
      label: "Buy 1",
      style: ButtonStyle.Primary,
    });
  });

  it("tells the requester of the end in a new message that pings them alone and links the status message", () => {
    const target = {
      platform: "discord" as const,
      teamId: "10",
      channelId: "20",
      messageId: "30",
      userId: "42",
      signature: "s",
    };
    expect(endNotice({ ...doneView, title: "@everyone a [lake](https://evil.example)" }, target)).toEqual({
      content:
        "<@42> your images of “@\u200beveryone a \\[lake\\]\\(https://evil.example\\)” are ready: https://discord.com/channels/10/20/30",
      allowed_mentions: { parse: [], users: ["42"] },
    });
    expect(
      endNotice(
        {
          ...doneView,
          phase: "failed",
          status: "Failed: description not accepted",
          failureReason: "description not accepted",
        },
        target,
      ).content,
    ).toBe(
      "<@42> your generation “a lighthouse” failed: description not accepted https://discord.com/channels/10/20/30",
    );
  });

  it("shows a finished generation without its grid as a link to each image (the plainest form)", () => {
    const images = [1, 2, 3, 4].map((number) => ({
      number,
      imageId: `image-${number}`,
      previewUrl: `https://imagehub.example/v1/display/preview/image-${number}`,
    }));
    const fields = statusMessage({ ...doneView, images }).embeds[0]?.fields ?? [];
    expect(fields.find((field) => field.name === "Images")?.value).toMatch(/^\[1\]\(https:.+\) · \[2\]/);
  });

  it("shows a prompt literally: no link, no mention, no markdown, and pings no one", () => {
    const message = statusMessage({
      ...doneView,
      title: "@everyone [free nitro](https://evil.example)",
      prompt: "# big <@&123> @here **bold** [free nitro](https://evil.example)",
    });
    const [embed] = message.embeds;
    expect(embed?.title).toBe("@\u200beveryone \\[free nitro\\]\\(https://evil.example\\)");
    expect(embed?.description).toBe(
      "\\# big \\<@&123\\> @\u200bhere \\*\\*bold\\*\\* \\[free nitro\\]\\(https://evil.example\\)",
    );
    expect(message.allowed_mentions).toEqual({ parse: [] });
  });

  it("gives each preview shown on request its alt text", () => {
    const files = previewFiles(doneView, [{ number: 2, name: "image-2.jpg", jpeg: Buffer.from([2]) }]);
    expect(files.map((file) => [file.name, file.description])).toEqual([
      ["image-2.jpg", "Image 2 of “a lighthouse”"],
    ]);
  });

  it("keeps to Discord's embed limits", () => {
    const message = statusMessage({
      ...doneView,
      title: "t".repeat(300),
      prompt: "p".repeat(5000),
      buttons: [],
    });
    expect(message.embeds[0]?.title).toHaveLength(256);
    expect(message.embeds[0]?.description).toHaveLength(4096);
    expect(message.components).toEqual([]);
  });

  it("answers a purchase with its links and credits, and a refusal with its reason", () => {
    expect(
      buyAnswer(
        {
          kind: "bought",
          imageNumber: 2,
          links: { full: "https://x/full", upscale: undefined, uhd: "https://x/uhd" },
          creditsLeft: "unlimited",
        },
        "en",
      ),
    ).toBe(
      "Image 2 is yours: [Full size](https://x/full) · [UHD](https://x/uhd) (links expire; click again for fresh ones, at no cost)\nPurchase credits left: unlimited",
    );
    expect(buyAnswer({ kind: "no-credits", imageNumber: 3, message: "no f_images credit left" }, "en")).toBe(
      "Not enough credits to buy image 3: no f_images credit left",
    );
    expect(buyAnswer({ kind: "refused", imageNumber: 3, message: "Only the person who asked…" }, "en")).toBe(
      "⚠️ Only the person who asked…",
    );
  });

  it("lists several problems, and puts one on its own line", () => {
    expect(problemsAnswer(["chaos: too big"], "en")).toBe("⚠️ chaos: too big");
    expect(problemsAnswer(["a", "b"], "en")).toBe("⚠️ Please fix:\n• a\n• b");
  });
});
