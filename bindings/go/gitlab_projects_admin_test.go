package forgecore_test

// GitLab's Go client, unchanged, on the project lifecycle of issue 38 (decisions D9) through
// the Go host: CreateProject with a README (checked with the git CLI), EditProject,
// ArchiveProject/UnarchiveProject, DeleteProject with its options struct (which sends empty
// full_path= and permanently_remove= when unset), RestoreProject, and a permanent removal.

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	gitlab "gitlab.com/gitlab-org/api/client-go"
)

// newestRepository is the most recently made repository under the data directory's
// repositories (where a core without storages puts the ones it creates).
func newestRepository(t *testing.T) string {
	t.Helper()
	found, _ := filepath.Glob(filepath.Join(fx.dataDir, "repositories", "@hashed", "*", "*", "*.git"))
	var newest string
	var at time.Time
	for _, dir := range found {
		info, err := os.Stat(filepath.Join(dir, "HEAD"))
		if err == nil && info.ModTime().After(at) {
			newest, at = dir, info.ModTime()
		}
	}
	if newest == "" {
		t.Fatalf("no repository made under %s", fx.dataDir)
	}
	return newest
}

func gitOut(t *testing.T, dir string, args ...string) string {
	t.Helper()
	out, err := exec.Command("git", append([]string{"-C", dir}, args...)...).Output()
	if err != nil {
		t.Fatalf("git %v: %v", args, err)
	}
	return string(out)
}

func TestClientProjectLifecycle(t *testing.T) {
	client := newClient(t, fx.token)
	name := fmt.Sprintf("Go App %d", time.Now().UnixNano())
	project, response, err := client.Projects.CreateProject(&gitlab.CreateProjectOptions{
		Name:                 gitlab.Ptr(name),
		Description:          gitlab.Ptr("from client-go"),
		InitializeWithReadme: gitlab.Ptr(true),
		MergeMethod:          gitlab.Ptr(gitlab.FastForwardMerge),
		Topics:               gitlab.Ptr([]string{"go"}),
	})
	if err != nil || response.StatusCode != 201 {
		t.Fatalf("create: %v %v", response, err)
	}
	path := strings.ToLower(strings.ReplaceAll(name, " ", "-"))
	if project.PathWithNamespace != "root/"+path || project.DefaultBranch != "main" || project.EmptyRepo ||
		project.MergeMethod != gitlab.FastForwardMerge || len(project.Topics) != 1 || project.Archived ||
		project.Namespace == nil || project.Namespace.Kind != "user" || project.CreatorID == 0 {
		t.Fatalf("created: %+v", project)
	}
	repo := newestRepository(t)
	if log := strings.TrimSpace(gitOut(t, repo, "log", "--format=%s", "main")); log != "Initial commit" {
		t.Fatalf("log: %q", log)
	}
	readme := gitOut(t, repo, "show", "main:README.md")
	if !strings.HasPrefix(readme, "# "+name+"\n\nfrom client-go\n") ||
		!strings.Contains(readme, "git remote add origin "+project.HTTPURLToRepo+"\n") {
		t.Fatalf("README: %s", readme)
	}

	edited, _, err := client.Projects.EditProject(project.ID, &gitlab.EditProjectOptions{
		Description:                      gitlab.Ptr("edited"),
		OnlyAllowMergeIfPipelineSucceeds: gitlab.Ptr(true),
		SquashOption:                     gitlab.Ptr(gitlab.SquashOptionAlways),
	})
	if err != nil || edited.Description != "edited" || !edited.OnlyAllowMergeIfPipelineSucceeds ||
		edited.SquashOption != gitlab.SquashOptionAlways {
		t.Fatalf("edit: %+v %v", edited, err)
	}

	archived, response, err := client.Projects.ArchiveProject(project.ID)
	if err != nil || response.StatusCode != 201 || !archived.Archived {
		t.Fatalf("archive: %v %+v %v", response, archived, err)
	}
	_, response, err = client.RepositoryFiles.CreateFile(project.ID, "x.txt", &gitlab.CreateFileOptions{
		Branch: gitlab.Ptr("main"), Content: gitlab.Ptr("x"), CommitMessage: gitlab.Ptr("x"),
	})
	if err == nil || response == nil || response.StatusCode != 403 {
		t.Fatalf("write to an archived project: %v %v", response, err)
	}
	unarchived, response, err := client.Projects.UnarchiveProject(project.ID)
	if err != nil || response.StatusCode != 201 || unarchived.Archived {
		t.Fatalf("unarchive: %v %+v %v", response, unarchived, err)
	}

	// An options struct with nothing set: full_path= and permanently_remove= go out empty.
	response, err = client.Projects.DeleteProject(project.ID, &gitlab.DeleteProjectOptions{})
	if err != nil || response.StatusCode != 202 {
		t.Fatalf("delete: %v %v", response, err)
	}
	marked, _, err := client.Projects.GetProject(project.ID, nil)
	if err != nil || marked.MarkedForDeletionOn == nil {
		t.Fatalf("marked: %+v %v", marked, err)
	}
	restored, response, err := client.Projects.RestoreProject(project.ID)
	if err != nil || response.StatusCode != 201 || restored.MarkedForDeletionOn != nil {
		t.Fatalf("restore: %v %+v %v", response, restored, err)
	}
	response, err = client.Projects.DeleteProject(project.ID, &gitlab.DeleteProjectOptions{
		PermanentlyRemove: gitlab.Ptr(true), FullPath: gitlab.Ptr(project.PathWithNamespace),
	})
	if err == nil || response.StatusCode != 400 || !strings.Contains(err.Error(), "must be marked for deletion first") {
		t.Fatalf("permanent removal of an unmarked project: %v %v", response, err)
	}
	if _, err = client.Projects.DeleteProject(project.ID, nil); err != nil {
		t.Fatal(err)
	}
	response, err = client.Projects.DeleteProject(project.ID, &gitlab.DeleteProjectOptions{
		PermanentlyRemove: gitlab.Ptr(true), FullPath: gitlab.Ptr(project.PathWithNamespace),
	})
	if err != nil || response.StatusCode != 202 {
		t.Fatalf("permanent removal: %v %v", response, err)
	}
	if _, response, err = client.Projects.GetProject(project.ID, nil); err == nil || response.StatusCode != 404 {
		t.Fatalf("purged project: %v %v", response, err)
	}
	if _, err := os.Stat(repo); !os.IsNotExist(err) {
		t.Fatalf("the repository is still at %s", repo)
	}
}
