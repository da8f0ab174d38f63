package forgecore_test

// GitLab's Go client (gitlab.com/gitlab-org/api/client-go, pinned in go.mod), unchanged,
// against the Go host: groups and namespaces (issue #38) — CreateGroup, ListGroups, GetGroup,
// UpdateGroup (a new path moves the project below it), ListSubGroups, ListDescendantGroups,
// GetNamespace and ListNamespaces.

import (
	"errors"
	"fmt"
	"net/http"
	"path/filepath"
	"sort"
	"testing"
	"time"

	gitlab "gitlab.com/gitlab-org/api/client-go"
)

func groupPaths(groups []*gitlab.Group) []string {
	paths := make([]string, 0, len(groups))
	for _, g := range groups {
		paths = append(paths, g.FullPath)
	}
	sort.Strings(paths)
	return paths
}

// userWithToken creates a user and answers a personal access token of theirs.
func userWithToken(t *testing.T, username string) string {
	t.Helper()
	if err := fx.admin(map[string]any{"command": "user_add", "username": username}, nil); err != nil {
		t.Fatal(err)
	}
	var token struct{ Token string }
	if err := fx.admin(map[string]any{"command": "token_add", "username": username}, &token); err != nil {
		t.Fatal(err)
	}
	return token.Token
}

func TestClientGroups(t *testing.T) {
	suffix := time.Now().UnixNano() % 1e9
	owner := fmt.Sprintf("gowner%d", suffix)
	client := newClient(t, userWithToken(t, owner))
	top := fmt.Sprintf("go-top-%d", suffix)
	group, response, err := client.Groups.CreateGroup(&gitlab.CreateGroupOptions{
		Name:                 gitlab.Ptr("Go Top"),
		Path:                 gitlab.Ptr(top),
		Description:          gitlab.Ptr("made by client-go"),
		Visibility:           gitlab.Ptr(gitlab.PublicVisibility),
		ProjectCreationLevel: gitlab.Ptr(gitlab.MaintainerProjectCreation),
	})
	if err != nil {
		t.Fatal(err)
	}
	if response.StatusCode != 201 || group.FullPath != top || group.Name != "Go Top" || group.ParentID != 0 ||
		group.Visibility != gitlab.PublicVisibility || group.ProjectCreationLevel != gitlab.MaintainerProjectCreation ||
		group.SubGroupCreationLevel != gitlab.MaintainerSubGroupCreationLevelValue || group.CreatedAt == nil ||
		group.WebURL != fx.url+"/groups/"+top || group.DefaultBranchProtectionDefaults == nil ||
		len(group.DefaultBranchProtectionDefaults.AllowedToPush) != 1 {
		t.Fatalf("created: %d %+v", response.StatusCode, group)
	}
	sub, _, err := client.Groups.CreateGroup(&gitlab.CreateGroupOptions{
		Name: gitlab.Ptr("Sub"), Path: gitlab.Ptr("sub"), ParentID: gitlab.Ptr(group.ID),
		Visibility: gitlab.Ptr(gitlab.PublicVisibility),
	})
	if err != nil || sub.FullPath != top+"/sub" || sub.ParentID != group.ID || sub.FullName != "Go Top / Sub" {
		t.Fatalf("subgroup: %+v %v", sub, err)
	}
	deep, _, err := client.Groups.CreateGroup(&gitlab.CreateGroupOptions{
		Name: gitlab.Ptr("Deep"), Path: gitlab.Ptr("deep"), ParentID: gitlab.Ptr(sub.ID),
	})
	if err != nil || deep.FullPath != top+"/sub/deep" {
		t.Fatalf("deep: %+v %v", deep, err)
	}
	// The same path again: GitLab's 400 with the model's errors.
	_, response, err = client.Groups.CreateGroup(&gitlab.CreateGroupOptions{Name: gitlab.Ptr("x"), Path: gitlab.Ptr(top)})
	var failure *gitlab.ErrorResponse
	if !errors.As(err, &failure) || response.StatusCode != 400 {
		t.Fatalf("taken path: %v", err)
	}

	// The owner's groups: the one they are a member of and those below it.
	listed, _, err := client.Groups.ListGroups(&gitlab.ListGroupsOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if got := groupPaths(listed); fmt.Sprint(got) != fmt.Sprint([]string{top, top + "/sub", top + "/sub/deep"}) {
		t.Fatalf("listed: %v", got)
	}
	// Search matches names and paths, not full paths.
	searched, _, err := client.Groups.ListGroups(&gitlab.ListGroupsOptions{Search: gitlab.Ptr("dee")})
	if err != nil || fmt.Sprint(groupPaths(searched)) != fmt.Sprint([]string{top + "/sub/deep"}) {
		t.Fatalf("searched: %v %v", groupPaths(searched), err)
	}
	topOnly, _, err := client.Groups.ListGroups(&gitlab.ListGroupsOptions{TopLevelOnly: gitlab.Ptr(true)})
	if err != nil || fmt.Sprint(groupPaths(topOnly)) != fmt.Sprint([]string{top}) {
		t.Fatalf("top level only: %v %v", groupPaths(topOnly), err)
	}
	subgroups, _, err := client.Groups.ListSubGroups(top, &gitlab.ListSubGroupsOptions{})
	if err != nil || fmt.Sprint(groupPaths(subgroups)) != fmt.Sprint([]string{top + "/sub"}) {
		t.Fatalf("subgroups: %v %v", groupPaths(subgroups), err)
	}
	descendants, _, err := client.Groups.ListDescendantGroups(group.ID, &gitlab.ListDescendantGroupsOptions{})
	if err != nil || len(descendants) != 2 {
		t.Fatalf("descendants: %v %v", groupPaths(descendants), err)
	}

	// A project below, then a new path: GetGroup finds both at their new paths.
	project := top + "/sub/app"
	if err := fx.admin(map[string]any{"command": "project_add", "path": project,
		"repo": filepath.Join(fx.repos, "work"), "visibility": "public"}, nil); err != nil {
		t.Fatal(err)
	}
	moved := top + "-moved"
	updated, _, err := client.Groups.UpdateGroup(top, &gitlab.UpdateGroupOptions{
		Path: gitlab.Ptr(moved), Description: gitlab.Ptr("moved"), RequestAccessEnabled: gitlab.Ptr(false),
	})
	if err != nil || updated.FullPath != moved || updated.Description != "moved" || updated.RequestAccessEnabled {
		t.Fatalf("updated: %+v %v", updated, err)
	}
	got, _, err := client.Groups.GetGroup(moved+"/sub", &gitlab.GetGroupOptions{})
	if err != nil || got.ID != sub.ID || len(got.Projects) != 1 || got.Projects[0].PathWithNamespace != moved+"/sub/app" {
		t.Fatalf("get after the move: %+v %v", got, err)
	}
	if _, response, err := client.Groups.GetGroup(top, nil); err == nil || response.StatusCode != http.StatusNotFound {
		t.Fatalf("old path: %v %v", response, err)
	}
	if p, _, err := client.Projects.GetProject(moved+"/sub/app", nil); err != nil || p.HTTPURLToRepo != fx.url+"/"+moved+"/sub/app.git" {
		t.Fatalf("project after the move: %+v %v", p, err)
	}
	// Not an Owner: 403.
	other := newClient(t, userWithToken(t, fmt.Sprintf("gother%d", suffix)))
	if _, response, err := other.Groups.UpdateGroup(moved, &gitlab.UpdateGroupOptions{Name: gitlab.Ptr("x")}); err == nil ||
		response.StatusCode != http.StatusForbidden {
		t.Fatalf("update by someone else: %v %v", response, err)
	}
}

func TestClientNamespaces(t *testing.T) {
	suffix := time.Now().UnixNano() % 1e9
	username := fmt.Sprintf("gns%d", suffix)
	client := newClient(t, userWithToken(t, username))
	path := fmt.Sprintf("go-ns-%d", suffix)
	group, _, err := client.Groups.CreateGroup(&gitlab.CreateGroupOptions{Name: gitlab.Ptr("NS"), Path: gitlab.Ptr(path)})
	if err != nil {
		t.Fatal(err)
	}
	ns, _, err := client.Namespaces.GetNamespace(path)
	if err != nil || ns.ID != group.ID || ns.Kind != "group" || ns.FullPath != path || ns.MembersCountWithDescendants != 1 {
		t.Fatalf("group namespace: %+v %v", ns, err)
	}
	mine, _, err := client.Namespaces.GetNamespace(username)
	if err != nil || mine.Kind != "user" || mine.Path != username || mine.WebURL != fx.url+"/"+username {
		t.Fatalf("user namespace: %+v %v", mine, err)
	}
	byID, _, err := client.Namespaces.GetNamespace(mine.ID)
	if err != nil || byID.FullPath != username {
		t.Fatalf("by id: %+v %v", byID, err)
	}
	all, _, err := client.Namespaces.ListNamespaces(&gitlab.ListNamespacesOptions{})
	if err != nil || len(all) != 2 || all[0].ID != group.ID || all[1].ID != mine.ID {
		t.Fatalf("listed: %v %v", all, err)
	}
	if _, response, err := client.Namespaces.GetNamespace("root"); err == nil || response.StatusCode != http.StatusNotFound {
		t.Fatalf("someone else's: %v %v", response, err)
	}
}
