"""python-gitlab, unchanged, on the groups and namespaces API of both hosts (the Python host and
the Go host): gl.groups.create/list/get, group.save() after edits (a new path moves the project
below it, as the projects API and git over HTTP see it), group.subgroups and
group.descendant_groups, gl.namespaces.get/list as Backstage reads them."""

import subprocess

import gitlab
import pytest

from conftest import build_fixture, start_either, stop_server


@pytest.fixture(scope="module", params=["python", "go"])
def host(request, tmp_path_factory):
    data_dir = tmp_path_factory.mktemp(f"groups-{request.param}")
    server = start_either(request.param, data_dir)
    fixtures = tmp_path_factory.mktemp(f"groups-fixtures-{request.param}")
    build_fixture("repo.sh", fixtures)
    server.repo = fixtures / "bare.git"
    server.admin("user", "add", "gina")
    server.gina = server.admin("token", "add", "gina").json["token"]
    yield server
    stop_server(server)


def test_create_list_get_and_save(host):
    gina = gitlab.Gitlab(host.url, private_token=host.gina)
    group = gina.groups.create({"name": "Web Team", "path": "web", "visibility": "public",
                                "description": "The web"})
    assert (group.full_path, group.name, group.visibility, group.parent_id) == ("web", "Web Team", "public", None)
    assert group.web_url == f"{host.url}/groups/web"
    sub = gina.groups.create({"name": "Apps", "path": "apps", "parent_id": group.id, "visibility": "public"})
    deep = gina.groups.create({"name": "Deep", "path": "deep", "parent_id": sub.id})
    assert (sub.full_path, deep.full_path, deep.full_name) == ("web/apps", "web/apps/deep", "Web Team / Apps / Deep")
    with pytest.raises(gitlab.exceptions.GitlabCreateError) as refused:
        gina.groups.create({"name": "Again", "path": "web"})
    assert refused.value.response_code == 400
    assert "has already been taken" in str(refused.value)

    assert [g.full_path for g in gina.groups.list(search="app", get_all=True)] == ["web/apps"]
    assert [g.full_path for g in gina.groups.list(top_level_only=True, get_all=True)] == ["web"]
    fetched = gina.groups.get(group.id)
    assert fetched.description == "The web"
    assert [s.full_path for s in fetched.subgroups.list(get_all=True)] == ["web/apps"]
    assert sorted(d.full_path for d in fetched.descendant_groups.list(get_all=True)) == ["web/apps", "web/apps/deep"]

    # A project below, then a new path for the group: the project moves with it.
    host.admin("project", "add", "web/apps/site", "--repo", host.repo, "--visibility", "public")
    fetched.description = "Renamed"
    fetched.path = "www"
    fetched.save()
    again = gina.groups.get("www")
    assert (again.description, again.full_path, again.id) == ("Renamed", "www", group.id)
    assert gina.groups.get("www/apps/deep").full_path == "www/apps/deep"
    with pytest.raises(gitlab.exceptions.GitlabGetError):
        gina.groups.get("web")
    project = gina.projects.get("www/apps/site")
    assert project.path_with_namespace == "www/apps/site"
    assert project.http_url_to_repo == f"{host.url}/www/apps/site.git"
    heads = subprocess.run(["git", "ls-remote", "--heads", project.http_url_to_repo], check=True,
                           capture_output=True, text=True).stdout
    assert "refs/heads/main" in heads

    # Someone else may see the public group but not change it.
    host.admin("user", "add", "olaf")
    olaf = gitlab.Gitlab(host.url, private_token=host.admin("token", "add", "olaf").json["token"])
    theirs = olaf.groups.get("www")
    theirs.description = "mine now"
    with pytest.raises(gitlab.exceptions.GitlabUpdateError) as forbidden:
        theirs.save()
    assert forbidden.value.response_code == 403
    assert [g.full_path for g in olaf.groups.list(get_all=True)] == []
    assert "www" in [g.full_path for g in olaf.groups.list(all_available=True, get_all=True)]


def test_namespaces_as_backstage_reads_them(host):
    gina = gitlab.Gitlab(host.url, private_token=host.gina)
    gina.auth()
    team = gina.groups.create({"name": "Team", "path": "team-ns"})
    ns = gina.namespaces.get("team-ns")
    assert (ns.id, ns.kind, ns.full_path) == (team.id, "group", "team-ns")
    mine = gina.namespaces.get("gina")
    assert (mine.kind, mine.path) == ("user", "gina")
    assert gina.namespaces.get(mine.id).full_path == "gina"
    listed = {(n.kind, n.full_path) for n in gina.namespaces.list(get_all=True)}
    assert ("user", "gina") in listed and ("group", "team-ns") in listed
    with pytest.raises(gitlab.exceptions.GitlabGetError) as missing:
        gina.namespaces.get("root")
    assert missing.value.response_code == 404
    admin = gitlab.Gitlab(host.url, private_token=host.token)
    assert admin.namespaces.get("gina").id == mine.id
