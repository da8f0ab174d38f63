package forgecore_test

// GitLab's Go client (client-go, pinned in go.mod), unchanged, on the members routes of issue
// 38 against the Go host: AddGroupMember (which always sends "expires_at": null),
// EditGroupMember, GetInheritedGroupMember, ListAllProjectMembers, RemoveGroupMember, and the
// errors it reports for GitLab's statuses.

import (
	"errors"
	"fmt"
	"os/exec"
	"path/filepath"
	"sort"
	"testing"
	"time"

	gitlab "gitlab.com/gitlab-org/api/client-go"
)

// memberUser makes a user with a token; its id and a client acting as it.
func memberUser(t *testing.T, name string) (int64, *gitlab.Client) {
	t.Helper()
	var user struct {
		ID int64 `json:"id"`
	}
	if err := fx.admin(map[string]any{"command": "user_add", "username": name}, &user); err != nil {
		t.Fatal(err)
	}
	var token struct {
		Token string `json:"token"`
	}
	if err := fx.admin(map[string]any{"command": "token_add", "username": name}, &token); err != nil {
		t.Fatal(err)
	}
	return user.ID, newClient(t, token.Token)
}

func TestClientMembers(t *testing.T) {
	suffix := time.Now().UnixNano() % 1e9
	group := fmt.Sprintf("members%d", suffix)
	sub := group + "/team"
	project := sub + "/app"
	repo := filepath.Join(t.TempDir(), "app.git")
	if out, err := exec.Command("git", "init", "-q", "--bare", repo).CombinedOutput(); err != nil {
		t.Fatalf("git init: %v %s", err, out)
	}
	for _, command := range []map[string]any{
		{"command": "group_add", "path": group},
		{"command": "group_add", "path": sub},
		{"command": "project_add", "path": project, "repo": repo},
	} {
		if err := fx.admin(command, nil); err != nil {
			t.Fatal(err)
		}
	}
	ownerID, owner := memberUser(t, fmt.Sprintf("own%d", suffix))
	aliceID, _ := memberUser(t, fmt.Sprintf("alice%d", suffix))
	bobID, bob := memberUser(t, fmt.Sprintf("bob%d", suffix))
	if err := fx.admin(map[string]any{"command": "member_add", "group": group, "username": fmt.Sprintf("own%d", suffix), "access_level": 50}, nil); err != nil {
		t.Fatal(err)
	}

	// AddGroupMember sends "expires_at": null: no expiry.
	added, response, err := owner.GroupMembers.AddGroupMember(group, &gitlab.AddGroupMemberOptions{
		UserID:      gitlab.Ptr(aliceID),
		AccessLevel: gitlab.Ptr(gitlab.DeveloperPermissions),
	})
	if err != nil || response.StatusCode != 201 {
		t.Fatalf("add: %v %v", response, err)
	}
	if added.ID != aliceID || added.AccessLevel != gitlab.DeveloperPermissions || added.ExpiresAt != nil ||
		added.CreatedBy == nil || added.CreatedBy.ID != ownerID || added.CreatedAt == nil || added.MemberRole != nil {
		t.Fatalf("added: %+v", added)
	}
	_, response, err = owner.GroupMembers.AddGroupMember(group, &gitlab.AddGroupMemberOptions{
		UserID:      gitlab.Ptr(aliceID),
		AccessLevel: gitlab.Ptr(gitlab.DeveloperPermissions),
	})
	var failure *gitlab.ErrorResponse
	if !errors.As(err, &failure) || response.StatusCode != 409 || failure.Message != "{message: Member already exists}" {
		t.Fatalf("again: %v %v", response, err)
	}

	// EditGroupMember: level and date; the date reads back as a date.
	edited, _, err := owner.GroupMembers.EditGroupMember(group, aliceID, &gitlab.EditGroupMemberOptions{
		AccessLevel: gitlab.Ptr(gitlab.MaintainerPermissions),
		ExpiresAt:   gitlab.Ptr("2099-03-04"),
	})
	if err != nil || edited.AccessLevel != gitlab.MaintainerPermissions || edited.ExpiresAt == nil ||
		edited.ExpiresAt.String() != "2099-03-04" {
		t.Fatalf("edit: %+v %v", edited, err)
	}

	// A member of the subgroup and one of the project; all members of the project, inherited
	// ones included, at their highest level.
	if _, _, err := owner.GroupMembers.AddGroupMember(sub, &gitlab.AddGroupMemberOptions{
		UserID: gitlab.Ptr(bobID), AccessLevel: gitlab.Ptr(gitlab.ReporterPermissions),
	}); err != nil {
		t.Fatal(err)
	}
	if _, _, err := owner.ProjectMembers.AddProjectMember(project, &gitlab.AddProjectMemberOptions{
		UserID: gitlab.Ptr(bobID), AccessLevel: gitlab.Ptr(gitlab.DeveloperPermissions),
	}); err != nil {
		t.Fatal(err)
	}
	all, _, err := bob.ProjectMembers.ListAllProjectMembers(project, &gitlab.ListProjectMembersOptions{})
	if err != nil {
		t.Fatal(err)
	}
	levels := map[int64]gitlab.AccessLevelValue{}
	ids := []int64{}
	for _, member := range all {
		levels[member.ID] = member.AccessLevel
		ids = append(ids, member.ID)
	}
	if !sort.SliceIsSorted(ids, func(i, j int) bool { return ids[i] < ids[j] }) || len(all) != 3 ||
		levels[ownerID] != gitlab.OwnerPermissions || levels[aliceID] != gitlab.MaintainerPermissions ||
		levels[bobID] != gitlab.DeveloperPermissions {
		t.Fatalf("all members: %v", levels)
	}
	inherited, _, err := bob.GroupMembers.GetInheritedGroupMember(sub, aliceID)
	if err != nil || inherited.AccessLevel != gitlab.MaintainerPermissions {
		t.Fatalf("inherited: %+v %v", inherited, err)
	}
	_, response, err = bob.GroupMembers.GetGroupMember(sub, aliceID)
	if !errors.Is(err, gitlab.ErrNotFound) || response.StatusCode != 404 {
		t.Fatalf("direct get of an inherited member: %v %v", response, err)
	}

	// A Reporter adds nobody; the owner removes; the last owner stays.
	_, response, err = bob.GroupMembers.AddGroupMember(sub, &gitlab.AddGroupMemberOptions{
		UserID: gitlab.Ptr(aliceID), AccessLevel: gitlab.Ptr(gitlab.GuestPermissions),
	})
	if err == nil || response.StatusCode != 403 {
		t.Fatalf("reporter adding: %v %v", response, err)
	}
	response, err = owner.GroupMembers.RemoveGroupMember(group, aliceID, nil)
	if err != nil || response.StatusCode != 204 {
		t.Fatalf("remove: %v %v", response, err)
	}
	_, _, err = owner.GroupMembers.GetGroupMember(group, aliceID)
	if !errors.Is(err, gitlab.ErrNotFound) {
		t.Fatalf("removed member still there: %v", err)
	}
	response, err = owner.GroupMembers.RemoveGroupMember(group, ownerID, nil)
	if err == nil || response.StatusCode != 403 {
		t.Fatalf("last owner removed: %v %v", response, err)
	}
}
