-- A venue or organizer of many events moved to the trash: its status changes in the
-- request, its events lose their link to it a batch per transaction
-- (`store::linked_unlinks`). Reads show no link to a post in the trash, so the
-- events are shown unlinked from the answer on. A queued post leaves the queue when
-- none of its events is linked to it.
CREATE TABLE linked_unlinks (
    post_id INTEGER PRIMARY KEY REFERENCES posts(id) ON DELETE CASCADE
);
