-- The images' generated column is planned at the start of every insert, and a SQL function in its
-- expression is inlined there: its body parsed and analysed again for each statement, even for the
-- single-row inserts of a generation's images, which compute no document (7 % of PostgreSQL's time in
-- bench:generations). In PL/pgSQL the function is compiled once per connection and its expression's plan
-- kept; the document it computes is the same, so the stored ones stay as they are.
CREATE OR REPLACE FUNCTION "imagehub_search_document"(titles JSONB, tags TEXT[]) RETURNS tsvector
LANGUAGE plpgsql IMMUTABLE PARALLEL SAFE AS $$
BEGIN
    RETURN setweight(to_tsvector('imagehub_en'::regconfig, coalesce(titles->>'en', '')), 'A')
        || setweight(to_tsvector('imagehub_fr'::regconfig, coalesce(titles->>'fr', '')), 'A')
        || setweight(to_tsvector('imagehub_en'::regconfig, array_to_string(tags, ' ')), 'B');
END
$$;
