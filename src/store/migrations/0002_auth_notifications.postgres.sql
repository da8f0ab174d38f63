-- PostgreSQL schema version 2: each host keeps what a token digest authenticated in memory
-- (`src/store/notified.rs`), so every change to the rows that decide it tells every host to
-- forget: a notification on the channel `forgecore_auth` when a statement updates, deletes or
-- truncates users, personal access tokens or job tokens. Inserts notify nobody: a host caches
-- only tokens that were found live, and a new row cannot make such an answer wrong (so the
-- job tokens CI makes for every job flush no caches). NOTIFY is transactional: delivered when
-- the writer commits, dropped when it rolls back, once per transaction whatever the row count.
CREATE FUNCTION forgecore_auth_changed() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    PERFORM pg_notify('forgecore_auth', '');
    RETURN NULL;
END;
$$;
CREATE TRIGGER users_auth_changed AFTER UPDATE OR DELETE OR TRUNCATE ON users
    FOR EACH STATEMENT EXECUTE FUNCTION forgecore_auth_changed();
CREATE TRIGGER personal_access_tokens_auth_changed AFTER UPDATE OR DELETE OR TRUNCATE ON personal_access_tokens
    FOR EACH STATEMENT EXECUTE FUNCTION forgecore_auth_changed();
CREATE TRIGGER job_tokens_auth_changed AFTER UPDATE OR DELETE OR TRUNCATE ON job_tokens
    FOR EACH STATEMENT EXECUTE FUNCTION forgecore_auth_changed();
