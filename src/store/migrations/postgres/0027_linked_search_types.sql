-- Each venue's and organizer's type beside its text in `linked_search` (migration
-- 12), so that a search of one kind takes only that kind's candidates from the
-- trigram index: every candidate was looked up in `posts` to learn its type, and
-- an organizers' search for `friends` at a million events read 6,381 candidates
-- there, 4,257 of them venues, for each of its two statements (count and page).
ALTER TABLE linked_search ADD COLUMN post_type TEXT;
UPDATE linked_search SET post_type = posts.post_type FROM posts WHERE posts.id = linked_search.id;
ALTER TABLE linked_search ALTER COLUMN post_type SET NOT NULL;

-- Migration 12's function, the type written too (migrations are never edited).
CREATE OR REPLACE FUNCTION linked_search_sync() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF TG_OP <> 'INSERT' THEN
        DELETE FROM linked_search WHERE id = OLD.id;
    END IF;
    IF TG_OP <> 'DELETE' THEN
        INSERT INTO linked_search (id, post_type, haystack)
        SELECT id, post_type, CASE post_type
            WHEN 'venue' THEN
                coalesce(lower(title), '') || ' ' || coalesce(lower(description), '') || ' ' ||
                coalesce(lower(excerpt), '') || ' ' || coalesce(lower(address), '') || ' ' ||
                coalesce(lower(city), '') || ' ' || coalesce(lower(province), '') || ' ' ||
                coalesce(lower(state), '') || ' ' || coalesce(lower(stateprovince), '') || ' ' ||
                coalesce(lower(zip), '') || ' ' || coalesce(lower(phone), '')
            ELSE
                coalesce(lower(title), '') || ' ' || coalesce(lower(description), '') || ' ' ||
                coalesce(lower(excerpt), '') || ' ' || coalesce(lower(phone), '') || ' ' ||
                coalesce(lower(email), '') || ' ' || coalesce(lower(website), '')
            END
        FROM posts WHERE id = NEW.id AND post_type IN ('venue', 'organizer');
    END IF;
    RETURN NULL;
END
$$;

ANALYZE linked_search;
