-- A venue or organizer of many events deleted for good: it stays queued in the trash,
-- and the batch that unlinks its last event deletes it (`store::linked_unlinks`).
ALTER TABLE linked_unlinks ADD COLUMN then_delete INTEGER NOT NULL DEFAULT 0;
