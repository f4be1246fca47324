import {
  accountWebhookOperations,
  DEFAULT_WEBHOOK_EVENTS,
  SubscribeWebhookRequestSchema,
  WEBHOOK_EVENT_TYPES,
  type Webhook,
  type WebhookEventType,
} from "@imagehub/domain";
import { type FormEvent, useId, useState } from "react";
import { call } from "../api";
import { CardList } from "../components/card-list";
import { ConfirmedAction } from "../components/confirmed-action";
import { Field } from "../components/field";
import { ErrorMessage, Loaded, ShownOnce } from "../components/messages";
import { PageHeading } from "../components/page-heading";
import { Table } from "../components/table";
import { checkForm, type FieldProblems, problemsOfFailure } from "../form-problems";
import { formatDate } from "../format";
import { useAction, useInterval, useLoad } from "../hooks";

const EVENT_HELP: Record<WebhookEventType, string> = {
  test: "test events sent from this page",
  "webhook.disabled": "another webhook of the account was disabled",
  "print.created": "a generation was queued",
  "print.active": "a generation started",
  "print.progress": "a generation's images arrive",
  "print.completed": "a generation is done",
  "print.failed": "a generation failed",
};

/** Deliveries take a moment: an open list of attempts refreshes itself at this pace. */
const ATTEMPTS_REFRESH_MS = 2000;

export function WebhooksPage() {
  const webhooks = useLoad(() => call(accountWebhookOperations.listAccountWebhooks));
  const [secret, setSecret] = useState<{ url: string; secret: string } | undefined>(undefined);
  const [problems, setProblems] = useState<FieldProblems>({});
  const { run, isBusy } = useAction();

  const create = async (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    const form = event.currentTarget;
    const values = new FormData(form);
    const checked = checkForm(SubscribeWebhookRequestSchema, {
      url: String(values.get("url")),
      events: values.getAll("events").map(String),
    });
    if ("problems" in checked) return setProblems(checked.problems);
    setProblems({});
    const created = await run(() =>
      call(accountWebhookOperations.createAccountWebhook, { body: checked.data }).catch(
        (failure: unknown) => {
          setProblems(problemsOfFailure(failure));
          return undefined;
        },
      ),
    );
    if (!created) return;
    setSecret({ url: checked.data.url, secret: created.secret });
    form.reset();
    await webhooks.reload();
  };

  return (
    <>
      <PageHeading>Webhooks</PageHeading>
      <p>
        imagehub posts each event your webhooks choose to their URL, signed with the webhook's secret as
        Standard Webhooks describes. Failed deliveries are retried; a webhook whose deliveries fail for days
        is disabled until you enable it again.
      </p>
      <h2>New webhook</h2>
      <form onSubmit={create} className="stack" aria-label="Create a webhook" noValidate>
        <Field label="Endpoint URL" hint="https://, reachable from the server." problems={problems.url}>
          <input name="url" type="url" required maxLength={2048} placeholder="https://example.com/hooks" />
        </Field>
        <fieldset aria-describedby={problems.events ? "events-problem" : undefined}>
          <legend>Events</legend>
          <div className="checks">
            {WEBHOOK_EVENT_TYPES.map((type) => (
              <label key={type} className="check">
                <input
                  type="checkbox"
                  name="events"
                  value={type}
                  defaultChecked={DEFAULT_WEBHOOK_EVENTS.includes(type)}
                />
                <span>
                  <code>{type}</code> <span className="hint">{EVENT_HELP[type]}</span>
                </span>
              </label>
            ))}
          </div>
          {problems.events && (
            <p className="field-problem" id="events-problem">
              Events: {problems.events.join("; ")}
            </p>
          )}
        </fieldset>
        <ErrorMessage text={problems.form?.join("\n")} />
        <div>
          <button type="submit" disabled={isBusy}>
            Create webhook
          </button>
        </div>
      </form>
      {secret && <ShownOnce label={`The signing secret of ${secret.url}.`} value={secret.secret} />}
      <h2>Your webhooks</h2>
      <CardList
        state={webhooks}
        what="your webhooks"
        items={(data) => data.webhooks}
        empty="No webhook yet."
        card={(webhook) => <WebhookCard webhook={webhook} onChanged={webhooks.reload} />}
      />
    </>
  );
}

function WebhookCard({ webhook, onChanged }: { webhook: Webhook; onChanged: () => Promise<void> }) {
  const headingId = useId();
  const [areAttemptsShown, setAttemptsShown] = useState(false);
  const [isReplaying, setReplaying] = useState(false);
  const [notice, setNotice] = useState<string | undefined>(undefined);
  const { run, error, isBusy } = useAction();
  const params = { webhookId: webhook.id };

  const sendTest = async () => {
    const sent = await run(() => call(accountWebhookOperations.testAccountWebhook, { params }));
    if (!sent) return;
    setNotice(`Test event ${sent.eventId} queued.`);
    setAttemptsShown(true);
  };
  const enable = async () => {
    const enabled = await run(() =>
      call(accountWebhookOperations.enableAccountWebhook, { params, body: { replay: isReplaying } }),
    );
    if (!enabled) return;
    setNotice(isReplaying ? "Enabled; the events it missed are on their way." : "Enabled.");
    await onChanged();
  };
  const remove = async () => {
    const removed = await run(() =>
      call(accountWebhookOperations.deleteAccountWebhook, { params }).then(() => true),
    );
    if (removed) await onChanged();
    return removed === true;
  };

  return (
    <article className="card" aria-labelledby={headingId}>
      <h3 id={headingId} className="webhook-url">
        {webhook.url}
      </h3>
      <WebhookHealth webhook={webhook} />
      <p className="badges">
        <span className="hint">Events:</span>
        {webhook.events.map((type) => (
          <code key={type} className="badge">
            {type}
          </code>
        ))}
      </p>
      <p className="hint">
        Created {formatDate(webhook.createdAt)}
        {webhook.apiKeyId ? " with an API key" : " on this site"}.
      </p>
      {webhook.disabled && (
        <div className="row">
          <label className="check">
            <input
              type="checkbox"
              checked={isReplaying}
              onChange={(event) => setReplaying(event.currentTarget.checked)}
            />
            <span>Also send again the events it missed</span>
          </label>
          <button type="button" onClick={() => void enable()} disabled={isBusy}>
            Re-enable
          </button>
        </div>
      )}
      <div className="row">
        {!webhook.disabled && (
          <button type="button" onClick={() => void sendTest()} disabled={isBusy}>
            Send a test event
          </button>
        )}
        <button
          type="button"
          className="secondary"
          aria-expanded={areAttemptsShown}
          onClick={() => setAttemptsShown(!areAttemptsShown)}
        >
          {areAttemptsShown ? "Hide deliveries" : "Show deliveries"}
        </button>
        <ConfirmedAction
          label="Delete"
          confirmLabel="Yes, delete this webhook"
          onConfirm={remove}
          isBusy={isBusy}
        />
      </div>
      {notice && <p role="status">{notice}</p>}
      <ErrorMessage text={error} />
      {areAttemptsShown && <DeliveryAttempts webhookId={webhook.id} />}
    </article>
  );
}

function WebhookHealth({ webhook }: { webhook: Webhook }) {
  if (webhook.disabled) {
    return (
      <p>
        <span className="badge bad">disabled</span> since {formatDate(webhook.disabledAt)}
        {webhook.disabledReason && <>: {webhook.disabledReason}</>}
      </p>
    );
  }
  if (webhook.failingSince) {
    return (
      <p>
        <span className="badge warn">failing</span> no successful delivery since{" "}
        {formatDate(webhook.failingSince)}; it is disabled if this goes on.
      </p>
    );
  }
  return (
    <p>
      <span className="badge ok">enabled</span>
    </p>
  );
}

function DeliveryAttempts({ webhookId }: { webhookId: string }) {
  const attempts = useLoad(
    () => call(accountWebhookOperations.listAccountWebhookAttempts, { params: { webhookId } }),
    [webhookId],
  );
  useInterval(attempts.reload, ATTEMPTS_REFRESH_MS, true);
  return (
    <Loaded state={attempts} what="the deliveries">
      {(data) => (
        <Table
          label="Delivery attempts"
          caption={`Latest delivery attempts, newest first (${data.attempts.length})`}
          rows={data.attempts}
          rowKey={(attempt) => `${attempt.eventId}/${attempt.attempt}`}
          columns={[
            { header: "When", cell: (attempt) => formatDate(attempt.createdAt) },
            {
              header: "Answer",
              cell: (attempt) =>
                attempt.error === undefined ? (
                  <span className="badge ok">{attempt.statusCode}</span>
                ) : (
                  <span className="badge bad">
                    {attempt.statusCode ?? "no answer"}: {attempt.error}
                  </span>
                ),
            },
            { header: "Took", cell: (attempt) => `${attempt.durationMs} ms` },
            { header: "Event", cell: (attempt) => <code>{attempt.eventId}</code> },
            { header: "Attempt", cell: (attempt) => attempt.attempt },
          ]}
        />
      )}
    </Loaded>
  );
}
