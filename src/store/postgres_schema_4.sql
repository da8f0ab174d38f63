-- PostgreSQL schema version 4: each host keeps the projects requests name in memory
-- (`src/store/notified.rs`), so every change to them tells every host to forget: a
-- notification on the channel `forgecore_projects` when a statement inserts, updates, deletes
-- or truncates projects (an insert too: a name that found nothing may find the new project).
CREATE FUNCTION forgecore_projects_changed() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    PERFORM pg_notify('forgecore_projects', '');
    RETURN NULL;
END;
$$;
CREATE TRIGGER projects_changed AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON projects
    FOR EACH STATEMENT EXECUTE FUNCTION forgecore_projects_changed();
