-- An index of the events' whole words beside the trigram index, as SQLite's
-- (its migration 51).
--
-- `pg_trgm` finds `LIKE '%carnival%'` by reading the entries of each of the
-- word's trigrams and intersecting them: a word whose trigrams are common
-- (`arn`, `val`) costs the entries of all of them, whatever its own matches.
--
-- A word of ASCII letters and digits lies inside one piece of the lower-cased
-- text cut at ASCII's other characters (`domain::search_tokens`). The calendar's
-- pieces are few (its vocabulary, `search_words`), and found by a trigram index of
-- their own; the events holding a piece, by `event_search_pieces`, which indexes
-- each event's pieces (`search_pieces`) as whole entries. A search for such a
-- word reads the entries of the pieces holding it (`store::events::word_index`).
--
-- A GIN entry holds at most some 2,700 bytes: pieces longer than 1,024 bytes are
-- left out of the index, and kept in the vocabulary, where a word inside one is
-- seen to be read by its trigrams instead. The vocabulary's own uniqueness is by
-- the piece up to that length, by its digest beyond. Nothing is removed from it: a
-- piece no event holds any more costs a lookup that finds nothing.

-- The pieces of a lower-cased text of three characters or more, as its index holds
-- them: in the text's order, as often as it holds them. The index keeps each once;
-- made distinct and sorted here, in the database's collation, they cost 0.22 ms an
-- event of the bench's, 0.14 as they come. In PL/pgSQL, which keeps the statement's plan for the
-- connection's life, where a function in SQL with a FROM is planned at each call.
CREATE FUNCTION search_pieces(haystack TEXT) RETURNS TEXT[]
LANGUAGE plpgsql IMMUTABLE PARALLEL SAFE AS $$
BEGIN
    RETURN ARRAY(
        SELECT p FROM regexp_split_to_table(haystack, '[\x01-\x2f\x3a-\x60\x7b-\x7f]+') p
        WHERE length(p) >= 3 AND octet_length(p) <= 1024);
END
$$;

CREATE TABLE search_words (word TEXT NOT NULL);
CREATE UNIQUE INDEX search_words_word ON search_words (word)
    WHERE octet_length(word) <= 1024;
CREATE UNIQUE INDEX search_words_long ON search_words (md5(word))
    WHERE octet_length(word) > 1024;
CREATE INDEX search_words_trgm ON search_words USING gin (word gin_trgm_ops);

-- An event's pieces the vocabulary lacks, added in their order: two writers adding
-- the same new pieces wait for each other in the same order, never in a cycle. An
-- edit looks up only the pieces its old text lacked (a set difference by hashing);
-- the order is bytewise, which sorts without the collation's rules.
CREATE FUNCTION search_words_add() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    INSERT INTO search_words (word)
    SELECT n.p FROM (
        SELECT p FROM regexp_split_to_table(NEW.haystack, '[\x01-\x2f\x3a-\x60\x7b-\x7f]+') p
        WHERE length(p) >= 3
        EXCEPT
        SELECT p FROM regexp_split_to_table(CASE WHEN TG_OP = 'UPDATE' THEN OLD.haystack END,
                                            '[\x01-\x2f\x3a-\x60\x7b-\x7f]+') p) n
    ORDER BY n.p COLLATE "C"
    ON CONFLICT DO NOTHING;
    RETURN NULL;
END
$$;

-- The triggers, the vocabulary and the index, on `event_search` as it stands (a
-- bulk load that rebuilds the table runs this part again; bench/load.rs).
-- search_pieces: fill
CREATE TRIGGER search_words_insert AFTER INSERT ON event_search FOR EACH ROW
    EXECUTE FUNCTION search_words_add();
CREATE TRIGGER search_words_update AFTER UPDATE OF haystack ON event_search FOR EACH ROW
    WHEN (OLD.haystack IS DISTINCT FROM NEW.haystack)
    EXECUTE FUNCTION search_words_add();

INSERT INTO search_words (word)
SELECT DISTINCT p
FROM event_search, regexp_split_to_table(haystack, '[\x01-\x2f\x3a-\x60\x7b-\x7f]+') p
WHERE length(p) >= 3
ON CONFLICT DO NOTHING;

SET LOCAL maintenance_work_mem = '256MB';
-- With the terms, as the trigram index holds them (migration 29): a search in a
-- category reads only the candidates holding both.
CREATE INDEX event_search_pieces ON event_search USING gin (search_pieces(haystack), terms);
-- The statistics of the pieces, for the estimates of `&&`.
ANALYZE event_search;
ANALYZE search_words;
-- search_pieces: filled
