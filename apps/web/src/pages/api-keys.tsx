import { type AccountApiKey, accountApiKeyOperations, type CreatedApiKey } from "@imagehub/domain";
import { type FormEvent, useState } from "react";
import { call } from "../api";
import { ApiKeyTable } from "../components/api-key-table";
import { Field } from "../components/field";
import { ErrorMessage, Loaded, ShownOnce } from "../components/messages";
import { useAction, useLoad } from "../hooks";

export function ApiKeysPage() {
  const apiKeys = useLoad(() => call(accountApiKeyOperations.listApiKeys));
  const [created, setCreated] = useState<CreatedApiKey | undefined>(undefined);
  const { run, error, isBusy } = useAction();

  const create = async (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    const form = event.currentTarget;
    const name = String(new FormData(form).get("name"));
    const answer = await run(() => call(accountApiKeyOperations.createApiKey, { body: { name } }));
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
    return revoked !== undefined;
  };

  return (
    <>
      <h1>API keys</h1>
      <p>
        Programs call the API with a key in the <code>api-key</code> header.
      </p>
      <form onSubmit={create} className="row" aria-label="Create an API key">
        <Field label="Name of the new key">
          <input name="name" required maxLength={100} placeholder="laptop" />
        </Field>
        <button type="submit" disabled={isBusy}>
          Create key
        </button>
      </form>
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
