-- PostgreSQL schema version 3: each host also keeps member role lists and projects by name in
-- memory (`src/store/notified.rs`), so every change to them tells every host to forget: a
-- notification on the channel a trigger names (`forgecore_roles`, `forgecore_projects`) when a
-- statement inserts, updates, deletes or truncates their rows (an insert too: a list must show
-- a new role, and a name that found nothing may find a new project). Delivered when the writer
-- commits, once per transaction.
CREATE FUNCTION forgecore_notify_change() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    PERFORM pg_notify(TG_ARGV[0], '');
    RETURN NULL;
END;
$$;
CREATE TRIGGER member_roles_changed AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON member_roles
    FOR EACH STATEMENT EXECUTE FUNCTION forgecore_notify_change('forgecore_roles');
CREATE TRIGGER projects_changed AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON projects
    FOR EACH STATEMENT EXECUTE FUNCTION forgecore_notify_change('forgecore_projects');
