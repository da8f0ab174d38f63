package forgecore_test

// GitLab's Go client, unchanged, on forks, transfer and sharing (issue 38) through the Go host:
// ForkProject (the fork's repository compared with the source's by the git CLI),
// ListProjectForks, TransferProject, ShareProjectWithGroup (which sends "expires_at": null),
// DeleteSharedProjectFromGroup, ShareGroupWithGroup and UnshareGroupFromGroup, and the access a
// share gives.

import (
	"errors"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	gitlab "gitlab.com/gitlab-org/api/client-go"
)

func TestClientForksTransferAndSharing(t *testing.T) {
	suffix := time.Now().UnixNano() % 1e9
	ownerName, forkerName := fmt.Sprintf("fowner%d", suffix), fmt.Sprintf("forker%d", suffix)
	owner := newClient(t, userWithToken(t, ownerName))
	forker := newClient(t, userWithToken(t, forkerName))
	admin := newClient(t, fx.token)

	source, _, err := owner.Projects.CreateProject(&gitlab.CreateProjectOptions{
		Name:                 gitlab.Ptr("golib"),
		Visibility:           gitlab.Ptr(gitlab.PublicVisibility),
		InitializeWithReadme: gitlab.Ptr(true),
	})
	if err != nil {
		t.Fatal(err)
	}
	sourceRepo := newestRepository(t)

	// Fork.
	fork, response, err := forker.Projects.ForkProject(source.ID, &gitlab.ForkProjectOptions{
		Name: gitlab.Ptr("golib-fork"), Path: gitlab.Ptr("golib-fork"), Description: gitlab.Ptr("mine"),
	})
	if err != nil || response.StatusCode != 201 {
		t.Fatalf("fork: %v %v", response, err)
	}
	if fork.PathWithNamespace != forkerName+"/golib-fork" || fork.ForkedFromProject == nil ||
		fork.ForkedFromProject.ID != source.ID || fork.Description != "mine" || fork.Visibility != gitlab.PublicVisibility {
		t.Fatalf("fork: %+v", fork)
	}
	forkRepo := newestRepository(t)
	if forkRepo == sourceRepo || gitOut(t, forkRepo, "rev-parse", "main") != gitOut(t, sourceRepo, "rev-parse", "main") {
		t.Fatalf("the fork's repository %s is no copy of %s", forkRepo, sourceRepo)
	}
	forks, _, err := owner.Projects.ListProjectForks(source.ID, &gitlab.ListProjectsOptions{})
	if err != nil || len(forks) != 1 || forks[0].ID != fork.ID {
		t.Fatalf("forks: %v %v", forks, err)
	}
	again, _, err := owner.Projects.GetProject(source.ID, nil)
	if err != nil || again.ForksCount != 1 {
		t.Fatalf("forks_count: %+v %v", again, err)
	}
	_, response, err = forker.Projects.ForkProject(source.ID, &gitlab.ForkProjectOptions{
		Name: gitlab.Ptr("golib-fork"), Path: gitlab.Ptr("golib-fork"),
	})
	if err == nil || response.StatusCode != http.StatusConflict || !strings.Contains(err.Error(), "Path has already been taken") {
		t.Fatalf("forking again: %v %v", response, err)
	}

	// Transfer into a group the owner maintains.
	groupPath := fmt.Sprintf("go-moved-%d", suffix)
	group, _, err := admin.Groups.CreateGroup(&gitlab.CreateGroupOptions{
		Name: gitlab.Ptr(groupPath), Path: gitlab.Ptr(groupPath), Visibility: gitlab.Ptr(gitlab.PrivateVisibility),
	})
	if err != nil {
		t.Fatal(err)
	}
	ownerUser, _, err := owner.Users.CurrentUser()
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := admin.GroupMembers.AddGroupMember(group.ID, &gitlab.AddGroupMemberOptions{
		UserID: gitlab.Ptr(ownerUser.ID), AccessLevel: gitlab.Ptr(gitlab.MaintainerPermissions),
	}); err != nil {
		t.Fatal(err)
	}
	moved, _, err := owner.Projects.TransferProject(source.ID, &gitlab.TransferProjectOptions{Namespace: groupPath})
	if err != nil || moved.PathWithNamespace != groupPath+"/golib" || moved.Visibility != gitlab.PrivateVisibility {
		t.Fatalf("transfer: %+v %v", moved, err)
	}
	if _, _, err := owner.Projects.GetProject(ownerName+"/golib", nil); !errors.Is(err, gitlab.ErrNotFound) {
		t.Fatalf("old path: %v", err)
	}
	if gitOut(t, sourceRepo, "rev-parse", "main") == "" {
		t.Fatal("the repository moved")
	}

	// Share the now private project with a group the forker is a Developer of.
	teamPath := fmt.Sprintf("go-team-%d", suffix)
	team, _, err := admin.Groups.CreateGroup(&gitlab.CreateGroupOptions{
		Name: gitlab.Ptr(teamPath), Path: gitlab.Ptr(teamPath), Visibility: gitlab.Ptr(gitlab.PrivateVisibility),
	})
	if err != nil {
		t.Fatal(err)
	}
	forkerUser, _, err := forker.Users.CurrentUser()
	if err != nil {
		t.Fatal(err)
	}
	for user, level := range map[int64]gitlab.AccessLevelValue{forkerUser.ID: gitlab.DeveloperPermissions, ownerUser.ID: gitlab.GuestPermissions} {
		if _, _, err := admin.GroupMembers.AddGroupMember(team.ID, &gitlab.AddGroupMemberOptions{
			UserID: gitlab.Ptr(user), AccessLevel: gitlab.Ptr(level),
		}); err != nil {
			t.Fatal(err)
		}
	}
	if _, _, err := forker.Projects.GetProject(source.ID, nil); !errors.Is(err, gitlab.ErrNotFound) {
		t.Fatalf("before sharing: %v", err)
	}
	response, err = owner.Projects.ShareProjectWithGroup(source.ID, &gitlab.ShareWithGroupOptions{
		GroupID: gitlab.Ptr(team.ID), GroupAccess: gitlab.Ptr(gitlab.ReporterPermissions),
	})
	if err != nil || response.StatusCode != 201 {
		t.Fatalf("share: %v %v", response, err)
	}
	seen, _, err := forker.Projects.GetProject(source.ID, nil)
	if err != nil || len(seen.SharedWithGroups) != 1 || seen.SharedWithGroups[0].GroupID != team.ID ||
		seen.SharedWithGroups[0].GroupAccessLevel != int64(gitlab.ReporterPermissions) {
		t.Fatalf("shared: %+v %v", seen, err)
	}
	all, _, err := owner.ProjectMembers.ListAllProjectMembers(source.ID, nil)
	if err != nil {
		t.Fatal(err)
	}
	var level gitlab.AccessLevelValue
	for _, member := range all {
		if member.ID == forkerUser.ID {
			level = member.AccessLevel
		}
	}
	if level != gitlab.ReporterPermissions {
		t.Fatalf("members/all: the forker at %d: %+v", level, all)
	}
	response, err = owner.Projects.ShareProjectWithGroup(source.ID, &gitlab.ShareWithGroupOptions{
		GroupID: gitlab.Ptr(team.ID), GroupAccess: gitlab.Ptr(gitlab.ReporterPermissions),
	})
	if err == nil || response.StatusCode != http.StatusConflict {
		t.Fatalf("sharing again: %v %v", response, err)
	}
	if response, err := owner.Projects.DeleteSharedProjectFromGroup(source.ID, team.ID); err != nil || response.StatusCode != 204 {
		t.Fatalf("unshare: %v %v", response, err)
	}
	if _, _, err := forker.Projects.GetProject(source.ID, nil); !errors.Is(err, gitlab.ErrNotFound) {
		t.Fatalf("after unsharing: %v", err)
	}

	// The whole group shared with the team.
	shared, response, err := admin.Groups.ShareGroupWithGroup(group.ID, &gitlab.ShareGroupWithGroupOptions{
		GroupID: gitlab.Ptr(team.ID), GroupAccess: gitlab.Ptr(gitlab.DeveloperPermissions),
	})
	if err != nil || response.StatusCode != 201 || shared.ID != group.ID || len(shared.SharedWithGroups) != 1 ||
		shared.SharedWithGroups[0].GroupID != team.ID {
		t.Fatalf("group share: %+v %v %v", shared, response, err)
	}
	if _, _, err := forker.Projects.GetProject(source.ID, nil); err != nil {
		t.Fatalf("through the group share: %v", err)
	}
	if response, err := admin.Groups.UnshareGroupFromGroup(group.ID, team.ID); err != nil || response.StatusCode != 204 {
		t.Fatalf("group unshare: %v %v", response, err)
	}
	if _, _, err := forker.Projects.GetProject(source.ID, nil); !errors.Is(err, gitlab.ErrNotFound) {
		t.Fatalf("after the group unshare: %v", err)
	}
}
