-- Idempotency keys keep no secret: an answer that held one (a new API key, a webhook's signing secret, a
-- one-time link that sets a password) becomes the refusal its replay now gets, naming what it made.
UPDATE "idempotency_keys"
SET "status_code" = 409,
    "response" = jsonb_build_object(
      'statusCode', 409,
      'error', 'Conflict',
      'message', jsonb_build_array(
        'the first request with this Idempotency-Key succeeded, but its answer held a secret that is shown only once and not kept: look up '
        || coalesce(
          'webhook ' || ("response" ->> 'webhookId'),
          'API key ' || ("response" -> 'apiKey' ->> 'id'),
          'the account ' || ("response" ->> 'email'),
          'what it made'
        )
        || ' instead (if its secret was lost, replace it)'
      )
    )
WHERE jsonb_typeof("response") = 'object'
  AND 'string' IN (
    jsonb_typeof("response" -> 'key'),
    jsonb_typeof("response" -> 'secret'),
    jsonb_typeof("response" -> 'link'),
    jsonb_typeof("response" -> 'token')
  );

-- Webhook URLs keep no credentials (deliveries are signed with the webhook's secret instead): a user name
-- or password in one is removed.
UPDATE "webhooks"
SET "url" = regexp_replace("url", '^(https?://)[^/?#@]*@', '\1')
WHERE "url" ~ '^https?://[^/?#@]*@';
