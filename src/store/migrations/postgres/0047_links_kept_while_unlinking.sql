-- The links an event write makes to a venue or organizer whose events are still
-- being unlinked from it (migration 46): the batches pass over them, and reads show
-- them. A post's rows go when it leaves the queue, or goes to the trash again.
CREATE TABLE linked_unlinks_kept (
    post_id BIGINT NOT NULL REFERENCES linked_unlinks(post_id) ON DELETE CASCADE,
    event_id BIGINT NOT NULL REFERENCES posts(id) ON DELETE CASCADE,
    PRIMARY KEY (post_id, event_id)
);
CREATE INDEX linked_unlinks_kept_event ON linked_unlinks_kept (event_id);
