-- The status a post had when it went to the trash, as WordPress records it: a
-- restore is checked against it, and it is shown to those who may restore. NULL
-- for posts not in the trash (and for those trashed before it was recorded).
ALTER TABLE posts ADD COLUMN trashed_status TEXT;
