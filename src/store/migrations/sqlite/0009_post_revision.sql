-- How many times a post has been written since its creation: iCalendar's SEQUENCE,
-- and what a conditional write (If-Match) checks inside its transaction, so that
-- two edits within one second are still told apart.
ALTER TABLE posts ADD COLUMN revision INTEGER NOT NULL DEFAULT 0;
