-- A new event's `event_search` row written once, at the end of its transaction,
-- with its text and its terms together.
--
-- Written as the event was inserted (migration 25's trigger), the row went into
-- the GIN index of text and terms (migration 29) without terms, and was written
-- again at commit when its term keys gave them: a second version whose every
-- trigram entry went into the index again. A create paid for its text's index
-- entries twice.
--
-- The row is read at commit from the post as it is then (a change later in the
-- same transaction is in it; a post deleted meanwhile writes nothing) and its term
-- keys. Deferred triggers fire in the order of their events, so the terms' own
-- (migration 29), queued after the post's insert, find the row as it should be and
-- write nothing. An update of the post in the transaction that inserted it still
-- writes the row at once (the update trigger); this one then writes only what
-- differs.
CREATE FUNCTION event_search_insert_sync() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    INSERT INTO event_search
        (id, start_utc, end_utc, status, protected, hidden, author, terms, haystack,
         protected_title)
    SELECT p.id, COALESCE(p.start_utc, 0), COALESCE(p.end_utc, 0), p.status,
           p.password <> '', p.hide_from_listings, p.author,
           COALESCE((SELECT array_agg(k.value ORDER BY k.value) FROM event_keys k
                     WHERE k.event_id = p.id AND k.kind = 1), '{}'),
           lower(p.title || ' ' || p.excerpt || ' ' || p.description),
           CASE WHEN p.password <> '' THEN lower(p.title) END
    FROM posts p WHERE p.id = NEW.id AND p.post_type = 'event'
    ON CONFLICT (id) DO UPDATE
        SET start_utc = EXCLUDED.start_utc, end_utc = EXCLUDED.end_utc,
            status = EXCLUDED.status, protected = EXCLUDED.protected,
            hidden = EXCLUDED.hidden, author = EXCLUDED.author, terms = EXCLUDED.terms,
            haystack = EXCLUDED.haystack, protected_title = EXCLUDED.protected_title
        WHERE (event_search.start_utc, event_search.end_utc, event_search.status,
               event_search.protected, event_search.hidden, event_search.author,
               event_search.terms, event_search.haystack, event_search.protected_title)
            IS DISTINCT FROM
              (EXCLUDED.start_utc, EXCLUDED.end_utc, EXCLUDED.status, EXCLUDED.protected,
               EXCLUDED.hidden, EXCLUDED.author, EXCLUDED.terms, EXCLUDED.haystack,
               EXCLUDED.protected_title);
    RETURN NULL;
END
$$;

DROP TRIGGER event_search_insert ON posts;
CREATE CONSTRAINT TRIGGER event_search_insert AFTER INSERT ON posts
    DEFERRABLE INITIALLY DEFERRED FOR EACH ROW WHEN (NEW.post_type = 'event')
    EXECUTE FUNCTION event_search_insert_sync();
