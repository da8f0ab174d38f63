"""python-gitlab, unchanged, on CI/CD variables of both hosts (the Python host and the Go host),
mirroring python-gitlab's own functional tests/functional/api/test_variables.py: instance,
group and project variables created, listed, saved, fetched and deleted, and hidden
(`masked_and_hidden`) ones, whose value no group or project answer shows (instance variables
have no hidden, and show theirs). Environment scopes with `filter`. Also `gl.variables.list()`, which python-gitlab's suite
runs to reset its GitLab before every module, and a Developer's 403."""


import gitlab
import pytest

from conftest import build_fixture, start_either, stop_server


@pytest.fixture(scope="module", params=["python", "go"])
def host(request, tmp_path_factory):
    data_dir = tmp_path_factory.mktemp(f"variables-{request.param}")
    server = start_either(request.param, data_dir)
    fixtures = tmp_path_factory.mktemp(f"variables-fixtures-{request.param}")
    build_fixture("repo.sh", fixtures)
    server.admin("group", "add", "ci")
    server.admin("project", "add", "ci/app", "--repo", fixtures / "bare.git")
    server.admin("user", "add", "devon")
    server.devon = server.admin("token", "add", "devon").json["token"]
    server.admin("member", "add", "--group", "ci", "--user", "devon", "--access-level", "30")
    yield server
    stop_server(server)


@pytest.fixture
def gl(host):
    admin = gitlab.Gitlab(host.url, private_token=host.token)
    # python-gitlab's functional suite resets its GitLab this way before every module.
    for variable in admin.variables.list(get_all=True):
        variable.delete()
    return admin


@pytest.fixture
def group(gl):
    return gl.groups.get("ci")


@pytest.fixture
def project(gl):
    return gl.projects.get("ci/app")


def test_instance_variables(gl):
    variable = gl.variables.create({"key": "key1", "value": "value1"})
    assert variable.value == "value1"
    assert variable in gl.variables.list()

    variable.value = "new_value1"
    variable.save()
    variable = gl.variables.get(variable.key)
    assert variable.value == "new_value1"

    variable.delete()
    assert gl.variables.list(get_all=True) == []
    with pytest.raises(gitlab.exceptions.GitlabGetError) as missing:
        gl.variables.get("key1")
    assert missing.value.response_code == 404


def test_group_variables(group):
    variable = group.variables.create({"key": "key1", "value": "value1"})
    assert variable.value == "value1"
    assert variable in group.variables.list()

    variable.value = "new_value1"
    variable.save()
    variable = group.variables.get(variable.key)
    assert variable.value == "new_value1"

    variable.delete()
    assert group.variables.list(get_all=True) == []


def test_project_variables(project):
    variable = project.variables.create({"key": "key1", "value": "value1"})
    assert variable.value == "value1"
    assert variable in project.variables.list()

    variable.value = "new_value1"
    variable.save()
    variable = project.variables.get(variable.key)
    assert variable.value == "new_value1"

    with pytest.raises(gitlab.exceptions.GitlabCreateError) as taken:
        project.variables.create({"key": "key1", "value": "again"})
    assert taken.value.response_code == 400
    assert "(key1) has already been taken" in str(taken.value)

    variable.delete()
    assert project.variables.list(get_all=True) == []


def test_hidden_instance_variables(gl):
    variable = gl.variables.create({"key": "key1", "value": "secret_value", "masked_and_hidden": True})
    assert variable.value == "secret_value"
    assert variable.description is None
    assert variable in gl.variables.list()

    variable.description = "new_description"
    variable.save()
    variable = gl.variables.get(variable.key)
    assert variable.description == "new_description"

    variable.delete()


def test_hidden_group_variables(group):
    variable = group.variables.create({"key": "key1", "value": "secret_value", "masked_and_hidden": True})

    variable = group.variables.get(variable.key)
    assert variable.value is None
    assert variable.description is None
    assert variable in group.variables.list()

    variable.description = "new_description"
    variable.save()
    variable = group.variables.get(variable.key)
    assert variable.description == "new_description"
    assert (variable.value, variable.hidden, variable.masked) == (None, True, True)

    variable.delete()


def test_hidden_project_variables(project):
    variable = project.variables.create({"key": "key1", "value": "secret_value", "masked_and_hidden": True})
    assert variable.value is None

    variable = project.variables.get(variable.key)
    assert variable.value is None
    assert variable.description is None
    assert variable in project.variables.list()

    variable.description = "new_description"
    variable.save()
    variable = project.variables.get(variable.key)
    assert variable.description == "new_description"

    variable.delete()


def test_scopes_and_a_developer(host, project):
    project.variables.create({"key": "URL", "value": "any"})
    project.variables.create({"key": "URL", "value": "prod", "environment_scope": "production"})
    assert sorted(v.environment_scope for v in project.variables.list(get_all=True)) == ["*", "production"]
    prod = project.variables.get("URL", filter={"environment_scope": "production"})
    assert prod.value == "prod"
    with pytest.raises(gitlab.exceptions.GitlabGetError) as many:
        project.variables.get("URL")
    assert many.value.response_code == 409
    project.variables.delete("URL", filter={"environment_scope": "production"})
    project.variables.delete("URL")
    assert project.variables.list(get_all=True) == []

    devon = gitlab.Gitlab(host.url, private_token=host.devon)
    with pytest.raises(gitlab.exceptions.GitlabListError) as refused:
        devon.projects.get("ci/app", lazy=True).variables.list()
    assert refused.value.response_code == 403
    with pytest.raises(gitlab.exceptions.GitlabListError) as not_admin:
        devon.variables.list()
    assert not_admin.value.response_code == 403
