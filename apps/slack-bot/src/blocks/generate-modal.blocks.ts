import {
  type Locale,
  messagesFor,
  type SimpleGenerateOptions,
  TEMPLATE_CHOICES,
  VALUE_OPTIONS,
} from "@imagehub/chat-core";
import {
  CAMERA_MAX_LENGTH,
  CHAOS_MAX,
  FORMATS,
  INTERDICTION_MAX_LENGTH,
  PROMPT_MAX_LENGTH,
  STYLIZE_MAX,
  TIMES,
  WEATHERS,
} from "@imagehub/domain";
import type { types, ViewStateValue } from "@slack/bolt";
import { plainText } from "./mrkdwn.js";

/** The callback id of the `/generate` modal, which its submission listener matches. */
export const GENERATE_MODAL_ID = "imagehub-generate";

/** Each input block is named after the chat option it fills (its one element is "value"). */
type ModalField = Exclude<keyof SimpleGenerateOptions, "mode" | "optimize" | "fast"> | "switches";
const VALUE = "value";
const SWITCHES = ["optimize", "fast"] as const;
const MODAL_FIELDS: readonly string[] = ["prompt", ...VALUE_OPTIONS, "switches"] satisfies ModalField[];

export type ModalValues = Record<string, Record<string, ViewStateValue>>;

/** The modal `/generate` opens without text, in the person's language; it remembers the channel to post in. */
export function generateModal(channelId: string, locale: Locale): types.ModalView {
  const { modal } = messagesFor(locale).slack;
  const select = (values: readonly string[]) => selectOf(values, modal.choose);
  return {
    type: "modal",
    callback_id: GENERATE_MODAL_ID,
    private_metadata: JSON.stringify({ channelId }),
    title: plainText(modal.title),
    submit: plainText(modal.submit),
    close: plainText(modal.close),
    blocks: [
      input("prompt", modal.prompt, {
        type: "plain_text_input",
        multiline: true,
        max_length: PROMPT_MAX_LENGTH,
        placeholder: plainText(modal.promptPlaceholder),
      }),
      input("format", modal.format, select(FORMATS), { isOptional: true }),
      input("weather", modal.weather, select(WEATHERS), { isOptional: true }),
      input("time", modal.time, select(TIMES), { isOptional: true }),
      input("template", modal.template, select(Object.keys(TEMPLATE_CHOICES)), { isOptional: true }),
      input("chaos", modal.chaos, wholeNumber(CHAOS_MAX), {
        isOptional: true,
        hint: modal.chaosHint(CHAOS_MAX),
      }),
      input("stylize", modal.stylize, wholeNumber(STYLIZE_MAX), {
        isOptional: true,
        hint: modal.stylizeHint(STYLIZE_MAX),
      }),
      input(
        "camera",
        modal.camera,
        {
          type: "plain_text_input",
          max_length: CAMERA_MAX_LENGTH,
          placeholder: plainText(modal.cameraPlaceholder),
        },
        { isOptional: true },
      ),
      input(
        "avoid",
        modal.avoid,
        {
          type: "plain_text_input",
          max_length: INTERDICTION_MAX_LENGTH,
          placeholder: plainText(modal.avoidPlaceholder),
        },
        { isOptional: true },
      ),
      input(
        "switches",
        modal.options,
        {
          type: "checkboxes",
          options: [
            { text: plainText(modal.optimize), value: "optimize" },
            { text: plainText(modal.fast), value: "fast" },
          ],
        },
        { isOptional: true },
      ),
    ],
  };
}

/** The options a submitted modal holds; checking them is toCreateRequest's work. */
export function optionsFromModal(values: ModalValues): SimpleGenerateOptions {
  const text = (field: ModalField) => {
    const state = values[field]?.[VALUE];
    const value = state?.selected_option?.value ?? state?.value ?? undefined;
    return value?.trim() || undefined;
  };
  const switches = new Set(values.switches?.[VALUE]?.selected_options?.map((option) => option.value) ?? []);
  const options: SimpleGenerateOptions = { mode: "simple", prompt: text("prompt") ?? "" };
  for (const field of VALUE_OPTIONS) {
    const value = text(field);
    if (value !== undefined) options[field] = value;
  }
  for (const name of SWITCHES) if (switches.has(name)) options[name] = true;
  return options;
}

/**
 * toCreateRequest's problems ("chaos: must be…") as Slack's field errors, under the input they name;
 * one about no input in particular goes under the description.
 */
export function modalErrors(problems: string[]): Record<string, string> {
  const errors: Record<string, string> = {};
  for (const problem of problems) {
    const [name, ...rest] = problem.split(": ");
    const isField = rest.length > 0 && isModalField(name ?? "");
    const field = isField ? (name as string) : "prompt";
    const message = isField ? rest.join(": ") : problem;
    errors[field] = errors[field] ? `${errors[field]}; ${message}` : message;
  }
  return errors;
}

/** The channel a modal was opened from. */
export function channelOfModal(privateMetadata: string): string {
  const { channelId } = JSON.parse(privateMetadata) as { channelId?: unknown };
  if (typeof channelId !== "string" || channelId === "")
    throw new Error("the modal does not say its channel");
  return channelId;
}

function isModalField(name: string): name is ModalField {
  return MODAL_FIELDS.includes(name);
}

function input(
  field: ModalField,
  label: string,
  element: types.InputBlock["element"],
  { isOptional = false, hint }: { isOptional?: boolean; hint?: string } = {},
): types.InputBlock {
  return {
    type: "input",
    block_id: field,
    label: plainText(label),
    element: { ...element, action_id: VALUE },
    optional: isOptional,
    ...(hint && { hint: plainText(hint) }),
  };
}

function selectOf(values: readonly string[], placeholder: string): types.StaticSelect {
  return {
    type: "static_select",
    placeholder: plainText(placeholder),
    options: values.map((value) => ({ text: plainText(value), value })),
  };
}

function wholeNumber(max: number): types.NumberInput {
  return { type: "number_input", is_decimal_allowed: false, min_value: "0", max_value: String(max) };
}
