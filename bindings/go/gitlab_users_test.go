package forgecore_test

// GitLab's Go client (gitlab.com/gitlab-org/api/client-go, pinned in go.mod), unchanged,
// against the Go host: the Users API (issue 38) — create, list by username, get, modify,
// block and unblock (the client needs 201 for unblock), delete — and a blocked user's own
// client refused.

import (
	"errors"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	gitlab "gitlab.com/gitlab-org/api/client-go"
)

func TestClientUsers(t *testing.T) {
	client := newClient(t, fx.token)
	username := fmt.Sprintf("gouser%d", time.Now().UnixNano())
	user, response, err := client.Users.CreateUser(&gitlab.CreateUserOptions{
		Username:      gitlab.Ptr(username),
		Name:          gitlab.Ptr("Go User"),
		Email:         gitlab.Ptr(username + "@example.com"),
		ResetPassword: gitlab.Ptr(true),
		Bio:           gitlab.Ptr("made by client-go"),
		ProjectsLimit: gitlab.Ptr(int64(5)),
	})
	if err != nil {
		t.Fatal(err)
	}
	if response.StatusCode != 201 || user.Username != username || user.State != "active" || user.IsAdmin ||
		user.Bio != "made by client-go" || user.ProjectsLimit != 5 || user.WebURL != fx.url+"/"+username {
		t.Fatalf("created: %d %+v", response.StatusCode, user)
	}
	_, response, err = client.Users.CreateUser(&gitlab.CreateUserOptions{
		Username: gitlab.Ptr(strings.ToUpper(username)), Name: gitlab.Ptr("X"),
		Email: gitlab.Ptr("other-" + username + "@example.com"), ForceRandomPassword: gitlab.Ptr(true),
	})
	if err == nil || response.StatusCode != http.StatusConflict || !strings.Contains(err.Error(), "Username has already been taken") {
		t.Fatalf("duplicate: %v %v", response, err)
	}

	listed, _, err := client.Users.ListUsers(&gitlab.ListUsersOptions{Username: gitlab.Ptr(strings.ToUpper(username))})
	if err != nil || len(listed) != 1 || listed[0].ID != user.ID {
		t.Fatalf("list by username: %v %v", listed, err)
	}
	got, _, err := client.Users.GetUser(user.ID, gitlab.GetUsersOptions{})
	if err != nil || got.Email != username+"@example.com" || got.CreatedAt == nil {
		t.Fatalf("get: %+v %v", got, err)
	}
	modified, _, err := client.Users.ModifyUser(user.ID, &gitlab.ModifyUserOptions{
		Bio: gitlab.Ptr("edited"), Location: gitlab.Ptr("Oslo"), Note: gitlab.Ptr("via go"),
	})
	if err != nil || modified.Bio != "edited" || modified.Location != "Oslo" || modified.Note != "via go" ||
		modified.Name != "Go User" {
		t.Fatalf("modify: %+v %v", modified, err)
	}

	var token struct{ Token string }
	if err := fx.admin(map[string]any{"command": "token_add", "username": username}, &token); err != nil {
		t.Fatal(err)
	}
	own := newClient(t, token.Token)
	if me, _, err := own.Users.CurrentUser(); err != nil || me.Username != username {
		t.Fatalf("current user: %+v %v", me, err)
	}
	if err := client.Users.BlockUser(user.ID); err != nil {
		t.Fatal(err)
	}
	_, response, err = own.Users.CurrentUser()
	if err == nil || response.StatusCode != 403 || !strings.Contains(err.Error(), "Your account has been blocked.") {
		t.Fatalf("a blocked user's token: %v %v", response, err)
	}
	blocked, _, err := client.Users.ListUsers(&gitlab.ListUsersOptions{Blocked: gitlab.Ptr(true)})
	if err != nil || len(blocked) != 1 || blocked[0].ID != user.ID || blocked[0].State != "blocked" {
		t.Fatalf("blocked list: %v %v", blocked, err)
	}
	if err := client.Users.UnblockUser(user.ID); err != nil {
		t.Fatalf("unblock (needs 201): %v", err)
	}
	if me, _, err := own.Users.CurrentUser(); err != nil || me.State != "active" {
		t.Fatalf("unblocked: %+v %v", me, err)
	}
	if err := client.Users.DeactivateUser(user.ID); err != nil {
		t.Fatal(err)
	}
	if err := client.Users.UnblockUser(user.ID); !errors.Is(err, gitlab.ErrUserUnblockPrevented) {
		t.Fatalf("unblock of a deactivated user: %v", err)
	}
	if err := client.Users.ActivateUser(user.ID); err != nil {
		t.Fatal(err)
	}
	if err := client.Users.UnblockUser(999999999); !errors.Is(err, gitlab.ErrUserNotFound) {
		t.Fatalf("unblock of nobody: %v", err)
	}

	response, err = client.Users.DeleteUser(user.ID)
	if err != nil || response.StatusCode != 204 {
		t.Fatalf("delete: %v %v", response, err)
	}
	_, response, err = client.Users.GetUser(user.ID, gitlab.GetUsersOptions{})
	if err == nil || response.StatusCode != 404 {
		t.Fatalf("deleted user: %v %v", response, err)
	}
	if _, response, err := own.Users.CurrentUser(); err == nil || response.StatusCode != 401 {
		t.Fatalf("a deleted user's token: %v %v", response, err)
	}
}
