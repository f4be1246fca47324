import {
  accountGenerationOperations,
  againRequest,
  type CreateImageGenerationRequest,
  CreateImageGenerationRequestSchema,
  GENERATION_STATUS_NAMES,
  GenerationStatus,
  IMAGES_PER_GENERATION,
  type ImageGeneration,
  type Session,
  SIMPLE_PARAM_RULES,
  type SimpleParamName,
  varyRequest,
} from "@imagehub/domain";
import { type FormEvent, useId, useState } from "react";
import { call } from "../api";
import { CardList } from "../components/card-list";
import { ConfirmedAction } from "../components/confirmed-action";
import { Field } from "../components/field";
import { GeneratedImage } from "../components/generated-image";
import { ErrorMessage } from "../components/messages";
import { PageHeading } from "../components/page-heading";
import { Pager } from "../components/pager";
import { useAccountImages } from "../components/purchase";
import { checkForm, type FieldProblems, problemsOfFailure } from "../form-problems";
import { formatDate } from "../format";
import { useAction, useInterval, useOffsetPages } from "../hooks";

/**
 * Live status by polling, not server-sent events: a generation changes a handful of times in its life, the
 * list is one indexed query, and polling needs no connection held per open tab, no fan-out between API
 * instances and nothing special from proxies. It runs only while something on the page is still running
 * and the tab is in view.
 */
const LIVE_REFRESH_MS = 1500;
const PAGE_SIZE = 10;

/** How the form shows each simple-mode parameter; the rules themselves are the API's (SIMPLE_PARAM_RULES). */
const PARAM_LABELS: Record<SimpleParamName, { label: string; hint?: string }> = {
  format: { label: "Format", hint: "Aspect ratio." },
  weather: { label: "Weather" },
  time: { label: "Time of day" },
  chaos: { label: "Chaos", hint: "0 to 100: how varied the 4 images are." },
  stylize: { label: "Stylize", hint: "0 to 1000: how strongly the model's style applies." },
  camera: { label: "Camera", hint: "e.g. Canon EOS R5" },
  angle: { label: "Angle", hint: "e.g. low angle" },
  photographe: { label: "Photographer", hint: "A style to follow." },
  interdiction: { label: "Leave out", hint: "Unwanted elements, separated by commas." },
  version: { label: "Model version", hint: "e.g. 6.1" },
  templatePrompt: { label: "Template" },
  sujetMode: { label: "Subject mode" },
  fromImageUrl: { label: "Start from image URL" },
  engine: { label: "Engine", hint: "Among the server's engines; empty: its default." },
};
const MODES = [
  { value: "simple", label: "Simple: a description and the parameters below" },
  { value: "advanced", label: "Advanced: a full Midjourney command with its flags" },
] as const;

const PARAM_NAMES = Object.keys(PARAM_LABELS) as SimpleParamName[];
const NUMERIC_PARAMS: ReadonlySet<SimpleParamName> = new Set(["chaos", "stylize"]);

/** The choices of a parameter whose rule is an enum (format, weather, time, template). */
function choicesOf(name: SimpleParamName): readonly string[] | undefined {
  const rule = SIMPLE_PARAM_RULES[name] as { options?: readonly string[] };
  return Array.isArray(rule.options) ? rule.options : undefined;
}

function isRunning(generation: ImageGeneration): boolean {
  return generation.status !== GenerationStatus.Done && generation.status !== GenerationStatus.Error;
}

export function GenerationsPage({ session }: { session: Session }) {
  const generations = useOffsetPages(PAGE_SIZE, (page) =>
    call(accountGenerationOperations.listAccountGenerations, { query: page }),
  );
  const { data, reload, pages } = generations;
  useInterval(reload, LIVE_REFRESH_MS, data?.prints.some(isRunning) ?? false);
  // Prices and purchases of the finished generations' images: bought ones show their links after a reload.
  const owned = useAccountImages(
    (data?.prints ?? [])
      .filter((generation) => generation.status === GenerationStatus.Done)
      .flatMap((generation) => generation.images.map((image) => image.id)),
  );

  return (
    <>
      <PageHeading>Generations</PageHeading>
      <p>
        Each generation draws 4 images from a prompt and holds one <code>f_images_print</code> credit, given
        back if it fails. Its images are yours to buy; nobody else can.
      </p>
      <GenerationForm
        isDedicated={session.account.plan === "dedicated"}
        onCreated={() => (pages.offset === 0 ? reload() : pages.setOffset(0))}
      />
      <h2>Your generations</h2>
      <CardList
        state={generations}
        what="your generations"
        items={(list) => list.prints}
        empty="No generation yet."
        card={(generation) => <GenerationCard generation={generation} owned={owned} onChanged={reload} />}
      />
      {data && <Pager label="Pages of generations" pages={pages} total={data.filteredResults} />}
    </>
  );
}

/** The form's fields as the request's body, before the schema checks it. */
function requestOf(values: FormData, mode: string): Record<string, unknown> {
  const text = (name: string) => String(values.get(name) ?? "").trim();
  const isSimple = mode === "simple";
  const params = PARAM_NAMES.filter((name) => text(`param:${name}`) !== "").map((name) => ({
    name,
    value: text(`param:${name}`),
  }));
  const tags = text("tags")
    .split(",")
    .map((tag) => tag.trim())
    .filter(Boolean);
  return {
    name: text("name"),
    prompt: text("prompt"),
    mode,
    ...(text("additionalPrompt") && { additionalPrompt: text("additionalPrompt") }),
    ...(isSimple && values.get("optimizePrompt") && { optimizePrompt: true }),
    ...(isSimple && params.length > 0 && { params }),
    ...(tags.length > 0 && { tags }),
    ...(text("processMode") && { processMode: text("processMode") }),
  };
}

function GenerationForm({ isDedicated, onCreated }: { isDedicated: boolean; onCreated: () => unknown }) {
  const [mode, setMode] = useState<"simple" | "advanced">("simple");
  const [problems, setProblems] = useState<FieldProblems>({});
  // Closed at first, to keep the form short on a phone; opened where a parameter has a problem to show.
  const [areParamsOpen, setParamsOpen] = useState(false);
  const { run, isBusy } = useAction();
  const showProblems = (found: FieldProblems) => {
    setProblems(found);
    if (Object.keys(found).some((field) => field.startsWith("param:"))) setParamsOpen(true);
  };

  const submit = async (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    const form = event.currentTarget;
    const request = requestOf(new FormData(form), mode);
    // A parameter's problems show beside that parameter's field.
    const params = (request.params ?? []) as { name: string }[];
    const fieldOf = (path: readonly PropertyKey[]) =>
      path[0] === "params" && typeof path[1] === "number"
        ? `param:${params[path[1]]?.name}`
        : String(path[0]);
    const checked = checkForm(CreateImageGenerationRequestSchema, request, fieldOf);
    if ("problems" in checked) return showProblems(checked.problems);
    setProblems({});
    // The raw request, not the parsed one: the API parses it again, as it would any client's.
    const created = await run(() =>
      call(accountGenerationOperations.createAccountGeneration, {
        body: request as CreateImageGenerationRequest,
      }).catch((failure: unknown) => {
        showProblems(problemsOfFailure(failure, fieldOf));
        return undefined;
      }),
    );
    if (!created) return;
    form.reset();
    setMode("simple");
    await onCreated();
  };

  return (
    <form onSubmit={submit} className="stack" aria-label="Create a generation" noValidate>
      <h2>New generation</h2>
      <fieldset>
        <legend>Mode</legend>
        <div className="row">
          {MODES.map(({ value, label }) => (
            <label key={value} className="check">
              <input
                type="radio"
                name="mode"
                value={value}
                checked={mode === value}
                onChange={() => setMode(value)}
              />
              <span>{label}</span>
            </label>
          ))}
        </div>
      </fieldset>
      <div className="form-grid">
        <Field label="Name" problems={problems.name}>
          <input name="name" required maxLength={200} placeholder="Lighthouse at dusk" />
        </Field>
        <Field label="Tags" hint="Separated by commas." problems={problems.tags}>
          <input name="tags" placeholder="coast, dusk" />
        </Field>
      </div>
      <Field
        label={mode === "simple" ? "Description" : "Command"}
        hint={
          mode === "simple"
            ? "Plain words; set the look with the parameters, not with --flags."
            : "e.g. a lighthouse at dusk --ar 16:9 --chaos 20 --stylize 250"
        }
        problems={problems.prompt}
      >
        <textarea name="prompt" required rows={3} maxLength={4096} />
      </Field>
      <Field
        label="Text before the description"
        hint="Optional; never rewritten."
        problems={problems.additionalPrompt}
      >
        <input name="additionalPrompt" maxLength={1024} />
      </Field>
      {isDedicated && (
        <Field label="Speed" problems={problems.processMode}>
          <select name="processMode" defaultValue="">
            <option value="">Fast while the quota lasts, then relax</option>
            <option value="fast">Fast</option>
            <option value="relax">Relax</option>
          </select>
        </Field>
      )}
      {mode === "simple" && (
        <>
          <label className="check">
            <input type="checkbox" name="optimizePrompt" value="true" />
            <span>Rewrite my description into a fuller one before drawing</span>
          </label>
          <details
            className="params"
            open={areParamsOpen}
            onToggle={(event) => setParamsOpen(event.currentTarget.open)}
          >
            <summary>Parameters: format, weather, time of day, chaos, stylize…</summary>
            <div className="form-grid">
              {PARAM_NAMES.map((name) => (
                <ParamField key={name} name={name} problems={problems[`param:${name}`]} />
              ))}
            </div>
          </details>
        </>
      )}
      <ErrorMessage text={problems.form?.join("\n")} />
      <div>
        <button type="submit" disabled={isBusy}>
          Generate 4 images
        </button>
      </div>
    </form>
  );
}

function ParamField({ name, problems }: { name: SimpleParamName; problems: string[] | undefined }) {
  const { label, hint } = PARAM_LABELS[name];
  const choices = choicesOf(name);
  const fieldName = `param:${name}`;
  return (
    <Field label={label} hint={hint} problems={problems}>
      {choices ? (
        <select name={fieldName} defaultValue="">
          <option value="">—</option>
          {choices.map((choice) => (
            <option key={choice} value={choice}>
              {choice}
            </option>
          ))}
        </select>
      ) : (
        <input
          name={fieldName}
          inputMode={NUMERIC_PARAMS.has(name) ? "numeric" : undefined}
          type={name === "fromImageUrl" ? "url" : "text"}
        />
      )}
    </Field>
  );
}

function GenerationCard({
  generation,
  owned,
  onChanged,
}: {
  generation: ImageGeneration;
  owned: ReturnType<typeof useAccountImages>;
  onChanged: () => Promise<void>;
}) {
  const headingId = useId();
  const { run, error, isBusy } = useAction();
  const params = { printId: generation.id };

  const retry = async () => {
    if (await run(() => call(accountGenerationOperations.retryAccountGeneration, { params })))
      await onChanged();
  };
  /** Again and Vary: a new generation, at the top of the list. */
  const create = async (body: CreateImageGenerationRequest) => {
    if (await run(() => call(accountGenerationOperations.createAccountGeneration, { body })))
      await onChanged();
  };
  const isDone = generation.status === GenerationStatus.Done;
  const remove = async () => {
    const removed = await run(() =>
      call(accountGenerationOperations.deleteAccountGenerations, { body: { printIds: [generation.id] } }),
    );
    if (removed) await onChanged();
    return removed !== undefined;
  };
  const slots = Array.from({ length: IMAGES_PER_GENERATION }, (_, index) => generation.images[index]);

  return (
    <article className="card" aria-labelledby={headingId}>
      <h3 id={headingId}>{generation.name}</h3>
      <GenerationStatusLine generation={generation} />
      <p className="prompt">{generation.prompt}</p>
      {generation.params.length > 0 && (
        <p className="badges">
          {generation.params.map((param) => (
            <span key={param.name} className="badge">
              {param.name}: {param.value}
            </span>
          ))}
        </p>
      )}
      <p className="hint">
        {generation.mode} mode · created {formatDate(generation.createdAt)}
        {generation.engine &&
          ` · ${generation.engine.name}${generation.engine.model ? ` ${generation.engine.model}` : ""}`}
      </p>
      <ul className="plain images">
        {slots.map((image, index) => (
          // The slots are positions: the n-th image fills the n-th.
          // biome-ignore lint/suspicious/noArrayIndexKey: a slot is its position.
          <li key={index}>
            {image ? (
              <GeneratedImage
                url={image.url}
                fullUrl={image.urlFull}
                label={`${generation.name}, image ${index + 1}`}
                details={owned.images.get(image.id)}
                onBought={owned.bought}
                onVary={isDone ? () => void create(varyRequest(generation, image.url)) : undefined}
                isBusy={isBusy}
              />
            ) : (
              <div className="placeholder">
                <span className="hint">Image {index + 1} to come</span>
              </div>
            )}
          </li>
        ))}
      </ul>
      <div className="row">
        {isDone && (
          <button type="button" onClick={() => void create(againRequest(generation))} disabled={isBusy}>
            Again
          </button>
        )}
        {generation.status === GenerationStatus.Error && (
          <button type="button" onClick={() => void retry()} disabled={isBusy}>
            Retry
          </button>
        )}
        <ConfirmedAction
          label="Delete"
          confirmLabel={`Yes, delete ${generation.name}`}
          warning="Its images go too, except those you bought."
          onConfirm={remove}
          isBusy={isBusy}
        />
      </div>
      <ErrorMessage text={error} />
    </article>
  );
}

function GenerationStatusLine({ generation }: { generation: ImageGeneration }) {
  const name = GENERATION_STATUS_NAMES[generation.status] ?? String(generation.status);
  const tone =
    generation.status === GenerationStatus.Done
      ? "ok"
      : generation.status === GenerationStatus.Error
        ? "bad"
        : "warn";
  return (
    <p>
      <span className={`badge ${tone}`} data-testid="generation-status">
        {name}
      </span>
      {generation.status === GenerationStatus.Processing && generation.progress !== undefined && (
        <> {generation.progress}%</>
      )}
      {generation.status === GenerationStatus.Processing && (
        <span className="hint">
          {" "}
          {generation.images.length} of {IMAGES_PER_GENERATION} images
        </span>
      )}
      {generation.failureReason && <>: {generation.failureReason}</>}
    </p>
  );
}
