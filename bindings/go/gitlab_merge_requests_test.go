package forgecore_test

// GitLab's Go client (gitlab.com/gitlab-org/api/client-go, pinned in go.mod), unchanged,
// against the Go host: merge requests (issue 39) — CreateMergeRequest, GetMergeRequest,
// ListProjectMergeRequests (Renovate's call, iids[]), UpdateMergeRequest and
// GetMergeRequestCommits — compared with the git CLI on tests/fixtures/mr_review.sh.

import (
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	gitlab "gitlab.com/gitlab-org/api/client-go"
)

func TestClientMergeRequests(t *testing.T) {
	dir := t.TempDir()
	script := filepath.Join(repoRoot(), "tests", "fixtures", "mr_review.sh")
	if out, err := exec.Command("bash", script, dir).CombinedOutput(); err != nil {
		t.Fatalf("%s: %v\n%s", script, err, out)
	}
	repo := filepath.Join(dir, "review.git")
	const project = "fx/mr-review"
	if err := fx.admin(map[string]any{"command": "project_add", "path": project, "repo": repo, "visibility": "public"}, nil); err != nil {
		t.Fatal(err)
	}
	client := newClient(t, fx.token)

	mr, response, err := client.MergeRequests.CreateMergeRequest(project, &gitlab.CreateMergeRequestOptions{
		Title:        gitlab.Ptr("Add the feature"),
		SourceBranch: gitlab.Ptr("feature"),
		TargetBranch: gitlab.Ptr("main"),
		Labels:       &gitlab.LabelOptions{"deps", "go"},
	})
	if err != nil {
		t.Fatal(err)
	}
	head := git(t, repo, "rev-parse", "feature")
	base := git(t, repo, "merge-base", "main", "feature")
	files := len(strings.Split(git(t, repo, "diff", "--name-only", "main...feature"), "\n"))
	if response.StatusCode != 201 || mr.IID != 1 || mr.State != "opened" || mr.SHA != head ||
		mr.DiffRefs.BaseSha != base || mr.DiffRefs.HeadSha != head || mr.ChangesCount != strconv.Itoa(files) ||
		strings.Join(mr.Labels, ",") != "deps,go" || mr.DetailedMergeStatus != "mergeable" {
		t.Fatalf("created: %d %+v", response.StatusCode, mr)
	}

	got, _, err := client.MergeRequests.GetMergeRequest(project, 1, &gitlab.GetMergeRequestsOptions{})
	if err != nil || got.ID != mr.ID || got.WebURL != fx.url+"/"+project+"/-/merge_requests/1" || got.CreatedAt == nil {
		t.Fatalf("get: %+v %v", got, err)
	}

	listed, _, err := client.MergeRequests.ListProjectMergeRequests(project, &gitlab.ListProjectMergeRequestsOptions{
		ListOptions: gitlab.ListOptions{PerPage: 100},
		OrderBy:     gitlab.Ptr("updated_at"),
		Sort:        gitlab.Ptr("desc"),
		Scope:       gitlab.Ptr("created_by_me"),
	})
	if err != nil || len(listed) != 1 || listed[0].IID != 1 || listed[0].Author.Username != "root" {
		t.Fatalf("Renovate's list: %v %v", listed, err)
	}
	byIID, _, err := client.MergeRequests.ListProjectMergeRequests(project, &gitlab.ListProjectMergeRequestsOptions{
		IIDs: &[]int64{2},
	})
	if err != nil || len(byIID) != 0 {
		t.Fatalf("iids[]=2: %v %v", byIID, err)
	}

	updated, _, err := client.MergeRequests.UpdateMergeRequest(project, 1, &gitlab.UpdateMergeRequestOptions{
		Title:       gitlab.Ptr("Draft: Add the feature"),
		Description: gitlab.Ptr("From client-go"),
		AddLabels:   &gitlab.LabelOptions{"reviewed"},
	})
	if err != nil || !updated.Draft || updated.Description != "From client-go" ||
		strings.Join(updated.Labels, ",") != "deps,go,reviewed" {
		t.Fatalf("update: %+v %v", updated, err)
	}

	commits, response, err := client.MergeRequests.GetMergeRequestCommits(project, 1, &gitlab.GetMergeRequestCommitsOptions{})
	if err != nil {
		t.Fatal(err)
	}
	want := strings.Split(git(t, repo, "log", "--format=%H", base+".."+head), "\n")
	var ids []string
	for _, c := range commits {
		ids = append(ids, c.ID)
	}
	if strings.Join(ids, " ") != strings.Join(want, " ") || response.TotalItems != int64(len(want)) {
		t.Fatalf("commits: %v (total %d), git log: %v", ids, response.TotalItems, want)
	}

	closed, _, err := client.MergeRequests.UpdateMergeRequest(project, 1, &gitlab.UpdateMergeRequestOptions{
		StateEvent: gitlab.Ptr("close"),
	})
	if err != nil || closed.State != "closed" || closed.ClosedBy == nil || closed.ClosedBy.Username != "root" {
		t.Fatalf("close: %+v %v", closed, err)
	}
}
