import { toCreateRequest } from "@imagehub/chat-core";
import { FORMATS } from "@imagehub/domain";
import { describe, expect, it } from "vitest";
import {
  channelOfModal,
  GENERATE_MODAL_ID,
  generateModal,
  type ModalValues,
  modalErrors,
  optionsFromModal,
} from "./generate-modal.blocks.js";

/** Modal state as Slack submits it: one "value" element per block. */
function submitted(values: Record<string, Record<string, unknown>>): ModalValues {
  return Object.fromEntries(
    Object.entries(values).map(([block, value]) => [block, { value: { type: "x", ...value } }]),
  ) as ModalValues;
}

describe("generateModal", () => {
  it("asks for the description and every option, remembering the channel", () => {
    const modal = generateModal("C123", "en");

    expect(modal.callback_id).toBe(GENERATE_MODAL_ID);
    expect(channelOfModal(modal.private_metadata ?? "")).toBe("C123");
    expect(modal.blocks.map((block) => block.block_id)).toEqual([
      "prompt",
      "format",
      "weather",
      "time",
      "template",
      "chaos",
      "stylize",
      "camera",
      "avoid",
      "switches",
    ]);
  });

  it("requires the description only", () => {
    const optional = generateModal("C1", "en").blocks.map((block) => "optional" in block && block.optional);

    expect(optional).toEqual([false, true, true, true, true, true, true, true, true, true]);
  });

  it("offers the API's formats", () => {
    const format = generateModal("C1", "en").blocks.find((block) => block.block_id === "format");

    const options =
      format && "element" in format && "options" in format.element ? format.element.options : [];
    expect(options?.map((option) => option.value)).toEqual([...FORMATS]);
  });
});

describe("optionsFromModal", () => {
  it("reads text, selects, numbers and checkboxes, leaving out what is empty", () => {
    const options = optionsFromModal(
      submitted({
        prompt: { value: "  a red fox in the snow " },
        format: { selected_option: { value: "16:9" } },
        weather: { selected_option: null },
        time: { selected_option: { value: "golden hour" } },
        template: { selected_option: { value: "realistic" } },
        chaos: { value: "20" },
        stylize: { value: null },
        camera: { value: "" },
        avoid: { value: "text, logos" },
        switches: { selected_options: [{ value: "optimize" }] },
      }),
    );

    expect(options).toEqual({
      mode: "simple",
      prompt: "a red fox in the snow",
      format: "16:9",
      time: "golden hour",
      template: "realistic",
      chaos: "20",
      avoid: "text, logos",
      optimize: true,
    });
    expect(toCreateRequest(options).ok).toBe(true);
  });

  it("gives an empty description when there is none, for the check to name", () => {
    expect(optionsFromModal(submitted({}))).toEqual({ mode: "simple", prompt: "" });
  });
});

describe("modalErrors", () => {
  it("puts each problem under the input it names", () => {
    const checked = toCreateRequest(
      optionsFromModal(submitted({ prompt: { value: "fox" }, chaos: { value: "150" } })),
    );

    expect(checked.ok).toBe(false);
    expect(modalErrors(checked.ok ? [] : checked.problems)).toEqual({
      chaos: expect.stringContaining("100"),
    });
  });

  it("puts a problem about no input in particular under the description", () => {
    expect(modalErrors(["request: something is wrong"])).toEqual({ prompt: "request: something is wrong" });
  });

  it("joins two problems of one input", () => {
    expect(modalErrors(["camera: too long", "camera: not allowed"])).toEqual({
      camera: "too long; not allowed",
    });
  });
});

describe("channelOfModal", () => {
  it("refuses metadata without a channel", () => {
    expect(() => channelOfModal("{}")).toThrow(/channel/);
  });
});
