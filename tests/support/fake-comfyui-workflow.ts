/** What a ComfyUI workflow (API format) may hold, and how ComfyUI's validate_prompt refuses one. */

const SCHEDULERS = ["normal", "karras", "exponential", "simple"];

/** The node classes the fake knows, each with its INT or FLOAT inputs (checked as ComfyUI converts them). */
const NODE_CLASSES: Record<string, { numbers: string[]; isOutput?: true }> = {
  CheckpointLoaderSimple: { numbers: [] },
  CLIPTextEncode: { numbers: [] },
  EmptyLatentImage: { numbers: ["width", "height", "batch_size"] },
  KSampler: { numbers: ["seed", "steps", "cfg", "denoise"] },
  VAEDecode: { numbers: [] },
  VAEEncode: { numbers: [] },
  LoadImage: { numbers: [] },
  ImageScale: { numbers: ["width", "height"] },
  RepeatLatentBatch: { numbers: ["amount"] },
  SaveImage: { numbers: [], isOutput: true },
  PreviewImage: { numbers: [], isOutput: true },
};

export type Node = { class_type: string; inputs: Record<string, unknown> };
export type Workflow = Record<string, Node>;

/** Whether ComfyUI saves or shows this node's images (an output node). */
export function isOutput(node: Node): boolean {
  return NODE_CLASSES[node.class_type]?.isOutput === true;
}

/**
 * validate_prompt's refusals of a workflow, in its shapes (undefined when it would run), on a server that
 * has these checkpoints, samplers and uploaded images.
 */
export function refusalOf(
  workflow: Workflow,
  server: { checkpoints: string[]; samplers: string[]; uploads: ReadonlyMap<string, Buffer> },
) {
  const nodeErrors: Record<string, { errors: unknown[]; dependent_outputs: string[]; class_type: string }> =
    {};
  const outputs = Object.entries(workflow).filter(([, node]) => isOutput(node));
  for (const [id, node] of Object.entries(workflow)) {
    const known = NODE_CLASSES[node.class_type];
    if (!known) {
      return {
        error: {
          type: "invalid_prompt",
          message: `Cannot execute because node ${node.class_type} does not exist.`,
          details: `Node ID '#${id}'`,
          extra_info: {},
        },
        node_errors: {},
      };
    }
    const errors: unknown[] = [];
    const notInList = (input: string, list: string[]) => {
      const value = node.inputs[input];
      if (typeof value === "string" && !list.includes(value)) {
        errors.push({
          type: "value_not_in_list",
          message: "Value not in list",
          details: `${input}: '${value}' not in ${pythonList(list)}`,
          extra_info: { input_name: input, input_config: [list], received_value: value },
        });
      }
    };
    if (node.class_type === "CheckpointLoaderSimple") notInList("ckpt_name", server.checkpoints);
    if (node.class_type === "KSampler") {
      notInList("sampler_name", server.samplers);
      notInList("scheduler", SCHEDULERS);
    }
    if (node.class_type === "LoadImage" && !server.uploads.has(String(node.inputs.image))) {
      errors.push({
        type: "custom_validation_failed",
        message: "Custom validation failed for node",
        details: `image - Invalid image file: ${node.inputs.image}`,
        extra_info: {},
      });
    }
    for (const input of known.numbers) {
      const value = node.inputs[input];
      if (value !== undefined && !Array.isArray(value) && !Number.isFinite(Number(value))) {
        errors.push({
          type: "invalid_input_type",
          message: `Failed to convert an input value to a ${input === "cfg" || input === "denoise" ? "FLOAT" : "INT"} value`,
          details: `${input}, ${value}, could not convert string to number: '${value}'`,
          extra_info: { input_name: input, received_value: value },
        });
      }
    }
    if (errors.length > 0) {
      nodeErrors[id] = {
        errors,
        dependent_outputs: outputs.map(([outputId]) => outputId),
        class_type: node.class_type,
      };
    }
  }
  if (outputs.length === 0) {
    return {
      error: { type: "prompt_no_outputs", message: "Prompt has no outputs", details: "", extra_info: {} },
      node_errors: [],
    };
  }
  if (Object.keys(nodeErrors).length === 0) return undefined;
  return {
    error: {
      type: "prompt_outputs_failed_validation",
      message: "Prompt outputs failed validation",
      details: "",
      extra_info: {},
    },
    node_errors: nodeErrors,
  };
}

/** A list as Python prints it, as ComfyUI's messages quote them. */
function pythonList(values: string[]): string {
  return `[${values.map((value) => `'${value}'`).join(", ")}]`;
}

/** The first node of this class, with its id. */
export function entryOf(workflow: Workflow, classType: string): [string | undefined, Node | undefined] {
  const found = Object.entries(workflow).find(([, node]) => node.class_type === classType);
  return found ?? [undefined, undefined];
}
