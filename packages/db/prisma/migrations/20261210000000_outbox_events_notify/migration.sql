-- Wakes the webhook relays as new events commit (a NOTIFY is delivered at commit, once per transaction and
-- channel) instead of at their next poll.
CREATE FUNCTION "outbox_events_notify"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM pg_notify('outbox_events', '');
  RETURN NULL;
END $$;

CREATE TRIGGER "outbox_events_notify" AFTER INSERT ON "outbox_events"
    FOR EACH STATEMENT EXECUTE FUNCTION "outbox_events_notify"();
