import type { GenerationView } from "@imagehub/chat-core";
import { ButtonStyle, ComponentType } from "discord.js";
import { describe, expect, it } from "vitest";
import { buyAnswer, problemsAnswer, statusMessage } from "./messages.js";

const doneView: GenerationView = {
  title: "a lighthouse",
  prompt: "a lighthouse on a cliff",
  parameters: ["format 16:9", "weather snowy"],
  phase: "done",
  status: "Done",
  imagesDone: 4,
  images: [],
  buttons: [1, 2, 3, 4].map((number) => ({
    id: `imagehub:buy:${number}:image-${number}`,
    label: `Buy ${number}`,
    action: { kind: "buy", imageId: `image-${number}`, imageNumber: number },
  })),
};

describe("Discord messages", () => {
  it("shows a finished generation: one embed, its previews as files, Buy 1 to 4 in one row", () => {
    const previews = [1, 2, 3, 4].map((number) => ({
      number,
      name: `image-${number}.jpg`,
      jpeg: Buffer.from([number]),
    }));
    const message = statusMessage(doneView, previews);
    expect(message.embeds).toEqual([
      {
        title: "a lighthouse",
        description: "a lighthouse on a cliff",
        color: 0x57f287,
        fields: [
          { name: "Parameters", value: "format 16:9 · weather snowy" },
          { name: "Status", value: "Done" },
        ],
      },
    ]);
    expect(message.files.map((file) => [file.name, file.contentType])).toEqual(
      previews.map((preview) => [preview.name, "image/jpeg"]),
    );
    expect(message.components).toHaveLength(1);
    expect(message.components[0]?.components).toEqual(
      doneView.buttons.map((button) => ({
        type: ComponentType.Button,
        custom_id: button.id,
        label: button.label,
        style: ButtonStyle.Primary,
      })),
    );
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

  it("gives each attached preview its alt text", () => {
    const message = statusMessage(doneView, [{ number: 2, name: "image-2.jpg", jpeg: Buffer.from([2]) }]);
    expect(message.files.map((file) => file.description)).toEqual(["Image 2 of “a lighthouse”"]);
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
      buyAnswer({
        kind: "bought",
        imageNumber: 2,
        links: { full: "https://x/full", upscale: undefined, uhd: "https://x/uhd" },
        creditsLeft: "unlimited",
      }),
    ).toBe(
      "Image 2 is yours: [Full size](https://x/full) · [UHD](https://x/uhd) (links expire; click again for fresh ones, at no cost)\nCredits left: unlimited",
    );
    expect(buyAnswer({ kind: "no-credits", imageNumber: 3, message: "no f_images credit left" })).toBe(
      "Not enough credits to buy image 3: no f_images credit left",
    );
  });

  it("lists several problems, and puts one on its own line", () => {
    expect(problemsAnswer(["chaos: too big"])).toBe("⚠️ chaos: too big");
    expect(problemsAnswer(["a", "b"])).toBe("⚠️ Please fix:\n• a\n• b");
  });
});
