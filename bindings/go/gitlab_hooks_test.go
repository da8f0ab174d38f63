package forgecore_test

// GitLab's Go client, unchanged, on project webhooks (issue #41): AddProjectHook,
// ListProjectHooks and GetProjectHook against a core of its own (hooks.allow_local_requests,
// its receiver is on loopback), and gitlab.ParseWebhook accepting the Push Hook a real
// `git push` made the core deliver.

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"testing"
	"time"

	"forgecore.dev/forgecore"
	gitlab "gitlab.com/gitlab-org/api/client-go"
)

type delivered struct {
	event gitlab.EventType
	token string
	body  []byte
}

func TestClientProjectHooks(t *testing.T) {
	dir := t.TempDir()
	got := make(chan delivered, 8)
	receiver := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		got <- delivered{gitlab.HookEventType(r), r.Header.Get("X-Gitlab-Token"), body}
		w.WriteHeader(http.StatusOK)
	}))
	defer receiver.Close()

	server := httptest.NewUnstartedServer(nil)
	url := "http://" + server.Listener.Addr().String()
	core, err := forgecore.Open(forgecore.Config{
		DataDir:     filepath.Join(dir, "data"),
		ExternalURL: url,
		Maintenance: json.RawMessage(`{"enabled": false}`),
		Hooks:       json.RawMessage(`{"allow_local_requests": true, "poll_millis": 50}`),
	})
	if err != nil {
		t.Fatal(err)
	}
	defer core.Close()
	server.Config.Handler = forgecore.NewHandler(core)
	server.Start()
	defer server.Close()
	own := &fixture{core: core}
	var boot struct{ Token string }
	if err := own.admin(map[string]any{"command": "bootstrap", "issue_token": true}, &boot); err != nil {
		t.Fatal(err)
	}
	work, bare := filepath.Join(dir, "work"), filepath.Join(dir, "app.git")
	if err := os.MkdirAll(work, 0o755); err != nil {
		t.Fatal(err)
	}
	git(t, work, "init", "-q", "-b", "main")
	if err := os.WriteFile(filepath.Join(work, "README.md"), []byte("hello\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	git(t, work, "add", ".")
	git(t, work, "-c", "user.name=Go", "-c", "user.email=go@example.com", "commit", "-q", "-m", "first")
	git(t, dir, "clone", "-q", "--bare", work, bare)
	for _, command := range []map[string]any{
		{"command": "group_add", "path": "hk", "visibility": "public"},
		{"command": "project_add", "path": "hk/app", "repo": bare, "visibility": "public"},
	} {
		if err := own.admin(command, nil); err != nil {
			t.Fatal(err)
		}
	}

	client, err := gitlab.NewAuthSourceClient(gitlab.AccessTokenAuthSource{Token: boot.Token}, gitlab.WithBaseURL(url))
	if err != nil {
		t.Fatal(err)
	}
	hook, response, err := client.Projects.AddProjectHook("hk/app", &gitlab.AddProjectHookOptions{
		URL:        gitlab.Ptr(receiver.URL + "/in"),
		PushEvents: gitlab.Ptr(true),
		Token:      gitlab.Ptr("go-secret"),
	})
	if err != nil || response.StatusCode != 201 || hook.URL != receiver.URL+"/in" || !hook.PushEvents ||
		hook.CreatedAt == nil || !hook.EnableSSLVerification {
		t.Fatalf("AddProjectHook: %+v %v", hook, err)
	}
	hooks, _, err := client.Projects.ListProjectHooks("hk/app", nil)
	if err != nil || len(hooks) != 1 || hooks[0].ID != hook.ID {
		t.Fatalf("ListProjectHooks: %+v %v", hooks, err)
	}
	fetched, _, err := client.Projects.GetProjectHook("hk/app", hook.ID)
	if err != nil || fetched.ID != hook.ID || fetched.AlertStatus != "executable" {
		t.Fatalf("GetProjectHook: %+v %v", fetched, err)
	}
	_, response, err = client.Projects.AddProjectHook("hk/app", &gitlab.AddProjectHookOptions{URL: gitlab.Ptr("ftp://x/")})
	if err == nil || response.StatusCode != 422 {
		t.Fatalf("a refused URL: %v", err)
	}

	if err := os.WriteFile(filepath.Join(work, "go.txt"), []byte("go\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	git(t, work, "add", ".")
	git(t, work, "-c", "user.name=Go", "-c", "user.email=go@example.com", "commit", "-q", "-m", "Second")
	remote := "http://oauth2:" + boot.Token + "@" + server.Listener.Addr().String() + "/hk/app.git"
	git(t, work, "push", "-q", remote, "HEAD:main")
	var push delivered
	select {
	case push = <-got:
	case <-time.After(20 * time.Second):
		t.Fatal("no delivery")
	}
	if push.event != gitlab.EventTypePush || push.token != "go-secret" {
		t.Fatalf("headers: %q %q", push.event, push.token)
	}
	parsed, err := gitlab.ParseWebhook(push.event, push.body)
	if err != nil {
		t.Fatalf("ParseWebhook: %v\n%s", err, push.body)
	}
	event, ok := parsed.(*gitlab.PushEvent)
	if !ok {
		t.Fatalf("ParseWebhook gave %T", parsed)
	}
	head := git(t, work, "rev-parse", "HEAD")
	if event.ObjectKind != "push" || event.After != head || event.Ref != "refs/heads/main" ||
		event.TotalCommitsCount != 1 || len(event.Commits) != 1 || event.Commits[0].ID != head ||
		event.Commits[0].Timestamp == nil || len(event.Commits[0].Added) != 1 || event.Commits[0].Added[0] != "go.txt" ||
		event.Project.PathWithNamespace != "hk/app" || event.UserUsername != "root" || event.ProjectID == 0 {
		t.Fatalf("push event: %+v", event)
	}
	if _, err := client.Projects.DeleteProjectHook("hk/app", hook.ID); err != nil {
		t.Fatal(err)
	}
}
