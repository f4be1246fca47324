import { type GenerationPhase, type GenerationView, messagesFor, type ViewButton } from "@imagehub/chat-core";
import type { types } from "@slack/bolt";
import { cut, escapeMrkdwn, plainText, type SlackMessage } from "./mrkdwn.js";

/**
 * How the message shows the images: one 2×2 grid, at a link of the bot's own when Slack can fetch links
 * (SLACK_IMAGES_PUBLIC: the grid grows as the images arrive), else, once Done, uploaded into the message's
 * thread and shown from there (a file id: an upload per image drawn would crowd the thread); when Slack
 * refuses both, a link to each image.
 */
export type ImageDisplay =
  | { kind: "grid-url"; url: string }
  | { kind: "grid-file"; fileId: string }
  | { kind: "links" }
  | { kind: "files-refused" };

/** Block Kit limits: header text, section text. */
const HEADER_MAX = 150;
const SECTION_MAX = 3000;

const PHASE_ICONS: Record<GenerationPhase, string> = {
  queued: ":hourglass_flowing_sand:",
  active: ":art:",
  done: ":white_check_mark:",
  failed: ":warning:",
};

/**
 * The status message of a generation at each step: queued, generating n/4 (with the grid so far when
 * `display` has one), done with its buttons and its images as `display` says (links by default), failed.
 */
export function statusMessage(view: GenerationView, display?: ImageDisplay): SlackMessage {
  const blocks: types.KnownBlock[] = [{ type: "header", text: plainText(cut(view.title, HEADER_MAX)) }];
  if (view.prompt !== view.title) {
    blocks.push({
      type: "section",
      text: { type: "mrkdwn", text: cut(`>${escapeMrkdwn(view.prompt)}`, SECTION_MAX) },
    });
  }
  if (view.parameters.length > 0) {
    blocks.push({
      type: "context",
      elements: [{ type: "mrkdwn", text: cut(escapeMrkdwn(view.parameters.join(" · ")), SECTION_MAX) }],
    });
  }
  blocks.push({
    type: "section",
    text: {
      type: "mrkdwn",
      text: cut(`${PHASE_ICONS[view.phase]} ${escapeMrkdwn(view.status)}`, SECTION_MAX),
    },
  });
  if (view.phase === "done") blocks.push(...imageBlocks(view, display ?? { kind: "links" }));
  if (view.phase === "active" && display?.kind === "grid-url") blocks.push(...imageBlocks(view, display));
  if (view.buttons.length > 0) {
    blocks.push({ type: "actions", block_id: "imagehub-actions", elements: view.buttons.map(buttonElement) });
  }
  // The fallback text is mrkdwn too (notifications, screen readers): the prompt's title is escaped there.
  return { text: `${escapeMrkdwn(view.title)}: ${escapeMrkdwn(view.status)}`, blocks };
}

function imageBlocks(view: GenerationView, display: ImageDisplay): types.KnownBlock[] {
  const messages = messagesFor(view.locale);
  if (display.kind === "files-refused") {
    return [
      {
        type: "context",
        elements: [
          {
            type: "mrkdwn",
            text: `:warning: ${messages.slack.imagesRefused}`,
          },
        ],
      },
    ];
  }
  if (display.kind === "links") {
    const links = view.images
      .map((image) => `<${image.previewUrl}|${messages.slack.imageLink(image.number)}>`)
      .join(" · ");
    return [
      { type: "section", text: { type: "mrkdwn", text: cut(`:frame_with_picture: ${links}`, SECTION_MAX) } },
    ];
  }
  return [
    {
      type: "image",
      ...(display.kind === "grid-file" ? { slack_file: { id: display.fileId } } : { image_url: display.url }),
      alt_text: messages.view.gridAlt(view.images.length, cut(view.title, 100), view.phase === "done"),
      title: plainText(messages.view.gridTitle(view.images.length, view.phase === "done")),
    },
  ];
}

function buttonElement(button: ViewButton): types.Button {
  return {
    type: "button",
    action_id: button.id,
    value: button.id,
    text: plainText(button.label),
    ...(button.action.kind === "buy" && { style: "primary" as const }),
  };
}

/** The direct message that tells the requester their status message is gone, and where their images are. */
export function goneNotice(view: GenerationView, channelId: string, reason: string): SlackMessage {
  const title = escapeMrkdwn(cut(view.title, 200));
  const text = messagesFor(view.locale).notices.gone(
    title,
    `<#${channelId}>`,
    escapeMrkdwn(reason),
    escapeMrkdwn(view.status),
  );
  const blocks: types.KnownBlock[] = [
    { type: "section", text: { type: "mrkdwn", text: cut(text, SECTION_MAX) } },
  ];
  if (view.phase === "done") blocks.push(...imageBlocks(view, { kind: "links" }));
  return { text, blocks };
}

/**
 * The direct message that tells the requester the bot lacks a permission to update their status message,
 * and who grants it: the message catches up on its own then.
 */
export function permissionNotice(view: GenerationView, channelId: string, missing: string): SlackMessage {
  const title = escapeMrkdwn(cut(view.title, 200));
  const text = `:lock: ${messagesFor(view.locale).notices.permissionMissing(title, `<#${channelId}>`, missing)}`;
  return { text, blocks: [{ type: "section", text: { type: "mrkdwn", text: cut(text, SECTION_MAX) } }] };
}

/** The short new message that tells the requester their generation ended (an update notifies nobody). */
export function endNotice(view: GenerationView, userId: string): SlackMessage {
  const { notices } = messagesFor(view.locale);
  const title = escapeMrkdwn(cut(view.title, 200));
  const text =
    view.phase === "done"
      ? `${notices.ready(`<@${userId}>`, title)}.`
      : notices.failed(`<@${userId}>`, title, escapeMrkdwn(view.failureReason ?? ""));
  return { text, blocks: [{ type: "section", text: { type: "mrkdwn", text: cut(text, SECTION_MAX) } }] };
}

/** What the upload of the grid says in the thread. */
export function gridComment(view: GenerationView): string {
  return messagesFor(view.locale).slack.gridComment(view.images.length, escapeMrkdwn(view.title));
}

/** What the upload of the 4 previews (Show all) says in the thread. */
export function imagesComment(view: GenerationView): string {
  return messagesFor(view.locale).slack.imagesComment(view.images.length, escapeMrkdwn(view.title));
}
