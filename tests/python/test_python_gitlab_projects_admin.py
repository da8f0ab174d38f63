"""python-gitlab, unchanged, on the project lifecycle of issue 38 (decisions D9) through the
Python host: gl.projects.create with initialize_with_readme (the commit checked with the git
CLI in the repository made), project.save(), archive()/unarchive() (which expect a JSON object
and refresh the project), delete() (marked for deletion), restore, and a permanent removal."""

import gitlab
import pytest

from conftest import git_out


@pytest.fixture(scope="module")
def owner(server):
    server.admin("user", "add", "olga")
    token = server.admin("token", "add", "olga").json["token"]
    gl = gitlab.Gitlab(server.url, private_token=token)
    gl.auth()
    return gl


def git_dir(server, project):
    repos = server.data_dir / "repositories"
    found = [p for p in repos.glob("@hashed/*/*/*.git") if (p / "HEAD").exists()]
    assert found, f"no repository under {repos}"
    # The newest one is the project just made.
    return max(found, key=lambda p: p.stat().st_mtime)


def test_create_save_archive_delete_restore(owner, server):
    project = owner.projects.create({"name": "Py App", "description": "made by python-gitlab",
                                     "initialize_with_readme": True})
    assert project.path_with_namespace == "olga/py-app"
    assert project.default_branch == "main"
    assert project.empty_repo is False
    assert project.namespace["kind"] == "user"
    repo = git_dir(server, project)
    log = git_out(repo, "log", "--format=%s|%an", "main").strip()
    assert log == "Initial commit|olga"
    readme = git_out(repo, "show", "main:README.md")
    assert readme.startswith("# Py App\n\nmade by python-gitlab\n")
    assert f"git remote add origin {server.url}/olga/py-app.git" in readme

    project.description = "changed"
    project.merge_method = "ff"
    project.save()
    again = owner.projects.get(project.id)
    assert (again.description, again.merge_method) == ("changed", "ff")

    project.archive()
    assert project.archived is True
    assert owner.projects.get(project.id).archived is True
    with pytest.raises(gitlab.exceptions.GitlabCreateError) as refused:
        project.files.create({"file_path": "x.txt", "branch": "main", "content": "x", "commit_message": "x"})
    assert refused.value.response_code == 403
    project.unarchive()
    assert project.archived is False

    project.delete()
    marked = owner.projects.get(project.id)
    assert marked.marked_for_deletion_on is not None
    if hasattr(marked, "restore"):
        marked.restore()
    else:
        owner.http_post(f"/projects/{project.id}/restore")
    assert owner.projects.get(project.id).marked_for_deletion_on is None

    with pytest.raises(gitlab.exceptions.GitlabDeleteError) as unmarked:
        owner.projects.delete(project.id, permanently_remove=True, full_path="olga/py-app")
    assert unmarked.value.response_code == 400
    assert "must be marked for deletion first" in str(unmarked.value)
    owner.projects.delete(project.id)
    owner.projects.delete(project.id, permanently_remove=True, full_path="olga/py-app")
    with pytest.raises(gitlab.exceptions.GitlabGetError) as gone:
        owner.projects.get(project.id)
    assert gone.value.response_code == 404
    assert not repo.exists()
