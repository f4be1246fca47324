/**
 * Discord's checks of a message it is asked to create or edit, answered as it answers them: HTTP 400 with
 * code 50035 "Invalid Form Body" and the offending fields nested under `errors`, each with `_errors`.
 * Limits from https://discord.com/developers/docs/resources/message#create-message-jsonform-params,
 * https://discord.com/developers/docs/resources/message#embed-object-embed-limits and
 * https://discord.com/developers/docs/components/reference (action rows, buttons).
 */
export const DISCORD_LIMITS = {
  content: 2000,
  embeds: 10,
  embedTitle: 256,
  embedDescription: 4096,
  embedFields: 25,
  fieldName: 256,
  fieldValue: 1024,
  footerText: 2048,
  authorName: 256,
  /** Title, description, field names and values, footer text and author name of all embeds together. */
  embedsTotal: 6000,
  actionRows: 5,
  buttonsPerRow: 5,
  buttonLabel: 80,
  customId: 100,
  attachments: 10,
  attachmentDescription: 1024,
  /** A bot's upload limit in a server without boosts: 10 MiB per request. */
  uploadBytes: 10 * 1024 * 1024,
} as const;

export interface FormBodyError {
  code: 50035;
  message: "Invalid Form Body";
  errors: Record<string, unknown>;
}

interface Problem {
  path: (string | number)[];
  code: string;
  message: string;
}

interface Embed {
  title?: unknown;
  description?: unknown;
  fields?: { name?: unknown; value?: unknown }[];
  footer?: { text?: unknown };
  author?: { name?: unknown };
}

interface Component {
  type?: number;
  custom_id?: unknown;
  label?: unknown;
  url?: unknown;
  style?: number;
  components?: Component[];
}

const ACTION_ROW = 1;
const BUTTON = 2;
const LINK_STYLE = 5;

/** The 50035 body for a message's JSON (`data` of an interaction answer, or a create/edit body), if any. */
export function formBodyErrors(message: Record<string, unknown>): FormBodyError | undefined {
  const problems: Problem[] = [
    ...contentProblems(message.content),
    ...embedProblems(message.embeds),
    ...componentProblems(message.components),
    ...attachmentProblems(message.attachments),
  ];
  if (problems.length === 0) return undefined;
  const errors: Record<string, unknown> = {};
  for (const problem of problems) {
    let node = errors;
    for (const key of problem.path) {
      node[String(key)] ??= {};
      node = node[String(key)] as Record<string, unknown>;
    }
    node._errors = [...((node._errors as unknown[]) ?? []), { code: problem.code, message: problem.message }];
  }
  return { code: 50035, message: "Invalid Form Body", errors };
}

function tooLong(path: Problem["path"], value: unknown, max: number): Problem[] {
  return typeof value === "string" && [...value].length > max
    ? [{ path, code: "BASE_TYPE_MAX_LENGTH", message: `Must be ${max} or fewer in length.` }]
    : [];
}

function required(path: Problem["path"], value: unknown): Problem[] {
  return typeof value === "string" && value.length > 0
    ? []
    : [{ path, code: "BASE_TYPE_REQUIRED", message: "This field is required" }];
}

function tooMany(path: Problem["path"], list: unknown[], max: number): Problem[] {
  return list.length > max
    ? [{ path, code: "BASE_TYPE_MAX_LENGTH", message: `Must be ${max} or fewer in length.` }]
    : [];
}

function contentProblems(content: unknown): Problem[] {
  return tooLong(["content"], content, DISCORD_LIMITS.content);
}

function embedProblems(value: unknown): Problem[] {
  if (!Array.isArray(value)) return [];
  const embeds = value as Embed[];
  const problems = tooMany(["embeds"], embeds, DISCORD_LIMITS.embeds);
  let total = 0;
  const count = (text: unknown) => {
    if (typeof text === "string") total += [...text].length;
  };
  for (const [index, embed] of embeds.entries()) {
    const at = (...path: Problem["path"]) => ["embeds", index, ...path];
    problems.push(
      ...tooLong(at("title"), embed.title, DISCORD_LIMITS.embedTitle),
      ...tooLong(at("description"), embed.description, DISCORD_LIMITS.embedDescription),
      ...tooLong(at("footer", "text"), embed.footer?.text, DISCORD_LIMITS.footerText),
      ...tooLong(at("author", "name"), embed.author?.name, DISCORD_LIMITS.authorName),
    );
    const fields = embed.fields ?? [];
    problems.push(...tooMany(at("fields"), fields, DISCORD_LIMITS.embedFields));
    for (const [fieldIndex, field] of fields.entries()) {
      problems.push(
        ...required(at("fields", fieldIndex, "name"), field.name),
        ...required(at("fields", fieldIndex, "value"), field.value),
        ...tooLong(at("fields", fieldIndex, "name"), field.name, DISCORD_LIMITS.fieldName),
        ...tooLong(at("fields", fieldIndex, "value"), field.value, DISCORD_LIMITS.fieldValue),
      );
      count(field.name);
      count(field.value);
    }
    for (const text of [embed.title, embed.description, embed.footer?.text, embed.author?.name]) count(text);
  }
  if (total > DISCORD_LIMITS.embedsTotal) {
    problems.push({
      path: ["embeds"],
      code: "MAX_EMBED_SIZE_EXCEEDED",
      message: `Embed size exceeds maximum size of ${DISCORD_LIMITS.embedsTotal}`,
    });
  }
  return problems;
}

function componentProblems(value: unknown): Problem[] {
  if (!Array.isArray(value)) return [];
  const rows = value as Component[];
  const problems = tooMany(["components"], rows, DISCORD_LIMITS.actionRows);
  const customIds = new Set<string>();
  for (const [rowIndex, row] of rows.entries()) {
    if (row.type !== ACTION_ROW) {
      problems.push({
        path: ["components", rowIndex, "type"],
        code: "UNION_TYPE_CHOICES",
        message: 'Value of field "type" must be one of (1,).',
      });
      continue;
    }
    const buttons = row.components ?? [];
    if (buttons.length === 0) {
      problems.push({
        path: ["components", rowIndex, "components"],
        code: "BASE_TYPE_BAD_LENGTH",
        message: "Must be between 1 and 5 in length.",
      });
    }
    problems.push(...tooMany(["components", rowIndex, "components"], buttons, DISCORD_LIMITS.buttonsPerRow));
    for (const [index, button] of buttons.entries()) {
      const at = (...path: Problem["path"]) => ["components", rowIndex, "components", index, ...path];
      if (button.type !== BUTTON) continue;
      problems.push(...tooLong(at("label"), button.label, DISCORD_LIMITS.buttonLabel));
      if (button.style === LINK_STYLE) continue;
      problems.push(
        ...required(at("custom_id"), button.custom_id),
        ...tooLong(at("custom_id"), button.custom_id, DISCORD_LIMITS.customId),
      );
      if (typeof button.custom_id === "string" && customIds.has(button.custom_id)) {
        problems.push({
          path: at("custom_id"),
          code: "COMPONENT_CUSTOM_ID_DUPLICATED",
          message: "Component custom id cannot be duplicated",
        });
      }
      if (typeof button.custom_id === "string") customIds.add(button.custom_id);
    }
  }
  return problems;
}

function attachmentProblems(value: unknown): Problem[] {
  if (!Array.isArray(value)) return [];
  const attachments = value as { description?: unknown }[];
  return [
    ...tooMany(["attachments"], attachments, DISCORD_LIMITS.attachments),
    ...attachments.flatMap((attachment, index) =>
      tooLong(
        ["attachments", index, "description"],
        attachment.description,
        DISCORD_LIMITS.attachmentDescription,
      ),
    ),
  ];
}
