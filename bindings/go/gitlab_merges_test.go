package forgecore_test

// GitLab's Go client (client-go, pinned in go.mod), unchanged, on merging (issue 39, reference
// gitlab-merge-requests.md §1.4, §1.5) against the Go host: MergeRequests.AcceptMergeRequest
// with a sha and source-branch removal (the merge commit checked with the git CLI), the 405
// and 409 it reports as errors, and RebaseMergeRequest, on tests/fixtures/merges.sh.

import (
	"fmt"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	gitlab "gitlab.com/gitlab-org/api/client-go"
)

func TestClientAcceptMergeRequest(t *testing.T) {
	suffix := time.Now().UnixNano() % 1e9
	group := fmt.Sprintf("merging%d", suffix)
	project := group + "/m"
	work := filepath.Join(t.TempDir(), "r")
	script := filepath.Join(repoRoot(), "tests", "fixtures", "merges.sh")
	if out, err := exec.Command("bash", script, work).CombinedOutput(); err != nil {
		t.Fatalf("%s: %v %s", script, err, out)
	}
	for _, command := range []map[string]any{
		{"command": "group_add", "path": group, "visibility": "public"},
		{"command": "project_add", "path": project, "repo": work, "visibility": "public"},
	} {
		if err := fx.admin(command, nil); err != nil {
			t.Fatal(err)
		}
	}
	devName := fmt.Sprintf("mdev%d", suffix)
	_, dev := memberUser(t, devName)
	if err := fx.admin(map[string]any{"command": "member_add", "group": group, "username": devName, "access_level": 30}, nil); err != nil {
		t.Fatal(err)
	}
	tip := func(branch string) string { return strings.TrimSpace(git(t, work, "rev-parse", "refs/heads/"+branch)) }
	open := func(c, title string) *gitlab.MergeRequest {
		mr, _, err := dev.MergeRequests.CreateMergeRequest(project, &gitlab.CreateMergeRequestOptions{
			SourceBranch: gitlab.Ptr(c + "-source"),
			TargetBranch: gitlab.Ptr(c + "-target"),
			Title:        gitlab.Ptr(title),
		})
		if err != nil {
			t.Fatal(err)
		}
		return mr
	}

	mr := open("clean", "Edit line 18")
	if mr.DetailedMergeStatus != "mergeable" || mr.HasConflicts {
		t.Fatalf("status: %q %v", mr.DetailedMergeStatus, mr.HasConflicts)
	}
	target, head := tip("clean-target"), tip("clean-source")
	_, response, err := dev.MergeRequests.AcceptMergeRequest(project, mr.IID, &gitlab.AcceptMergeRequestOptions{SHA: gitlab.Ptr(target)})
	if err == nil || response.StatusCode != 409 || !strings.Contains(err.Error(), "SHA does not match HEAD of source branch: "+head) {
		t.Fatalf("a stale sha: %v %v", response, err)
	}
	merged, _, err := dev.MergeRequests.AcceptMergeRequest(project, mr.IID, &gitlab.AcceptMergeRequestOptions{
		SHA:                      gitlab.Ptr(head),
		ShouldRemoveSourceBranch: gitlab.Ptr(true),
	})
	if err != nil {
		t.Fatal(err)
	}
	commit := tip("clean-target")
	if merged.State != "merged" || merged.MergeCommitSHA != commit || merged.MergeUser == nil || merged.MergeUser.Username != devName {
		t.Fatalf("merged: %+v", merged)
	}
	if parents := strings.Fields(git(t, work, "log", "-1", "--format=%P", commit)); len(parents) != 2 || parents[0] != target || parents[1] != head {
		t.Fatalf("parents %v, want %s %s", parents, target, head)
	}
	want := fmt.Sprintf("Merge branch 'clean-source' into 'clean-target'\n\nEdit line 18\n\nSee merge request %s!%d", project, mr.IID)
	if message := strings.TrimSpace(git(t, work, "log", "-1", "--format=%B", commit)); message != want {
		t.Fatalf("message %q, want %q", message, want)
	}
	if branches := strings.TrimSpace(git(t, work, "branch", "--list", "clean-source")); branches != "" {
		t.Fatalf("the source branch stayed: %q", branches)
	}

	conflict := open("conflict", "Edit line 5")
	if !conflict.HasConflicts || conflict.DetailedMergeStatus != "conflict" {
		t.Fatalf("conflict status: %q %v", conflict.DetailedMergeStatus, conflict.HasConflicts)
	}
	_, response, err = dev.MergeRequests.AcceptMergeRequest(project, conflict.IID, nil)
	if err == nil || response.StatusCode != 405 {
		t.Fatalf("a conflicting merge: %v %v", response, err)
	}

	rename := open("rename", "Rename f")
	before := tip("rename-source")
	response, err = dev.MergeRequests.RebaseMergeRequest(project, rename.IID, nil)
	if err != nil || response.StatusCode != 202 {
		t.Fatalf("rebase: %v %v", response, err)
	}
	after := tip("rename-source")
	if after == before || strings.TrimSpace(git(t, work, "merge-base", "rename-target", after)) != tip("rename-target") {
		t.Fatalf("not rebased: %s -> %s", before, after)
	}
	polled, _, err := dev.MergeRequests.GetMergeRequest(project, rename.IID, &gitlab.GetMergeRequestsOptions{IncludeRebaseInProgress: gitlab.Ptr(true)})
	if err != nil || polled.RebaseInProgress || polled.SHA != after {
		t.Fatalf("polled: %+v %v", polled, err)
	}
}
