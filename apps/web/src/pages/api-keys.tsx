import { type AccountApiKey, accountApiKeyOperations, type CreatedApiKey } from "@imagehub/domain";
import { type FormEvent, useState } from "react";
import { call } from "../api";
import { ErrorMessage, Field, formatDate, Loading, ShownOnce } from "../components";
import { useAction, useLoad } from "../hooks";

export function ApiKeysPage() {
  const { data, error, reload } = useLoad(() => call(accountApiKeyOperations.listApiKeys));
  const [created, setCreated] = useState<CreatedApiKey | undefined>(undefined);
  const [confirming, setConfirming] = useState<string | undefined>(undefined);
  const { run, error: actionError, isBusy } = useAction();

  const create = async (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    const form = event.currentTarget;
    const name = String(new FormData(form).get("name"));
    const answer = await run(() => call(accountApiKeyOperations.createApiKey, { body: { name } }));
    if (!answer) return;
    setCreated(answer);
    form.reset();
    await reload();
  };
  const revoke = async (apiKey: AccountApiKey) => {
    await run(() => call(accountApiKeyOperations.revokeApiKey, { params: { apiKeyId: apiKey.id } }));
    setConfirming(undefined);
    await reload();
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
      <ErrorMessage text={actionError ?? error} />
      {!data ? (
        <Loading what="your keys" />
      ) : (
        <div className="table-wrap">
          <table>
            <caption className="hint">{data.apiKeys.length} keys</caption>
            <thead>
              <tr>
                <th scope="col">Name</th>
                <th scope="col">Key</th>
                <th scope="col">Created</th>
                <th scope="col">Last used</th>
                <th scope="col">Status</th>
              </tr>
            </thead>
            <tbody>
              {data.apiKeys.map((apiKey) => (
                <tr key={apiKey.id}>
                  <td>{apiKey.name}</td>
                  <td>
                    <code>{apiKey.prefix}…</code>
                  </td>
                  <td>{formatDate(apiKey.createdAt)}</td>
                  <td>{formatDate(apiKey.lastUsedAt)}</td>
                  <td>
                    {apiKey.revokedAt ? (
                      <span className="badge bad">revoked {formatDate(apiKey.revokedAt)}</span>
                    ) : confirming === apiKey.id ? (
                      <span className="row">
                        <span>Programs using it will be refused.</span>
                        <button
                          type="button"
                          className="danger"
                          onClick={() => void revoke(apiKey)}
                          disabled={isBusy}
                        >
                          Yes, revoke {apiKey.name}
                        </button>
                        <button type="button" className="secondary" onClick={() => setConfirming(undefined)}>
                          Cancel
                        </button>
                      </span>
                    ) : (
                      <button type="button" className="secondary" onClick={() => setConfirming(apiKey.id)}>
                        Revoke {apiKey.name}
                      </button>
                    )}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </>
  );
}
