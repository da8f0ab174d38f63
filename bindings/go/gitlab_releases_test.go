package forgecore_test

// GitLab's Go client (gitlab.com/gitlab-org/api/client-go, pinned in go.mod), unchanged,
// against the Go host: releases (issue #42) — CreateRelease from a ref (the tag checked with
// git), ListReleases newest first, GetRelease, DeleteRelease, the 409 of a second release —
// and commit statuses — SetCommitStatus through GitLab's state machine (its refusal text),
// GetCommitStatuses, and the commit's last_pipeline.

import (
	"net/http"
	"path/filepath"
	"strings"
	"testing"
	"time"

	gitlab "gitlab.com/gitlab-org/api/client-go"
)

// releasesProject registers a bare copy of the fixture repository as its own project, so
// that the tags made here touch no other test's repository.
func releasesProject(t *testing.T, path string) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "repo.git")
	git(t, filepath.Join(fx.repos, "bare.git"), "clone", "-q", "--bare", filepath.Join(fx.repos, "bare.git"), dir)
	if err := fx.admin(map[string]any{"command": "project_add", "path": path, "repo": dir, "visibility": "public"}, nil); err != nil {
		t.Fatal(err)
	}
	return dir
}

func TestClientReleases(t *testing.T) {
	repo := releasesProject(t, "fx/go-releases")
	client := newClient(t, fx.token)
	const project = "fx/go-releases"
	made, response, err := client.Releases.CreateRelease(project, &gitlab.CreateReleaseOptions{
		TagName:     gitlab.Ptr("v7.0.0"),
		Ref:         gitlab.Ptr("main"),
		Name:        gitlab.Ptr("Seven"),
		Description: gitlab.Ptr("notes"),
		Assets: &gitlab.ReleaseAssetsOptions{Links: []*gitlab.ReleaseAssetLinkOptions{
			{Name: gitlab.Ptr("bin"), URL: gitlab.Ptr("https://example.com/bin"), LinkType: gitlab.Ptr(gitlab.PackageLinkType)},
		}},
	})
	if err != nil {
		t.Fatal(err)
	}
	main := git(t, repo, "rev-parse", "main")
	if response.StatusCode != 201 || made.TagName != "v7.0.0" || made.Name != "Seven" || made.Commit.ID != main ||
		made.Assets.Count != 5 || len(made.Assets.Links) != 1 || made.Assets.Links[0].LinkType != gitlab.PackageLinkType {
		t.Fatalf("created: %d %+v", response.StatusCode, made)
	}
	if kind := git(t, repo, "cat-file", "-t", "v7.0.0"); kind != "commit" {
		t.Fatalf("the tag is a %s", kind)
	}
	if tagged := git(t, repo, "rev-parse", "v7.0.0"); tagged != main {
		t.Fatalf("the tag names %s, not main's %s", tagged, main)
	}
	if _, _, err := client.Releases.CreateRelease(project, &gitlab.CreateReleaseOptions{
		TagName: gitlab.Ptr("v1.0.0"), Description: gitlab.Ptr("old"), ReleasedAt: gitlab.Ptr(time.Date(2001, 1, 1, 0, 0, 0, 0, time.UTC)),
	}); err != nil {
		t.Fatal(err)
	}
	listed, _, err := client.Releases.ListReleases(project, &gitlab.ListReleasesOptions{})
	if err != nil || len(listed) != 2 || listed[0].TagName != "v7.0.0" || listed[1].TagName != "v1.0.0" ||
		listed[1].ReleasedAt == nil || listed[1].ReleasedAt.Year() != 2001 {
		t.Fatalf("list: %+v %v", listed, err)
	}
	_, response, err = client.Releases.CreateRelease(project, &gitlab.CreateReleaseOptions{TagName: gitlab.Ptr("v7.0.0")})
	if err == nil || response.StatusCode != http.StatusConflict || !strings.Contains(err.Error(), "Release already exists") {
		t.Fatalf("second release: %v %v", response, err)
	}
	got, _, err := client.Releases.GetRelease(project, "v1.0.0")
	if err != nil || got.Description != "old" {
		t.Fatalf("get: %+v %v", got, err)
	}
	if _, _, err := client.Releases.DeleteRelease(project, "v1.0.0"); err != nil {
		t.Fatal(err)
	}
	if _, response, err := client.Releases.GetRelease(project, "v1.0.0"); err == nil || response.StatusCode != 404 {
		t.Fatalf("deleted: %v %v", response, err)
	}
}

func TestClientCommitStatuses(t *testing.T) {
	repo := releasesProject(t, "fx/go-statuses")
	client := newClient(t, fx.token)
	const project = "fx/go-statuses"
	sha := git(t, repo, "rev-parse", "main")
	commit, _, err := client.Commits.GetCommit(project, sha, nil)
	if err != nil || commit.LastPipeline != nil {
		t.Fatalf("before any status: %+v %v", commit, err)
	}
	status, response, err := client.Commits.SetCommitStatus(project, sha, &gitlab.SetCommitStatusOptions{
		State: gitlab.Running, Ref: gitlab.Ptr("main"), Context: gitlab.Ptr("atlantis/plan"),
		TargetURL: gitlab.Ptr("https://atlantis.example.com/1"), Description: gitlab.Ptr("planning"),
	})
	if err != nil || response.StatusCode != 201 || status.Status != "running" || status.Name != "atlantis/plan" ||
		status.Ref != "main" || status.StartedAt == nil {
		t.Fatalf("running: %v %+v %v", response, status, err)
	}
	_, response, err = client.Commits.SetCommitStatus(project, sha, &gitlab.SetCommitStatusOptions{
		State: gitlab.Running, Ref: gitlab.Ptr("main"), Context: gitlab.Ptr("atlantis/plan"),
	})
	if err == nil || response.StatusCode != 400 || !strings.Contains(err.Error(), "Cannot transition status via :run from :running") {
		t.Fatalf("running again: %v %v", response, err)
	}
	commit, _, err = client.Commits.GetCommit(project, sha, nil)
	if err != nil || commit.LastPipeline == nil || commit.LastPipeline.ID != status.PipelineID || commit.LastPipeline.Status != "running" {
		t.Fatalf("last pipeline: %+v %v", commit.LastPipeline, err)
	}
	done, _, err := client.Commits.SetCommitStatus(project, sha, &gitlab.SetCommitStatusOptions{
		State: gitlab.Success, Context: gitlab.Ptr("atlantis/plan"), PipelineID: gitlab.Ptr(commit.LastPipeline.ID),
		Coverage: gitlab.Ptr(75.5),
	})
	if err != nil || done.ID != status.ID || done.Status != "success" || done.Coverage != 75.5 {
		t.Fatalf("success: %+v %v", done, err)
	}
	statuses, _, err := client.Commits.GetCommitStatuses(project, sha, &gitlab.GetCommitStatusesOptions{})
	if err != nil || len(statuses) != 1 || statuses[0].Status != "success" || statuses[0].AllowFailure ||
		statuses[0].Author.Username != "root" || statuses[0].TargetURL != "https://atlantis.example.com/1" {
		t.Fatalf("statuses: %+v %v", statuses, err)
	}
}
