package forgecore_test

// GitLab's Go client, unchanged, on personal access tokens (issue 38, decisions D9): create for
// a user, list with filters, get self, rotate (by id and self), revoke, and the scope refusal.

import (
	"errors"
	"fmt"
	"net/http"
	"testing"
	"time"

	gitlab "gitlab.com/gitlab-org/api/client-go"
)

func isoDays(days int) *gitlab.ISOTime {
	day := time.Now().UTC().AddDate(0, 0, days)
	date := gitlab.ISOTime(time.Date(day.Year(), day.Month(), day.Day(), 0, 0, 0, 0, time.UTC))
	return &date
}

func sameDay(got *gitlab.ISOTime, want *gitlab.ISOTime) bool {
	return got != nil && want != nil && got.String() == want.String()
}

func TestClientPersonalAccessTokens(t *testing.T) {
	admin := newClient(t, fx.token)
	name := fmt.Sprintf("gopat%d", time.Now().UnixNano()%1e9)
	var user struct {
		ID int64 `json:"id"`
	}
	if err := fx.admin(map[string]any{"command": "user_add", "username": name}, &user); err != nil {
		t.Fatal(err)
	}
	made, response, err := admin.Users.CreatePersonalAccessToken(user.ID, &gitlab.CreatePersonalAccessTokenOptions{
		Name:        gitlab.Ptr("deploy"),
		Description: gitlab.Ptr("from Go"),
		Scopes:      &[]string{"read_api", "write_repository"},
		ExpiresAt:   isoDays(30),
	})
	if err != nil || response.StatusCode != 201 {
		t.Fatalf("create: %v %v", response, err)
	}
	if made.Token == "" || made.UserID != user.ID || made.Name != "deploy" || made.Description != "from Go" ||
		!made.Active || made.Revoked || len(made.Scopes) != 2 || !sameDay(made.ExpiresAt, isoDays(30)) || made.CreatedAt == nil {
		t.Fatalf("created: %+v", made)
	}
	// Listed for the user, with the client's filters.
	listed, _, err := admin.PersonalAccessTokens.ListPersonalAccessTokens(&gitlab.ListPersonalAccessTokensOptions{
		UserID: gitlab.Ptr(user.ID), State: gitlab.Ptr("active"), Search: gitlab.Ptr("depl"),
	})
	if err != nil || len(listed) != 1 || listed[0].ID != made.ID || listed[0].Token != "" {
		t.Fatalf("list: %v %v", listed, err)
	}
	// The token itself.
	own := newClient(t, made.Token)
	self, _, err := own.PersonalAccessTokens.GetSinglePersonalAccessToken()
	if err != nil || self.ID != made.ID {
		t.Fatalf("self: %+v %v", self, err)
	}
	// read_api may read but not write: GitLab's insufficient_scope 403.
	_, response, err = own.Branches.CreateBranch(workProject, &gitlab.CreateBranchOptions{
		Branch: gitlab.Ptr("never"), Ref: gitlab.Ptr("main"),
	})
	if err == nil || response.StatusCode != http.StatusForbidden {
		t.Fatalf("write with read_api: %v %v", response, err)
	}
	// Rotate: a new secret, the old one refused at once.
	rotated, response, err := admin.PersonalAccessTokens.RotatePersonalAccessTokenByID(made.ID,
		&gitlab.RotatePersonalAccessTokenOptions{ExpiresAt: isoDays(10)})
	if err != nil || response.StatusCode != 200 || rotated.Token == "" || rotated.Token == made.Token ||
		rotated.ID == made.ID || !sameDay(rotated.ExpiresAt, isoDays(10)) {
		t.Fatalf("rotate: %+v %v %v", rotated, response, err)
	}
	if _, response, err = own.PersonalAccessTokens.GetSinglePersonalAccessToken(); err == nil || response.StatusCode != 401 {
		t.Fatalf("old token after rotation: %v %v", response, err)
	}
	// Self-rotation needs api or self_rotate.
	fresh := newClient(t, rotated.Token)
	if _, response, err = fresh.PersonalAccessTokens.RotatePersonalAccessTokenSelf(nil); err == nil || response.StatusCode != 403 {
		t.Fatalf("self-rotate without the scope: %v %v", response, err)
	}
	// Revoke: 204, then the token is refused; revoking a missing one is 404.
	response, err = admin.PersonalAccessTokens.RevokePersonalAccessTokenByID(rotated.ID)
	if err != nil || response.StatusCode != 204 {
		t.Fatalf("revoke: %v %v", response, err)
	}
	if _, response, err = fresh.PersonalAccessTokens.GetSinglePersonalAccessToken(); err == nil || response.StatusCode != 401 {
		t.Fatalf("revoked token: %v %v", response, err)
	}
	if _, err = admin.PersonalAccessTokens.RevokePersonalAccessTokenByID(999999); !errors.Is(err, gitlab.ErrNotFound) {
		t.Fatalf("revoke missing: %v", err)
	}
	revoked, _, err := admin.PersonalAccessTokens.ListPersonalAccessTokens(&gitlab.ListPersonalAccessTokensOptions{
		UserID: gitlab.Ptr(user.ID), Revoked: gitlab.Ptr(true),
	})
	if err != nil || len(revoked) != 2 {
		t.Fatalf("revoked list: %v %v", revoked, err)
	}
	// An api token rotates itself.
	var cli struct {
		Token string `json:"token"`
	}
	if err := fx.admin(map[string]any{"command": "token_add", "username": name, "scopes": []string{"api"}}, &cli); err != nil {
		t.Fatal(err)
	}
	next, _, err := newClient(t, cli.Token).PersonalAccessTokens.RotatePersonalAccessTokenSelf(nil)
	if err != nil || next.Token == "" || next.Token == cli.Token || !sameDay(next.ExpiresAt, isoDays(7)) {
		t.Fatalf("self-rotate: %+v %v", next, err)
	}
	// Only administrators create for others.
	_, response, err = newClient(t, next.Token).Users.CreatePersonalAccessToken(1, &gitlab.CreatePersonalAccessTokenOptions{
		Name: gitlab.Ptr("x"), Scopes: &[]string{"api"},
	})
	if err == nil || response.StatusCode != 403 {
		t.Fatalf("non-admin create: %v %v", response, err)
	}
}
