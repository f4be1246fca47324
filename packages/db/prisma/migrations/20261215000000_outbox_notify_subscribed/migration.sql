-- Only events some webhook may receive (their account has one) wake the relays. A NOTIFY is not free: each
-- one serialises its transaction's commit with every other notifying commit and wakes every listening relay,
-- six times a generation. The events of accounts without a webhook are marked relayed by the relay's next
-- interval pass, as every event is when no notification comes.
DROP TRIGGER "outbox_events_notify" ON "outbox_events";

CREATE OR REPLACE FUNCTION "outbox_events_notify"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF EXISTS (SELECT 1 FROM "inserted" JOIN "webhooks" ON "webhooks"."account_id" = "inserted"."account_id") THEN
    PERFORM pg_notify('outbox_events', '');
  END IF;
  RETURN NULL;
END $$;

CREATE TRIGGER "outbox_events_notify" AFTER INSERT ON "outbox_events" REFERENCING NEW TABLE AS "inserted"
    FOR EACH STATEMENT EXECUTE FUNCTION "outbox_events_notify"();
