-- Venue and organizer searches of two characters on PostgreSQL, from the trigram
-- index. `pg_trgm` extracts no trigram from `LIKE '%qx%'`, so a pair in no venue
-- read every venue's text to find none: 110-190 ms at 20,000 venues. But wherever
-- a pair occurs in a text, a character of that text follows or precedes it (the
-- text joins its fields with spaces, nine of them for a venue, five for an
-- organizer), and `pg_trgm` looks up the trigrams of the pair and that character.
-- A search of two ASCII characters asks for them as a regular expression of the
-- pair beside any ASCII character, and as the `LIKE`s of the pair and each other
-- character the texts hold (`store::posts::search::pair_candidates`): `pg_trgm`
-- takes no trigram from an expression holding a character past U+07FF, nor from
-- a class of many. `linked_search_chars` holds those other characters, those past
-- ASCII. As `search_chars` does for events (migration 13), it never loses one: a
-- character no text holds any more only costs lookups that find nothing. A trigger
-- keeps it in the transaction of the write that indexes a text, so no reader sees
-- the text before its characters.
CREATE TABLE linked_search_chars (ch TEXT PRIMARY KEY);

CREATE FUNCTION linked_search_chars_add() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    INSERT INTO linked_search_chars (ch)
    SELECT DISTINCT c
    FROM regexp_split_to_table(regexp_replace(NEW.haystack, '[\u0001-\u007f]', '', 'g'), '') AS c
    WHERE c <> ''
    ON CONFLICT DO NOTHING;
    RETURN NULL;
END
$$;

-- `linked_search_sync` (migrations 12 and 27) deletes a changed text's row and
-- inserts it again: inserts are every write of a text.
CREATE TRIGGER linked_search_chars_insert AFTER INSERT ON linked_search FOR EACH ROW
    EXECUTE FUNCTION linked_search_chars_add();

INSERT INTO linked_search_chars (ch)
SELECT DISTINCT c
FROM linked_search,
    regexp_split_to_table(regexp_replace(haystack, '[\u0001-\u007f]', '', 'g'), '') AS c
WHERE c <> ''
ON CONFLICT DO NOTHING;
