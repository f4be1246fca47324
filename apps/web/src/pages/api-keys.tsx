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

/** How long a new key works, in days; "" never expires. A list rather than a date field: one Tab stop. */
const LIFETIMES = ["", "7", "30", "90", "365"] as const;
const LIFETIME_CHOICES: Record<(typeof LIFETIMES)[number], string> = {
  "": "Never expires",
  "7": "7 days",
  "30": "30 days",
  "90": "90 days",
  "365": "A year",
};

function expiryAfter(days: string): string | undefined {
  return days ? new Date(Date.now() + Number(days) * 86_400_000).toISOString() : undefined;
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
      expiresAt: expiryAfter(String(values.get("lifetime") ?? "")),
    };
    const fieldOf = (path: readonly PropertyKey[]) =>
      path[0] === "expiresAt" ? "lifetime" : String(path[0]);
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
        <Field label="Expires after" problems={problems.lifetime}>
          <Choices name="lifetime" options={LIFETIMES} labels={LIFETIME_CHOICES} defaultValue="" />
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
