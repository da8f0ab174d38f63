package forgecore_test

// GitLab's Go client, unchanged, on issue 38's administration finish: ListGroups lists the
// groups shared with the caller's group (and those below them) at the link's level, and
// User.Bot is true for a project access token's bot only.

import (
	"fmt"
	"testing"
	"time"

	gitlab "gitlab.com/gitlab-org/api/client-go"
)

func TestClientGroupsSharedWithTheCallersGroup(t *testing.T) {
	admin := newClient(t, fx.token)
	suffix := fmt.Sprintf("%d", time.Now().UnixNano()%1e9)
	user, devs, platform := "gosh"+suffix, "godevs"+suffix, "goplat"+suffix
	var made map[string]any
	for _, command := range []map[string]any{
		{"command": "user_add", "username": user},
		{"command": "group_add", "path": devs},
		{"command": "group_add", "path": platform},
		{"command": "group_add", "path": platform + "/inner"},
		{"command": "member_add", "group": devs, "username": user, "access_level": 40},
	} {
		if err := fx.admin(command, nil); err != nil {
			t.Fatal(err)
		}
	}
	if err := fx.admin(map[string]any{"command": "token_add", "username": user}, &made); err != nil {
		t.Fatal(err)
	}
	member := newClient(t, made["token"].(string))
	paths := func(level *gitlab.AccessLevelValue) []string {
		t.Helper()
		groups, _, err := member.Groups.ListGroups(&gitlab.ListGroupsOptions{MinAccessLevel: level})
		if err != nil {
			t.Fatal(err)
		}
		var out []string
		for _, g := range groups {
			out = append(out, g.FullPath)
		}
		return out
	}
	if got := fmt.Sprint(paths(nil)); got != fmt.Sprint([]string{devs}) {
		t.Fatalf("before sharing: %s", got)
	}
	devsGroup, _, err := admin.Groups.GetGroup(devs, nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := admin.Groups.ShareGroupWithGroup(platform, &gitlab.ShareGroupWithGroupOptions{
		GroupID: gitlab.Ptr(devsGroup.ID), GroupAccess: gitlab.Ptr(gitlab.DeveloperPermissions),
	}); err != nil {
		t.Fatal(err)
	}
	shared := fmt.Sprint([]string{devs, platform, platform + "/inner"})
	if got := fmt.Sprint(paths(nil)); got != shared {
		t.Fatalf("shared: %s, want %s", got, shared)
	}
	if got := fmt.Sprint(paths(gitlab.Ptr(gitlab.DeveloperPermissions))); got != shared {
		t.Fatalf("min_access_level 30: %s", got)
	}
	if got := fmt.Sprint(paths(gitlab.Ptr(gitlab.MaintainerPermissions))); got != fmt.Sprint([]string{devs}) {
		t.Fatalf("min_access_level 40 (the link gives 30): %s", got)
	}
	if _, err := admin.Groups.UnshareGroupFromGroup(platform, devsGroup.ID); err != nil {
		t.Fatal(err)
	}
	if got := fmt.Sprint(paths(nil)); got != fmt.Sprint([]string{devs}) {
		t.Fatalf("after unsharing: %s", got)
	}
}

func TestClientAccessTokenBotsAreBots(t *testing.T) {
	admin := newClient(t, fx.token)
	path := privateProject(t, "gobot")
	made, _, err := admin.ProjectAccessTokens.CreateProjectAccessToken(path, &gitlab.CreateProjectAccessTokenOptions{
		Name: gitlab.Ptr("ci"), Scopes: &[]string{"api"}, AccessLevel: gitlab.Ptr(gitlab.DeveloperPermissions),
	})
	if err != nil {
		t.Fatal(err)
	}
	bot, _, err := admin.Users.GetUser(made.UserID, gitlab.GetUsersOptions{})
	if err != nil || !bot.Bot {
		t.Fatalf("the bot: %+v %v", bot, err)
	}
	me, _, err := newClient(t, made.Token).Users.CurrentUser()
	if err != nil || !me.Bot || me.ID != made.UserID {
		t.Fatalf("the bot itself: %+v %v", me, err)
	}
	human, _, err := admin.Users.CurrentUser()
	if err != nil || human.Bot {
		t.Fatalf("a human: %+v %v", human, err)
	}
}
