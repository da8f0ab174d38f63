-- PostgreSQL schema version 3: each host keeps the member roles of a namespace in memory
-- (`src/store/notified.rs`), so every change to them tells every host to forget: a
-- notification on the channel `forgecore_roles` when a statement inserts, updates, deletes or
-- truncates member roles (an insert too: a list must show a new role). Delivered when the
-- writer commits, once per transaction.
CREATE FUNCTION forgecore_roles_changed() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    PERFORM pg_notify('forgecore_roles', '');
    RETURN NULL;
END;
$$;
CREATE TRIGGER member_roles_changed AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON member_roles
    FOR EACH STATEMENT EXECUTE FUNCTION forgecore_roles_changed();
