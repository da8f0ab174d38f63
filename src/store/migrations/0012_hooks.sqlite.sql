-- SQLite schema version 11 (issue #41, webhooks; numbered 0015 for the round's merge):
-- project hooks (`web_hooks`: GitLab's entity, the event flags as one JSON object, auto-disabling
-- state), the outbox of deliveries (`web_hook_deliveries`: written with the change, one row per
-- hook and event, claimed by a host with a lease) and the hook logs (`web_hook_logs`, 7 days).
CREATE TABLE web_hooks (
    id                        INTEGER PRIMARY KEY,
    project_id                INTEGER REFERENCES projects(id) ON DELETE CASCADE,
    url                       TEXT NOT NULL,
    name                      TEXT NOT NULL DEFAULT '',
    description               TEXT NOT NULL DEFAULT '',
    token                     TEXT NOT NULL DEFAULT '',
    events                    TEXT NOT NULL,
    enable_ssl_verification   INTEGER NOT NULL DEFAULT 1 CHECK (enable_ssl_verification IN (0, 1)),
    push_events_branch_filter TEXT,
    branch_filter_strategy    TEXT NOT NULL DEFAULT 'wildcard',
    custom_webhook_template   TEXT,
    custom_headers            TEXT NOT NULL DEFAULT '{}',
    url_variables             TEXT NOT NULL DEFAULT '{}',
    recent_failures           INTEGER NOT NULL DEFAULT 0,
    disabled_until            INTEGER,
    disabled                  INTEGER NOT NULL DEFAULT 0 CHECK (disabled IN (0, 1)),
    created_at                INTEGER NOT NULL
) STRICT;
CREATE INDEX web_hooks_project ON web_hooks(project_id, id);
CREATE TABLE web_hook_deliveries (
    id              INTEGER PRIMARY KEY,
    hook_id         INTEGER NOT NULL REFERENCES web_hooks(id) ON DELETE CASCADE,
    hook_name       TEXT NOT NULL,
    payload         TEXT NOT NULL,
    idempotency_key TEXT NOT NULL,
    event_uuid      TEXT NOT NULL,
    created_at      INTEGER NOT NULL,
    attempts        INTEGER NOT NULL DEFAULT 0,
    next_at         INTEGER NOT NULL,
    lease_owner     TEXT,
    lease_until     INTEGER,
    state           TEXT NOT NULL DEFAULT 'pending'
) STRICT;
CREATE INDEX web_hook_deliveries_due ON web_hook_deliveries(state, next_at);
CREATE TABLE web_hook_logs (
    id                 INTEGER PRIMARY KEY,
    hook_id            INTEGER NOT NULL REFERENCES web_hooks(id) ON DELETE CASCADE,
    hook_name          TEXT NOT NULL,
    url                TEXT NOT NULL,
    request_headers    TEXT NOT NULL,
    request_data       TEXT NOT NULL,
    response_headers   TEXT NOT NULL,
    response_body      TEXT NOT NULL,
    response_status    TEXT NOT NULL,
    execution_duration INTEGER NOT NULL,
    created_at         INTEGER NOT NULL
) STRICT;
CREATE INDEX web_hook_logs_hook ON web_hook_logs(hook_id, created_at);
