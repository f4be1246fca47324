import { Prisma } from "@imagehub/db";
import { type GenerationEventType, GenerationStatus, type ImageGeneration } from "@imagehub/domain";
import { v7 as uuidv7 } from "uuid";
import { DEBIT_OUTCOME, DEBIT_PAID, type Debit, debitSteps } from "../accounts/credit-ledger.statements.js";
import type { StoredRendition } from "../catalogue/catalogue.repository.js";
import { answerStep, type HeldKey } from "../idempotency/idempotent-write.js";
import type { GenerationWithImages } from "./generation.view.js";

/** An event as the outbox keeps it: its type, and the generation as the event shows it. */
export interface GenerationEvent {
  type: GenerationEventType;
  payload: ImageGeneration;
}

/** One image as the engine delivered it and storage keeps it. */
export interface GeneratedImageRecord {
  index: number;
  titles: Record<string, string>;
  width: number;
  height: number;
  seed: number;
  original: StoredRendition;
}

/** A generated image about to be recorded: its id, and how the catalogue sells it. */
export type NewGeneratedImage = GeneratedImageRecord & { id: string; free: boolean; validate: boolean };

/** The fields a worker's transition writes. */
export interface WorkerChanges {
  status: number;
  workerToken: string | null;
  creditHeld: boolean;
  engine: string | null;
  engineModel: string | null;
}

/** Statuses in which a generation waits for, or is in the hands of, a worker. */
export const UNFINISHED = [GenerationStatus.Pending, GenerationStatus.Processing];

/** Price in f_images credits of a generated image, as of a catalogue image by default. */
const GENERATED_IMAGE_PRICE = 1;

/** A generations row with the names and types Prisma gives it, for statements on the driver. */
const GENERATION_FIELDS = Prisma.raw(
  `id, account_id AS "accountId", api_key_id AS "apiKeyId", name, prompt, additional_prompt AS "additionalPrompt",
  mode, optimize_prompt AS "optimizePrompt", optimized_prompt AS "optimizedPrompt", params, tags,
  meta_data AS "metaData", process_mode AS "processMode", status, failure_reason AS "failureReason", engine,
  engine_model AS "engineModel", progress, credit_held AS "creditHeld", attempt, worker_token AS "workerToken",
  job_run AS "jobRun", queued_at AS "queuedAt", created_at AS "createdAt", updated_at AS "updatedAt"`,
);

/**
 * Records `generation`, holds its credit (`hold`) and records its event and the request's answer, all or
 * nothing: nothing when a bucket cannot pay or the account has no room under `runningCap`. Selects the
 * debit's outcome and `hasRoom`.
 */
export function createGeneration(
  generation: GenerationWithImages,
  hold: Debit,
  runningCap: number,
  event: GenerationEvent,
  answer: { key: HeldKey | undefined; value: unknown },
): Prisma.Sql {
  const hasRoom = hasRunningRoom(generation.accountId, runningCap);
  const at = generation.createdAt;
  return Prisma.sql`
    WITH ${debitSteps(hold, hasRoom)}, created AS (
      INSERT INTO generations (id, account_id, api_key_id, name, prompt, additional_prompt, mode, optimize_prompt,
        params, tags, meta_data, process_mode, status, engine, credit_held, attempt, queued_at, created_at, updated_at)
      SELECT ${generation.id}::uuid, ${generation.accountId}::uuid, ${generation.apiKeyId}::uuid,
        ${generation.name}, ${generation.prompt}, ${generation.additionalPrompt},
        ${generation.mode}::"GenerationMode", ${generation.optimizePrompt}, ${JSON.stringify(generation.params)}::jsonb,
        ${generation.tags}::text[], ${JSON.stringify(generation.metaData)}::jsonb,
        ${generation.processMode}::"ProcessMode", ${generation.status}, ${generation.engine}, ${generation.creditHeld},
        ${generation.attempt}, ${generation.queuedAt}, ${at}, ${at}
      WHERE ${DEBIT_PAID} AND ${hasRoom}
      RETURNING id, account_id
    ), recorded AS (${eventStep(Prisma.raw("created"), event)})
    ${answerStep(answer.key, answer.value, Prisma.raw("created"))}
    SELECT ${DEBIT_OUTCOME}, ${hasRoom} AS "hasRoom"`;
}

/** The generation with its images (id, titles, free, validate) in the order the engine made them. */
export function selectWithImages(id: string): Prisma.Sql {
  return Prisma.sql`
    SELECT ${GENERATION_FIELDS}, coalesce((
      SELECT json_agg(json_build_object('id', id, 'titles', titles, 'free', free, 'validate', validate)
        ORDER BY generation_index)
      FROM images WHERE generation_id = generations.id), '[]') AS images
    FROM generations WHERE id = ${id}::uuid`;
}

/**
 * A worker's transition: `changes` where `condition` still holds, and `event`, all or nothing. Selects
 * `changed`, the number of rows changed.
 */
export function workerTransition(
  id: string,
  condition: Prisma.Sql,
  changes: WorkerChanges,
  event: GenerationEvent,
): Prisma.Sql {
  return Prisma.sql`
    WITH changed AS (${updateWorkerChanges(id, condition, changes)}),
    recorded AS (${eventStep(Prisma.raw("changed"), event)})
    SELECT count(*)::int AS changed FROM changed`;
}

/**
 * The image that completes the set and the transition to Done, in one statement while the worker's `token`
 * holds the generation and no worker recorded that image yet: the image, its progress event, `changes` and
 * the Done event, all or nothing (one round trip and one commit fewer a generation than the two steps).
 * Selects `changed`: 0 when nothing was written, and the steps one by one tell why.
 */
export function completeWithImage(
  generationId: string,
  token: string,
  image: NewGeneratedImage,
  changes: WorkerChanges,
  events: { progress: GenerationEvent; done: GenerationEvent },
): Prisma.Sql {
  const isNew = Prisma.sql`NOT EXISTS (
    SELECT 1 FROM images WHERE generation_id = ${generationId}::uuid AND generation_index = ${image.index})`;
  const condition = Prisma.sql`${isHeldBy(token)} AND ${isNew}`;
  // Built in the events' order: their ids, made in turn, order them within the statement's timestamp.
  const progress = eventStep(Prisma.raw("changed"), events.progress);
  const done = eventStep(Prisma.raw("changed"), events.done);
  return Prisma.sql`
    WITH changed AS (${updateWorkerChanges(generationId, condition, changes)}),
    added AS (${insertImage(Prisma.raw("changed"), image)}),
    progressed AS (${progress}),
    recorded AS (${done})
    SELECT count(*)::int AS changed FROM changed`;
}

/** Writes a worker's `changes` to generation `id` where `condition` holds; returns id, account_id. */
function updateWorkerChanges(id: string, condition: Prisma.Sql, changes: WorkerChanges): Prisma.Sql {
  return Prisma.sql`
    UPDATE generations SET status = ${changes.status}, worker_token = ${changes.workerToken},
      credit_held = ${changes.creditHeld}, engine = ${changes.engine}, engine_model = ${changes.engineModel},
      updated_at = now()
    WHERE id = ${id}::uuid AND ${condition}
    RETURNING id, account_id`;
}

/** The condition of a start: the generation still waits, Pending, for `attempt`. */
export function isPending(attempt: number): Prisma.Sql {
  return Prisma.sql`attempt = ${attempt} AND status = ${GenerationStatus.Pending}`;
}

/** The condition of a worker's step: its `token` still holds the generation in Processing. */
export function isHeldBy(token: string): Prisma.Sql {
  return Prisma.sql`worker_token = ${token} AND status = ${GenerationStatus.Processing}`;
}

/**
 * One stored image and its progress event while the worker's `token` holds the generation in Processing:
 * the fencing update, the image and the event, all or nothing. An image a previous worker recorded stays
 * as it was, without an event. Selects `held` and `added` (0 or 1 each).
 */
export function addImage(
  generationId: string,
  token: string,
  image: NewGeneratedImage,
  event: GenerationEvent,
): Prisma.Sql {
  return Prisma.sql`
    WITH fenced AS (
      UPDATE generations SET updated_at = now()
      WHERE id = ${generationId}::uuid AND ${isHeldBy(token)}
      RETURNING id, account_id
    ), added AS (${insertImage(Prisma.raw("fenced"), image)}),
    recorded AS (${eventStep(Prisma.raw("fenced"), event, Prisma.sql`EXISTS (SELECT 1 FROM added)`)})
    SELECT (SELECT count(*) FROM fenced)::int AS held, (SELECT count(*) FROM added)::int AS added`;
}

/**
 * The step of a statement that inserts the generated `image` for the generation an earlier step (`written`:
 * id, account_id) returned; an image a previous worker recorded stays as it was. Returns the id inserted.
 */
function insertImage(written: Prisma.Sql, image: NewGeneratedImage): Prisma.Sql {
  return Prisma.sql`
    INSERT INTO images (id, source, generation_id, generation_index, owner_account_id, titles, free, validate,
      price, width, height, seed, renditions)
    SELECT ${image.id}::uuid, 'generation', id, ${image.index}, account_id, ${JSON.stringify(image.titles)}::jsonb,
      ${image.free}, ${image.validate}, ${GENERATED_IMAGE_PRICE}, ${image.width}, ${image.height},
      -- Engine seeds are unsigned 32-bit; the column is a signed int4 holding the same bits.
      ${image.seed | 0}, ${JSON.stringify({ original: image.original })}::jsonb
    FROM ${written}
    ON CONFLICT (generation_id, generation_index) DO NOTHING
    RETURNING id`;
}

/**
 * The step of a statement that records `event` for the row an earlier step (`written`: id, account_id)
 * returned, when `condition` holds too.
 */
function eventStep(written: Prisma.Sql, event: GenerationEvent, condition = Prisma.sql`TRUE`): Prisma.Sql {
  return Prisma.sql`
    INSERT INTO outbox_events (id, account_id, generation_id, type, payload)
    SELECT ${uuidv7()}::uuid, account_id, id, ${event.type}, ${JSON.stringify(event.payload)}::jsonb FROM ${written}
    WHERE ${condition}`;
}

/** Locks the account's generation `id`; selects its id when it is the account's. */
export function lockOwned(accountId: string, id: string): Prisma.Sql {
  return Prisma.sql`
    SELECT id FROM generations WHERE id = ${id}::uuid AND account_id = ${accountId}::uuid FOR UPDATE`;
}

/** Locks generation `id` when it is still unfinished after its attempt was queued before `queuedBefore`. */
export function lockExpired(id: string, queuedBefore: Date): Prisma.Sql {
  return Prisma.sql`
    SELECT id FROM generations WHERE id = ${id}::uuid AND status IN (${Prisma.join(UNFINISHED)})
      AND queued_at < ${queuedBefore} FOR UPDATE`;
}

/**
 * Creates and retries of one account take turns (a lock on its row, which foreign keys' shares do not wait
 * for): each counts its generations Pending or Processing in a statement that begins after the one before
 * has committed, so that concurrent creates cannot all see room for one more.
 */
export function lockRunningCount(accountId: string): Prisma.Sql {
  return Prisma.sql`SELECT 1 FROM accounts WHERE id = ${accountId}::uuid FOR NO KEY UPDATE`;
}

/** Selects `hasRoom`: whether the account has room for one more generation Pending or Processing. */
export function selectRunningRoom(accountId: string, cap: number): Prisma.Sql {
  return Prisma.sql`SELECT ${hasRunningRoom(accountId, cap)} AS "hasRoom"`;
}

/**
 * Whether the account has room for one more generation Pending or Processing, counted no further than the
 * cap (0: no cap, always room).
 */
function hasRunningRoom(accountId: string, cap: number): Prisma.Sql {
  if (cap === 0) return Prisma.sql`TRUE`;
  return Prisma.sql`((SELECT count(*) FROM (
      SELECT 1 FROM generations
      WHERE account_id = ${accountId}::uuid AND status IN (${GenerationStatus.Pending}, ${GenerationStatus.Processing})
      LIMIT ${cap}
    ) running) < ${cap})`;
}
