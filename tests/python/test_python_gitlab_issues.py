"""python-gitlab, unchanged, on the issues, notes and labels of issue #40, through both hosts (the
Python host and the Go host): project.labels create/list/get/save/delete, project.issues
create/list (Renovate's `state=opened&scope=created_by_me` and `search`)/get/save (a close with
`state_event`)/delete, issue.notes create/list/get/save/delete, and a confidential issue hidden
from a guest."""


import gitlab
import pytest

from conftest import start_either, stop_server


@pytest.fixture(scope="module", params=["python", "go"])
def host(request, tmp_path_factory):
    data_dir = tmp_path_factory.mktemp(f"issues-{request.param}")
    server = start_either(request.param, data_dir)
    for user in ("bot", "guest"):
        server.admin("user", "add", user)
    server.bot = server.admin("token", "add", "bot").json["token"]
    server.guest = server.admin("token", "add", "guest").json["token"]
    root = gitlab.Gitlab(server.url, private_token=server.token)
    group = root.groups.create({"name": "Team", "path": "team"})
    root.projects.create({"name": "app", "path": "app", "namespace_id": group.id})
    server.admin("member", "add", "--group", "team", "--user", "bot", "--access-level", "30")
    server.admin("member", "add", "--group", "team", "--user", "guest", "--access-level", "10")
    yield server
    stop_server(server)


def test_labels(host):
    project = gitlab.Gitlab(host.url, private_token=host.bot).projects.get("team/app")
    label = project.labels.create({"name": "bug", "color": "#d9534f", "description": "Broken"})
    assert (label.name, label.color, label.text_color, label.is_project_label) == ("bug", "#d9534f", "#FFFFFF", True)
    with pytest.raises(gitlab.exceptions.GitlabCreateError) as taken:
        project.labels.create({"name": "bug", "color": "#ffffff"})
    assert taken.value.response_code == 409
    fetched = project.labels.get("bug")
    fetched.new_name = "defect"
    fetched.color = "#000000"
    fetched.save()
    assert [(l.name, l.color) for l in project.labels.list(get_all=True)] == [("defect", "#000000")]
    project.labels.delete("defect")
    assert project.labels.list(get_all=True) == []


def test_issues_and_notes_as_renovate_and_semantic_release_use_them(host):
    bot = gitlab.Gitlab(host.url, private_token=host.bot)
    project = bot.projects.get("team/app")
    assert project.issues.list(state="opened", scope="created_by_me", get_all=True) == []
    dashboard = project.issues.create({"title": "Dependency Dashboard", "description": "- [ ] a",
                                       "labels": ["renovate"]})
    assert (dashboard.iid, dashboard.state, dashboard.labels) == (1, "opened", ["renovate"])
    assert dashboard.references["full"] == "team/app#1"
    assert project.labels.get("renovate").color == "#6699cc"
    found = project.issues.list(state="opened", scope="created_by_me", search="Dependency Dashboard",
                                get_all=True)
    assert [i.iid for i in found] == [1]
    dashboard.description = "- [x] a"
    dashboard.save()
    fetched = project.issues.get(1)
    assert fetched.description == "- [x] a"
    assert fetched.task_completion_status == {"count": 1, "completed_count": 1}

    note = fetched.notes.create({"body": "Release failed"})
    assert (note.body, note.author["username"], note.noteable_iid) == ("Release failed", "bot", 1)
    note.body = "Release failed twice"
    note.save()
    assert fetched.notes.get(note.id).body == "Release failed twice"
    fetched.state_event = "close"
    fetched.save()
    assert project.issues.get(1).state == "closed"
    bodies = [(n.body, n.system) for n in fetched.notes.list(sort="asc", get_all=True)]
    assert bodies == [("Release failed twice", False), ("closed", True)]
    assert project.issues.list(state="opened", get_all=True) == []
    fetched.notes.delete(note.id)
    assert project.issues.get(1).user_notes_count == 0

    secret = project.issues.create({"title": "Leak", "confidential": True})
    guest = gitlab.Gitlab(host.url, private_token=host.guest).projects.get("team/app", lazy=True)
    assert [i.iid for i in guest.issues.list(get_all=True)] == [1]
    with pytest.raises(gitlab.exceptions.GitlabGetError) as hidden:
        guest.issues.get(secret.iid)
    assert hidden.value.response_code == 404
    with pytest.raises(gitlab.exceptions.GitlabDeleteError) as refused:
        project.issues.delete(secret.iid)
    assert refused.value.response_code == 403
    gitlab.Gitlab(host.url, private_token=host.token).projects.get("team/app").issues.delete(secret.iid)
    assert [i.iid for i in project.issues.list(get_all=True)] == [1]
