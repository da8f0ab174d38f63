package forgecore_test

// GitLab's Go client, unchanged, on project access tokens and deploy tokens (issue 38,
// gitlab-administration.md §5-§6): create, list, get, rotate and revoke a project access
// token (its bot works and then does not), and project deploy tokens with and without
// `expires_at` (client-go reads it as *time.Time).

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	gitlab "gitlab.com/gitlab-org/api/client-go"
)

// privateProject is a new private project `<group>/app` on the fixture's work repository.
func privateProject(t *testing.T, prefix string) string {
	t.Helper()
	group := fmt.Sprintf("%s%d", prefix, time.Now().UnixNano()%1e9)
	for _, command := range []map[string]any{
		{"command": "group_add", "path": group},
		{"command": "project_add", "path": group + "/app", "repo": filepath.Join(fx.repos, "work"), "visibility": "private"},
	} {
		if err := fx.admin(command, nil); err != nil {
			t.Fatal(err)
		}
	}
	return group + "/app"
}

func TestClientProjectAccessTokens(t *testing.T) {
	admin := newClient(t, fx.token)
	path := privateProject(t, "gopat")
	project, _, err := admin.Projects.GetProject(path, nil)
	if err != nil {
		t.Fatal(err)
	}
	made, response, err := admin.ProjectAccessTokens.CreateProjectAccessToken(path, &gitlab.CreateProjectAccessTokenOptions{
		Name:        gitlab.Ptr("ci"),
		Scopes:      &[]string{"read_api"},
		AccessLevel: gitlab.Ptr(gitlab.DeveloperPermissions),
		ExpiresAt:   isoDays(30),
	})
	if err != nil || response.StatusCode != 201 {
		t.Fatalf("create: %v %v", response, err)
	}
	if made.Token == "" || made.Name != "ci" || made.AccessLevel != gitlab.DeveloperPermissions || !made.Active ||
		!sameDay(made.ExpiresAt, isoDays(30)) || len(made.Scopes) != 1 {
		t.Fatalf("created: %+v", made)
	}
	bot := newClient(t, made.Token)
	me, _, err := bot.Users.CurrentUser()
	if err != nil || !strings.HasPrefix(me.Username, fmt.Sprintf("project_%d_bot_", project.ID)) || me.ID != made.UserID {
		t.Fatalf("bot: %+v %v", me, err)
	}
	if _, _, err := bot.Projects.GetProject(path, nil); err != nil {
		t.Fatalf("the bot sees its project: %v", err)
	}
	listed, _, err := admin.ProjectAccessTokens.ListProjectAccessTokens(path, nil)
	if err != nil || len(listed) != 1 || listed[0].ID != made.ID || listed[0].Token != "" {
		t.Fatalf("list: %v %v", listed, err)
	}
	got, _, err := admin.ProjectAccessTokens.GetProjectAccessToken(path, made.ID)
	if err != nil || got.AccessLevel != gitlab.DeveloperPermissions {
		t.Fatalf("get: %+v %v", got, err)
	}
	rotated, _, err := admin.ProjectAccessTokens.RotateProjectAccessToken(path, made.ID, nil)
	if err != nil || rotated.Token == "" || rotated.Token == made.Token || !sameDay(rotated.ExpiresAt, isoDays(7)) {
		t.Fatalf("rotate: %+v %v", rotated, err)
	}
	if _, response, err := bot.Users.CurrentUser(); err == nil || response.StatusCode != 401 {
		t.Fatalf("the rotated token still works: %v", response)
	}
	response, err = admin.ProjectAccessTokens.RevokeProjectAccessToken(path, rotated.ID)
	if err != nil || response.StatusCode != 204 {
		t.Fatalf("revoke: %v %v", response, err)
	}
	if _, response, err := newClient(t, rotated.Token).Users.CurrentUser(); err == nil || response.StatusCode != 401 {
		t.Fatalf("the revoked token still works: %v", response)
	}
	if _, response, err := admin.ProjectAccessTokens.GetProjectAccessToken(path, rotated.ID); err == nil || response.StatusCode != 404 {
		t.Fatalf("a revoked token's bot is gone: %v", response)
	}
}

func TestClientDeployTokens(t *testing.T) {
	admin := newClient(t, fx.token)
	path := privateProject(t, "godt")
	when := time.Date(2031, 5, 6, 7, 8, 9, 0, time.UTC)
	made, response, err := admin.DeployTokens.CreateProjectDeployToken(path, &gitlab.CreateProjectDeployTokenOptions{
		Name:      gitlab.Ptr("ship"),
		Scopes:    &[]string{"read_registry", "read_repository"},
		ExpiresAt: &when,
	})
	if err != nil || response.StatusCode != 201 {
		t.Fatalf("create: %v %v", response, err)
	}
	if !strings.HasPrefix(made.Token, "gldt-") || made.Username != fmt.Sprintf("gitlab+deploy-token-%d", made.ID) ||
		made.ExpiresAt == nil || !made.ExpiresAt.Equal(when) || made.Revoked || made.Expired ||
		strings.Join(made.Scopes, ",") != "read_repository,read_registry" {
		t.Fatalf("created: %+v", made)
	}
	never, _, err := admin.DeployTokens.CreateProjectDeployToken(path, &gitlab.CreateProjectDeployTokenOptions{
		Name: gitlab.Ptr("forever"), Scopes: &[]string{"read_repository"}, Username: gitlab.Ptr("bot.deployer"),
	})
	if err != nil || never.ExpiresAt != nil || never.Username != "bot.deployer" {
		t.Fatalf("create without expiry: %+v %v", never, err)
	}
	listed, _, err := admin.DeployTokens.ListProjectDeployTokens(path, nil)
	if err != nil || len(listed) != 2 || listed[0].Token != "" {
		t.Fatalf("list: %v %v", listed, err)
	}
	got, _, err := admin.DeployTokens.GetProjectDeployToken(path, made.ID)
	if err != nil || got.Name != "ship" {
		t.Fatalf("get: %+v %v", got, err)
	}
	all, _, err := admin.DeployTokens.ListAllDeployTokens()
	if err != nil || len(all) < 2 {
		t.Fatalf("all: %v %v", all, err)
	}
	// Not an API credential.
	if _, response, err := newClient(t, made.Token).Users.CurrentUser(); err == nil || response.StatusCode != 401 {
		t.Fatalf("a deploy token on the API: %v", response)
	}
	if response, err := admin.DeployTokens.DeleteProjectDeployToken(path, made.ID); err != nil || response.StatusCode != 204 {
		t.Fatalf("delete: %v %v", response, err)
	}
	if _, response, err := admin.DeployTokens.GetProjectDeployToken(path, made.ID); err == nil || response.StatusCode != 404 {
		t.Fatalf("deleted: %v", response)
	}
}
