import { decodeAction, generationView } from "@imagehub/chat-core";
import { GenerationStatus } from "@imagehub/domain";
import { describe, expect, it } from "vitest";
import { DONE_BUTTONS } from "../../../../packages/chat-core/test/support/done-buttons.js";
import { aDoneGeneration, aGeneration, anImage } from "../../test/support/fixtures.js";
import { endNotice, statusMessage } from "./status-message.blocks.js";

type Block = {
  type: string;
  text?: { text: string };
  elements?: { action_id?: string; text?: { text: string } }[];
};

const blocksOf = (message: ReturnType<typeof statusMessage>) => message.blocks as unknown as Block[];
const textOf = (message: ReturnType<typeof statusMessage>) => JSON.stringify(message.blocks);
const buttonsOf = (message: ReturnType<typeof statusMessage>) =>
  blocksOf(message)
    .filter((block) => block.type === "actions")
    .flatMap((block) => block.elements ?? []);

describe("statusMessage", () => {
  it("shows a queued generation with its title and no buttons", () => {
    const message = statusMessage(generationView(aGeneration()), { kind: "links" });

    expect(blocksOf(message)[0]).toEqual({
      type: "header",
      text: { type: "plain_text", text: "a red fox in the snow", emoji: true },
    });
    expect(textOf(message)).toContain(":hourglass_flowing_sand: Queued");
    expect(buttonsOf(message)).toEqual([]);
    expect(message.text).toBe("a red fox in the snow: Queued");
  });

  it("lists the parameters in a context line", () => {
    const generation = aGeneration({
      params: [
        { name: "format", value: "16:9" },
        { name: "weather", value: "snowy" },
      ],
      optimizePrompt: true,
    });

    expect(textOf(statusMessage(generationView(generation), { kind: "links" }))).toContain(
      "format 16:9 · weather snowy · optimized",
    );
  });

  it("counts the images while generating", () => {
    const generation = aGeneration({ status: GenerationStatus.Processing, images: [anImage(1), anImage(2)] });

    expect(textOf(statusMessage(generationView(generation), { kind: "links" }))).toContain(
      ":art: Generating… 2/4",
    );
  });

  it("shows the grid of the images drawn so far while generating, when it has one", () => {
    const generation = aGeneration({ status: GenerationStatus.Processing, images: [anImage(1), anImage(2)] });
    const url = "https://bot.test/imagehub/grids/T1/gen-1.jpg?images=2&signature=abc";

    const images = statusMessage(generationView(generation), { kind: "grid-url", url }).blocks.filter(
      (block) => block.type === "image",
    );
    expect(images).toMatchObject([
      { image_url: url, alt_text: expect.stringMatching(/^The first 2 images of /) },
    ]);
    expect(statusMessage(generationView(generation)).blocks.some((block) => block.type === "image")).toBe(
      false,
    );
  });

  it("shows the one grid at the bot's link when Slack can fetch links, as it shows an uploaded one", () => {
    const url = "https://bot.test/imagehub/grids/T1/gen-1.jpg?signature=abc";
    const message = statusMessage(generationView(aDoneGeneration()), { kind: "grid-url", url });

    expect(message.blocks.filter((block) => block.type === "image")).toEqual([
      {
        type: "image",
        image_url: url,
        alt_text: "The 4 images of “a red fox in the snow”, 1 and 2 above, 3 and 4 below",
        title: { type: "plain_text", text: "The 4 images", emoji: true },
      },
    ]);
  });

  it("links each image in the plainest form, when Slack refused the grid", () => {
    const message = statusMessage(generationView(aDoneGeneration()), { kind: "links" });

    expect(message.blocks.filter((block) => block.type === "image")).toEqual([]);
    expect(textOf(message)).toContain(
      "<https://imagehub.example/v1/display/preview/img-1|Image 1> · <https://imagehub.example/v1/display/preview/img-2|Image 2>",
    );
  });

  it("shows the grid uploaded to the thread by its file id, with its alt text", () => {
    const message = statusMessage(generationView(aDoneGeneration()), {
      kind: "grid-file",
      fileId: "F0000000042",
    });

    expect(message.blocks.filter((block) => block.type === "image")).toEqual([
      {
        type: "image",
        slack_file: { id: "F0000000042" },
        alt_text: "The 4 images of “a red fox in the snow”, 1 and 2 above, 3 and 4 below",
        title: { type: "plain_text", text: "The 4 images", emoji: true },
      },
    ]);
  });

  it("ends a done generation with Buy 1 to Buy 4, each carrying its image, then U1 to U4, V1 to V4, Show all 4 and Again", () => {
    const buttons = buttonsOf(statusMessage(generationView(aDoneGeneration()), { kind: "links" }));

    expect(buttons.map((button) => button.text?.text)).toEqual(DONE_BUTTONS);
    expect(buttons.map((button) => decodeAction(button.action_id ?? ""))).toEqual([
      ...[1, 2, 3, 4].map((number) => ({
        kind: "buy",
        imageId: `img-${number}`,
        imageNumber: number,
        generationId: "gen-1",
      })),
      ...[1, 2, 3, 4].map((number) => ({
        kind: "upscale",
        imageId: `img-${number}`,
        imageNumber: number,
        generationId: "gen-1",
      })),
      ...[1, 2, 3, 4].map((imageNumber) => ({ kind: "vary", generationId: "gen-1", imageNumber })),
      { kind: "show", generationId: "gen-1" },
      { kind: "again", generationId: "gen-1" },
    ]);
  });

  it("tells the requester of the end in a new message that mentions them, and no one else", () => {
    const done = endNotice(generationView(aDoneGeneration({ name: "fox <!channel>" })), "U7");
    expect(done.text).toBe("<@U7> your images of “fox &lt;!channel&gt;” are ready.");
    const failed = endNotice(
      generationView(
        aGeneration({ status: GenerationStatus.Error, failureReason: "description not accepted" }),
      ),
      "U7",
    );
    expect(failed.text).toBe(
      "<@U7> your generation “a red fox in the snow” failed: description not accepted",
    );
  });

  it("shows why a generation failed, with a Retry button", () => {
    const generation = aGeneration({
      status: GenerationStatus.Error,
      failureReason: "description not accepted",
    });
    const message = statusMessage(generationView(generation), { kind: "links" });

    expect(textOf(message)).toContain(":warning: Failed: description not accepted");
    const buttons = buttonsOf(message);
    expect(buttons.map((button) => button.text?.text)).toEqual(["Retry"]);
    expect(decodeAction(buttons[0]?.action_id ?? "")).toEqual({ kind: "retry", generationId: "gen-1" });
  });

  it("keeps user text from becoming mentions or links", () => {
    const generation = aGeneration({ name: "fox", prompt: "fox <!channel> & <https://evil.example|click>" });

    const text = textOf(statusMessage(generationView(generation), { kind: "links" }));
    expect(text).toContain("&lt;!channel&gt; &amp; &lt;https://evil.example|click&gt;");
    expect(text).not.toContain("<!channel>");
  });

  it("cuts a long description to Block Kit's section limit", () => {
    const generation = aGeneration({ name: "long", prompt: "fox ".repeat(1000) });

    const sections = blocksOf(statusMessage(generationView(generation), { kind: "links" })).filter(
      (block) => block.type === "section",
    );
    for (const section of sections) expect(section.text?.text.length).toBeLessThanOrEqual(3000);
    expect(sections[0]?.text?.text.endsWith("…")).toBe(true);
  });
});
