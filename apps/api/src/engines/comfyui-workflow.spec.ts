import { writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { ConfigError } from "../common/config.js";
import {
  DEFAULT_IMAGE_WORKFLOW,
  DEFAULT_TEXT_WORKFLOW,
  fillWorkflow,
  IMAGE_WORKFLOW_PLACEHOLDERS,
  loadWorkflow,
  TEXT_WORKFLOW_PLACEHOLDERS,
  workflowProblems,
} from "./comfyui-workflow.js";

const VALUES = {
  prompt: "a red fox",
  negative: "trees",
  seed: 42,
  width: 1024,
  height: 576,
  image: "imagehub-1.png",
  checkpoint: "sd_xl_base_1.0.safetensors",
  steps: 25,
  cfg: 7,
  sampler: "euler",
  scheduler: "normal",
  denoise: 0.6,
  batch: 4,
};

async function workflowFile(workflow: unknown): Promise<string> {
  const path = join(tmpdir(), `imagehub-workflow-${Math.random().toString(36).slice(2)}.json`);
  await writeFile(path, JSON.stringify(workflow));
  return path;
}

describe("ComfyUI workflows", () => {
  it("ship defaults holding every placeholder they need", () => {
    expect(workflowProblems(DEFAULT_TEXT_WORKFLOW, TEXT_WORKFLOW_PLACEHOLDERS)).toEqual([]);
    expect(workflowProblems(DEFAULT_IMAGE_WORKFLOW, IMAGE_WORKFLOW_PLACEHOLDERS)).toEqual([]);
  });

  it("fill a whole placeholder with its typed value and one inside a text with its text", () => {
    const filled = fillWorkflow(
      {
        "1": {
          class_type: "KSampler",
          inputs: { seed: "{{seed}}", denoise: "{{ denoise }}", model: ["4", 0] },
        },
        "2": { class_type: "CLIPTextEncode", inputs: { text: "{{prompt}}, seed {{seed}}" } },
      },
      VALUES,
    );
    expect(filled).toEqual({
      "1": { class_type: "KSampler", inputs: { seed: 42, denoise: 0.6, model: ["4", 0] } },
      "2": { class_type: "CLIPTextEncode", inputs: { text: "a red fox, seed 42" } },
    });
  });

  it("refuse at start a user's workflow whose placeholders are missing, naming them", async () => {
    const path = await workflowFile({
      "6": { class_type: "CLIPTextEncode", inputs: { text: "{{prompt}}" } },
      "7": { class_type: "CLIPTextEncode", inputs: { text: "{{negative}}" } },
      "5": { class_type: "EmptyLatentImage", inputs: { width: 1024, height: "{{height}}", batch_size: 4 } },
    });
    expect(() => loadWorkflow(path, "COMFYUI_WORKFLOW", TEXT_WORKFLOW_PLACEHOLDERS)).toThrow(
      new ConfigError(
        `Invalid configuration: COMFYUI_WORKFLOW (${path}): placeholders missing: {{seed}}, {{width}}`,
      ),
    );
  });

  it("refuse an image-to-image workflow without {{image}}", async () => {
    const { "10": _load, ...withoutImage } = DEFAULT_IMAGE_WORKFLOW;
    const path = await workflowFile(withoutImage);
    expect(() => loadWorkflow(path, "COMFYUI_IMAGE_WORKFLOW", IMAGE_WORKFLOW_PLACEHOLDERS)).toThrow(
      "placeholders missing: {{image}}",
    );
  });

  it("refuse a workflow saved in the UI format, and placeholders imagehub does not know", () => {
    expect(workflowProblems({ nodes: [], links: [] }, TEXT_WORKFLOW_PLACEHOLDERS)).toEqual([
      "a workflow in ComfyUI's UI format: export it with Export (API)",
    ]);
    expect(
      workflowProblems(
        { ...DEFAULT_TEXT_WORKFLOW, "20": { class_type: "X", inputs: { a: "{{lora}}" } } },
        [],
      ),
    ).toEqual([
      "unknown placeholders: {{lora}} (known: prompt, negative, seed, width, height, image, checkpoint, steps, cfg, sampler, scheduler, denoise, batch)",
    ]);
  });
});
