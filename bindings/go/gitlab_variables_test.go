package forgecore_test

// GitLab's Go client (gitlab.com/gitlab-org/api/client-go, pinned in go.mod), unchanged,
// against the Go host: CI/CD variables — ProjectVariables.CreateVariable/ListVariables/
// GetVariable (with a filter on the environment scope)/UpdateVariable/RemoveVariable, a hidden
// variable, InstanceVariables.CreateVariable/ListVariables/RemoveVariable, and a Developer's 403.

import (
	"errors"
	"fmt"
	"net/http"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	gitlab "gitlab.com/gitlab-org/api/client-go"
)

func TestClientProjectAndInstanceVariables(t *testing.T) {
	suffix := time.Now().UnixNano() % 1e9
	group := fmt.Sprintf("vars%d", suffix)
	project := group + "/app"
	repo := filepath.Join(t.TempDir(), "app.git")
	if out, err := exec.Command("git", "init", "-q", "--bare", repo).CombinedOutput(); err != nil {
		t.Fatalf("git init: %v %s", err, out)
	}
	developer := fmt.Sprintf("vdev%d", suffix)
	devToken := userWithToken(t, developer)
	for _, command := range []map[string]any{
		{"command": "group_add", "path": group},
		{"command": "project_add", "path": project, "repo": repo},
		{"command": "member_add", "group": group, "username": developer, "access_level": 30},
	} {
		if err := fx.admin(command, nil); err != nil {
			t.Fatal(err)
		}
	}
	client := newClient(t, fx.token)
	vars := client.ProjectVariables

	created, response, err := vars.CreateVariable(project, &gitlab.CreateProjectVariableOptions{
		Key:          gitlab.Ptr("DEPLOY_URL"),
		Value:        gitlab.Ptr("https://example.com"),
		Protected:    gitlab.Ptr(true),
		VariableType: gitlab.Ptr(gitlab.FileVariableType),
		Description:  gitlab.Ptr("where to deploy"),
	})
	if err != nil {
		t.Fatal(err)
	}
	want := gitlab.ProjectVariable{Key: "DEPLOY_URL", Value: "https://example.com", VariableType: gitlab.FileVariableType,
		Protected: true, EnvironmentScope: "*", Description: "where to deploy"}
	if response.StatusCode != 201 || *created != want {
		t.Fatalf("created: %d %+v", response.StatusCode, created)
	}
	if _, _, err := vars.CreateVariable(project, &gitlab.CreateProjectVariableOptions{
		Key: gitlab.Ptr("DEPLOY_URL"), Value: gitlab.Ptr("prod"), EnvironmentScope: gitlab.Ptr("production"),
	}); err != nil {
		t.Fatal(err)
	}
	hidden, _, err := vars.CreateVariable(project, &gitlab.CreateProjectVariableOptions{
		Key: gitlab.Ptr("SECRET"), Value: gitlab.Ptr("secret_value"), MaskedAndHidden: gitlab.Ptr(true),
	})
	if err != nil {
		t.Fatal(err)
	}
	if hidden.Value != "" || !hidden.Hidden || !hidden.Masked {
		t.Fatalf("hidden: %+v", hidden)
	}

	listed, _, err := vars.ListVariables(project, &gitlab.ListProjectVariablesOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if len(listed) != 3 || *listed[0] != want || listed[1].EnvironmentScope != "production" || listed[2].Value != "" {
		t.Fatalf("listed: %v", listed)
	}

	// Two scopes hold the key: without a filter GitLab answers 409, with one the variable.
	_, response, err = vars.GetVariable(project, "DEPLOY_URL", nil)
	if err == nil || response.StatusCode != http.StatusConflict {
		t.Fatalf("unfiltered get: %v %v", response, err)
	}
	production := &gitlab.VariableFilter{EnvironmentScope: "production"}
	got, _, err := vars.GetVariable(project, "DEPLOY_URL", &gitlab.GetProjectVariableOptions{Filter: production})
	if err != nil || got.Value != "prod" {
		t.Fatalf("filtered get: %+v %v", got, err)
	}
	updated, _, err := vars.UpdateVariable(project, "DEPLOY_URL", &gitlab.UpdateProjectVariableOptions{
		Value: gitlab.Ptr("prod2"), Filter: production,
	})
	if err != nil || updated.Value != "prod2" || updated.EnvironmentScope != "production" {
		t.Fatalf("update: %+v %v", updated, err)
	}
	if _, err := vars.RemoveVariable(project, "DEPLOY_URL", &gitlab.RemoveProjectVariableOptions{Filter: production}); err != nil {
		t.Fatal(err)
	}
	got, _, err = vars.GetVariable(project, "DEPLOY_URL", nil)
	if err != nil || *got != want {
		t.Fatalf("after removing the production one: %+v %v", got, err)
	}

	// A Developer may not manage them.
	_, response, err = newClient(t, devToken).ProjectVariables.ListVariables(project, nil)
	var refused *gitlab.ErrorResponse
	if !errors.As(err, &refused) || response.StatusCode != http.StatusForbidden {
		t.Fatalf("developer: %v %v", response, err)
	}

	// Instance variables: administrators only; no hidden, no scope.
	instance := client.InstanceVariables
	global, response, err := instance.CreateVariable(&gitlab.CreateInstanceVariableOptions{
		Key: gitlab.Ptr(fmt.Sprintf("GLOBAL_%d", suffix)), Value: gitlab.Ptr("value1"), Raw: gitlab.Ptr(true),
	})
	if err != nil || response.StatusCode != 201 || global.Value != "value1" || !global.Raw ||
		global.VariableType != gitlab.EnvVariableType {
		t.Fatalf("instance create: %v %+v %v", response, global, err)
	}
	all, _, err := instance.ListVariables(&gitlab.ListInstanceVariablesOptions{})
	if err != nil {
		t.Fatal(err)
	}
	found := false
	for _, v := range all {
		found = found || (v.Key == global.Key && v.Value == "value1")
	}
	if !found {
		t.Fatalf("%s not listed: %v", global.Key, all)
	}
	_, response, err = newClient(t, devToken).InstanceVariables.ListVariables(nil)
	if err == nil || response.StatusCode != http.StatusForbidden {
		t.Fatalf("developer, instance: %v %v", response, err)
	}
	if _, err := instance.RemoveVariable(global.Key); err != nil {
		t.Fatal(err)
	}
	_, response, err = instance.GetVariable(global.Key)
	if err == nil || response.StatusCode != http.StatusNotFound {
		t.Fatalf("after remove: %v %v", response, err)
	}
}
