-- A webhook created from the web area belongs to the account alone: no API key created it.
ALTER TABLE "webhooks" ALTER COLUMN "api_key_id" DROP NOT NULL;
