import {
  type AccountApiKey,
  accountApiKeyOperations,
  CreateApiKeyRequestSchema,
  type CreatedApiKey,
} from "@imagehub/domain";
import { type FormEvent, useState } from "react";
import { call } from "../api";
import { ApiKeyTable } from "../components/api-key-table";
import { Choices, Field } from "../components/field";
import { ErrorMessage, Loaded, ShownOnce } from "../components/messages";
import { PageHeading } from "../components/page-heading";
import { checkForm, type FieldProblems, problemsOfFailure } from "../form-problems";
import { useAction, useLoad } from "../hooks";

const SCOPES = ["full", "read-only"] as const;
const SCOPE_CHOICES: Record<(typeof SCOPES)[number], string> = {
  full: "Full: everything the account may do",
  "read-only": "Read-only: search, display and list; never spend or change",
};

/** A date input's day as the moment the key stops working: the end of that day, in the reader's time zone. */
function endOfDay(day: string): string | undefined {
  if (!day) return undefined;
  const [year, month, date] = day.split("-").map(Number);
  return new Date(year ?? 0, (month ?? 1) - 1, (date ?? 1) + 1).toISOString();
}

export function ApiKeysPage() {
  const apiKeys = useLoad(() => call(accountApiKeyOperations.listApiKeys));
  const [created, setCreated] = useState<CreatedApiKey | undefined>(undefined);
  const [problems, setProblems] = useState<FieldProblems>({});
  const { run, error, isBusy } = useAction();

  const create = async (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    const form = event.currentTarget;
    const values = new FormData(form);
    const request = {
      name: String(values.get("name")),
      scope: String(values.get("scope")),
      expiresAt: endOfDay(String(values.get("expiresOn") ?? "")),
    };
    const fieldOf = (path: readonly PropertyKey[]) =>
      path[0] === "expiresAt" ? "expiresOn" : String(path[0]);
    const checked = checkForm(CreateApiKeyRequestSchema, request, fieldOf);
    if ("problems" in checked) return setProblems(checked.problems);
    setProblems({});
    const answer = await run(() =>
      call(accountApiKeyOperations.createApiKey, { body: checked.data }).catch((failure: unknown) => {
        setProblems(problemsOfFailure(failure, fieldOf));
        return undefined;
      }),
    );
    if (!answer) return;
    setCreated(answer);
    form.reset();
    await apiKeys.reload();
  };
  const revoke = async (apiKey: AccountApiKey) => {
    const revoked = await run(() =>
      call(accountApiKeyOperations.revokeApiKey, { params: { apiKeyId: apiKey.id } }),
    );
    await apiKeys.reload();
    // A revoked key's secret is of no use any more: it is no longer shown.
    if (revoked && created?.apiKey.id === apiKey.id) setCreated(undefined);
    return revoked !== undefined;
  };

  return (
    <>
      <PageHeading>API keys</PageHeading>
      <p>
        Programs call the API with a key in the <code>api-key</code> header.
      </p>
      <form onSubmit={create} className="row" aria-label="Create an API key" noValidate>
        <Field label="Name of the new key" problems={problems.name}>
          <input name="name" required maxLength={100} placeholder="laptop" />
        </Field>
        <Field label="Access" problems={problems.scope}>
          <Choices name="scope" options={SCOPES} labels={SCOPE_CHOICES} defaultValue="full" />
        </Field>
        <Field label="Expires after" hint="Optional: the last day it works." problems={problems.expiresOn}>
          <input name="expiresOn" type="date" />
        </Field>
        <button type="submit" disabled={isBusy}>
          Create key
        </button>
      </form>
      <ErrorMessage text={problems.form?.join("\n")} />
      {created && <ShownOnce label={`Your new key "${created.apiKey.name}".`} value={created.key} />}
      <ErrorMessage text={error} />
      <Loaded state={apiKeys} what="your keys">
        {(data) => (
          <ApiKeyTable label="Your API keys" apiKeys={data.apiKeys} onRevoke={revoke} isBusy={isBusy} />
        )}
      </Loaded>
    </>
  );
}
