-- When each image began to wait for the search index. The bulk load that wrote it flushes it every 20,000
-- images and at its end; one still waiting a minute later was left by a load that stopped (or belongs to a
-- slow one), and the workers' periodic job (catalogue.index-leftovers) indexes it.
ALTER TABLE "search_index_pending" ADD COLUMN "pending_since" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP;
