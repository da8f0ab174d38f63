-- Group hooks (issue #41; GitLab Premium's `GroupHook`, ours on every tier): a hook owned by a
-- group gets the events of every project in the group and its subgroups. A web hook belongs
-- to a project, to a group, or to neither (a system hook).
ALTER TABLE web_hooks ADD COLUMN group_id INTEGER REFERENCES groups(id) ON DELETE CASCADE;
CREATE INDEX web_hooks_group ON web_hooks(group_id, id) WHERE group_id IS NOT NULL;
