/**
 * Slack's checks of Block Kit layouts, answered as Slack answers them: `invalid_blocks`, with one line per
 * problem naming its JSON pointer. Limits from https://docs.slack.dev/reference/block-kit/blocks (50
 * blocks in a message, 100 in a modal; block_id ≤ 255 and unique; header text ≤ 150; section text ≤ 3000
 * and fields ≤ 10 of ≤ 2000; context ≤ 10 elements; actions ≤ 25 elements; image alt_text ≤ 2000,
 * image_url ≤ 3000), https://docs.slack.dev/reference/block-kit/block-elements/button-element (text ≤ 75,
 * action_id ≤ 255 and unique in its block, value ≤ 2000, url ≤ 3000) and
 * https://docs.slack.dev/reference/block-kit/composition-objects/text-object (1 to 3000 characters).
 */
export const BLOCK_KIT_LIMITS = {
  messageBlocks: 50,
  modalBlocks: 100,
  blockId: 255,
  headerText: 150,
  text: 3000,
  sectionFields: 10,
  fieldText: 2000,
  contextElements: 10,
  actionsElements: 25,
  buttonText: 75,
  actionId: 255,
  buttonValue: 2000,
  url: 3000,
  altText: 2000,
  imageTitle: 2000,
  /** chat.postMessage and chat.update refuse longer `text` with msg_too_long. */
  messageText: 40_000,
} as const;

interface TextObject {
  type?: unknown;
  text?: unknown;
}

interface Element {
  type?: unknown;
  text?: TextObject;
  action_id?: unknown;
  value?: unknown;
  url?: unknown;
  image_url?: unknown;
  alt_text?: unknown;
  [key: string]: unknown;
}

interface Block extends Element {
  block_id?: unknown;
  fields?: TextObject[];
  elements?: Element[];
  accessory?: Element;
  title?: TextObject;
  label?: TextObject;
  element?: Element;
}

const BLOCK_TYPES = new Set([
  "section",
  "header",
  "context",
  "actions",
  "image",
  "divider",
  "input",
  "rich_text",
  "file",
  "video",
  "markdown",
]);

/** The lines of Slack's `errors` for a list of blocks, none when Slack takes it. */
export function blockKitErrors(blocks: unknown, surface: "message" | "modal" = "message"): string[] {
  if (blocks === undefined) return [];
  if (!Array.isArray(blocks)) return ["must be an array [json-pointer:/blocks]"];
  const problems: string[] = [];
  const problem = (message: string, pointer: string) =>
    problems.push(`${message} [json-pointer:/blocks${pointer}]`);
  const maxBlocks = surface === "modal" ? BLOCK_KIT_LIMITS.modalBlocks : BLOCK_KIT_LIMITS.messageBlocks;
  if (blocks.length > maxBlocks) problem(`no more than ${maxBlocks} items allowed`, "");
  const blockIds = new Set<string>();
  for (const [index, block] of (blocks as Block[]).entries()) {
    const at = `/${index}`;
    if (typeof block.type !== "string" || !BLOCK_TYPES.has(block.type)) {
      problem("unsupported type", `${at}/type`);
      continue;
    }
    if (block.block_id !== undefined) {
      const id = String(block.block_id);
      checkLength(problem, id, BLOCK_KIT_LIMITS.blockId, `${at}/block_id`);
      if (blockIds.has(id)) problem("duplicate block_id", `${at}/block_id`);
      blockIds.add(id);
    }
    checkBlock(problem, block, at);
  }
  return problems;
}

type Report = (message: string, pointer: string) => void;

function checkBlock(problem: Report, block: Block, at: string): void {
  switch (block.type) {
    case "header":
      checkText(problem, block.text, `${at}/text`, BLOCK_KIT_LIMITS.headerText, "plain_text");
      return;
    case "section": {
      if (block.text === undefined && block.fields === undefined) {
        problem("must provide either text or fields", at);
      }
      if (block.text !== undefined) checkText(problem, block.text, `${at}/text`, BLOCK_KIT_LIMITS.text);
      const fields = block.fields ?? [];
      if (fields.length > BLOCK_KIT_LIMITS.sectionFields) {
        problem(`no more than ${BLOCK_KIT_LIMITS.sectionFields} items allowed`, `${at}/fields`);
      }
      for (const [index, field] of fields.entries()) {
        checkText(problem, field, `${at}/fields/${index}`, BLOCK_KIT_LIMITS.fieldText);
      }
      if (block.accessory !== undefined) checkElement(problem, block.accessory, `${at}/accessory`);
      return;
    }
    case "context": {
      const elements = block.elements ?? [];
      if (elements.length === 0 || elements.length > BLOCK_KIT_LIMITS.contextElements) {
        problem(`must have between 1 and ${BLOCK_KIT_LIMITS.contextElements} items`, `${at}/elements`);
      }
      for (const [index, element] of elements.entries()) {
        const pointer = `${at}/elements/${index}`;
        if (element.type === "image") checkImage(problem, element, pointer);
        else checkText(problem, element, pointer, BLOCK_KIT_LIMITS.text);
      }
      return;
    }
    case "actions": {
      const elements = block.elements ?? [];
      if (elements.length === 0 || elements.length > BLOCK_KIT_LIMITS.actionsElements) {
        problem(`must have between 1 and ${BLOCK_KIT_LIMITS.actionsElements} items`, `${at}/elements`);
      }
      const actionIds = new Set<string>();
      for (const [index, element] of elements.entries()) {
        const pointer = `${at}/elements/${index}`;
        checkElement(problem, element, pointer);
        if (element.action_id === undefined) continue;
        if (actionIds.has(String(element.action_id))) problem("duplicate action_id", `${pointer}/action_id`);
        actionIds.add(String(element.action_id));
      }
      return;
    }
    case "image":
      checkImage(problem, block, at);
      if (block.title !== undefined) {
        checkText(problem, block.title, `${at}/title`, BLOCK_KIT_LIMITS.imageTitle, "plain_text");
      }
      return;
    case "input":
      checkText(problem, block.label, `${at}/label`, 2000, "plain_text");
      if (block.element !== undefined) checkElement(problem, block.element, `${at}/element`);
      return;
    default:
      return;
  }
}

function checkElement(problem: Report, element: Element, at: string): void {
  if (element.action_id !== undefined) {
    checkLength(problem, String(element.action_id), BLOCK_KIT_LIMITS.actionId, `${at}/action_id`);
  }
  if (element.type === "button") {
    checkText(problem, element.text, `${at}/text`, BLOCK_KIT_LIMITS.buttonText, "plain_text");
    if (element.value !== undefined) {
      checkLength(problem, String(element.value), BLOCK_KIT_LIMITS.buttonValue, `${at}/value`);
    }
    if (element.url !== undefined)
      checkLength(problem, String(element.url), BLOCK_KIT_LIMITS.url, `${at}/url`);
  }
  if (element.type === "image") checkImage(problem, element, at);
}

/**
 * An image is a public image_url or a slack_file (an uploaded file, by id or url), one of the two
 * (https://docs.slack.dev/reference/block-kit/blocks/image-block); whether the file may be shown is the fake
 * Slack's to say.
 */
function checkImage(problem: Report, image: Element, at: string): void {
  const slackFile = image.slack_file as { id?: unknown; url?: unknown } | undefined;
  if (slackFile !== undefined) {
    if (image.image_url !== undefined) problem("must provide either image_url or slack_file", at);
    else if ((slackFile.id === undefined) === (slackFile.url === undefined))
      problem("slack_file takes either an id or a url", `${at}/slack_file`);
    else if (slackFile.id !== undefined && !/^F[A-Z0-9]{8,}$/.test(String(slackFile.id)))
      problem("input must match regex pattern: ^[F][A-Z0-9]{8,}$", `${at}/slack_file/id`);
  } else if (typeof image.image_url !== "string" || image.image_url === "") {
    problem("must provide image_url", `${at}/image_url`);
  } else {
    checkLength(problem, image.image_url, BLOCK_KIT_LIMITS.url, `${at}/image_url`);
  }
  if (typeof image.alt_text !== "string" || image.alt_text === "") {
    problem("must provide alt_text", `${at}/alt_text`);
  } else {
    checkLength(problem, image.alt_text, BLOCK_KIT_LIMITS.altText, `${at}/alt_text`);
  }
}

function checkText(
  problem: Report,
  text: TextObject | undefined,
  at: string,
  max: number,
  type?: "plain_text",
): void {
  if (text === undefined || typeof text.text !== "string") {
    problem("must provide a text object", at);
    return;
  }
  if (text.type !== "plain_text" && text.type !== "mrkdwn")
    problem("must be plain_text or mrkdwn", `${at}/type`);
  else if (type !== undefined && text.type !== type) problem(`must be a ${type} text object`, `${at}/type`);
  if (text.text.length === 0) problem("must be more than 0 characters", `${at}/text`);
  checkLength(problem, text.text, max, `${at}/text`);
}

function checkLength(problem: Report, value: string, max: number, at: string): void {
  if ([...value].length > max) problem(`must be less than ${max + 1} characters`, at);
}
