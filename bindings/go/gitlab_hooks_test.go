package forgecore_test

// GitLab's Go client, unchanged, on project webhooks (issue #41): AddProjectHook,
// ListProjectHooks and GetProjectHook against a core of its own (hooks.allow_local_requests,
// its receiver is on loopback), and gitlab.ParseWebhook accepting the Push Hook a real
// `git push` made the core deliver, then the Merge Request, Note (on a merge request and on an
// issue) and Release Hooks the client's own calls made it deliver, each as its typed event.

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

	// Merge Request, Note and Release Hooks, each parsed into its typed event.
	_, _, err = client.Projects.AddProjectHook("hk/app", &gitlab.AddProjectHookOptions{
		URL:                 gitlab.Ptr(receiver.URL + "/events"),
		PushEvents:          gitlab.Ptr(false),
		MergeRequestsEvents: gitlab.Ptr(true),
		NoteEvents:          gitlab.Ptr(true),
		ReleasesEvents:      gitlab.Ptr(true),
	})
	if err != nil {
		t.Fatal(err)
	}
	next := func(want gitlab.EventType) any {
		t.Helper()
		select {
		case d := <-got:
			if d.event != want {
				t.Fatalf("got %q, want %q: %s", d.event, want, d.body)
			}
			parsed, err := gitlab.ParseWebhook(d.event, d.body)
			if err != nil {
				t.Fatalf("ParseWebhook(%q): %v\n%s", d.event, err, d.body)
			}
			return parsed
		case <-time.After(20 * time.Second):
			t.Fatalf("no %q delivery", want)
		}
		return nil
	}
	commit, _, err := client.Commits.CreateCommit("hk/app", &gitlab.CreateCommitOptions{
		Branch: gitlab.Ptr("topic"), StartBranch: gitlab.Ptr("main"), CommitMessage: gitlab.Ptr("Topic"),
		Actions: []*gitlab.CommitActionOptions{{
			Action: gitlab.Ptr(gitlab.FileCreate), FilePath: gitlab.Ptr("topic.txt"), Content: gitlab.Ptr("t\n"),
		}},
	})
	if err != nil {
		t.Fatal(err)
	}
	mr, _, err := client.MergeRequests.CreateMergeRequest("hk/app", &gitlab.CreateMergeRequestOptions{
		SourceBranch: gitlab.Ptr("topic"), TargetBranch: gitlab.Ptr("main"), Title: gitlab.Ptr("Topic"),
	})
	if err != nil {
		t.Fatal(err)
	}
	merge, ok := next(gitlab.EventTypeMergeRequest).(*gitlab.MergeEvent)
	if !ok || merge.ObjectKind != "merge_request" || merge.ObjectAttributes.IID != mr.IID ||
		merge.ObjectAttributes.Action != "open" || merge.ObjectAttributes.State != "opened" ||
		merge.ObjectAttributes.SourceBranch != "topic" || merge.ObjectAttributes.LastCommit.ID != commit.ID ||
		merge.ObjectAttributes.LastCommit.Timestamp == nil || merge.ObjectAttributes.URL != mr.WebURL ||
		merge.Project.PathWithNamespace != "hk/app" || merge.User == nil || merge.User.Username != "root" {
		t.Fatalf("merge request event: %+v", merge)
	}
	note, _, err := client.Notes.CreateMergeRequestNote("hk/app", mr.IID, &gitlab.CreateMergeRequestNoteOptions{
		Body: gitlab.Ptr("Looks good"),
	})
	if err != nil {
		t.Fatal(err)
	}
	comment, ok := next(gitlab.EventTypeNote).(*gitlab.MergeCommentEvent)
	if !ok || comment.ObjectAttributes.ID != note.ID || comment.ObjectAttributes.Note != "Looks good" ||
		comment.ObjectAttributes.NoteableType != "MergeRequest" || comment.MergeRequest.IID != mr.IID ||
		comment.MergeRequest.LastCommit.ID != commit.ID || comment.ProjectID == 0 {
		t.Fatalf("merge request note event: %+v", comment)
	}
	issue, _, err := client.Issues.CreateIssue("hk/app", &gitlab.CreateIssueOptions{Title: gitlab.Ptr("Broken")})
	if err != nil {
		t.Fatal(err)
	}
	issueNote, _, err := client.Notes.CreateIssueNote("hk/app", issue.IID, &gitlab.CreateIssueNoteOptions{
		Body: gitlab.Ptr("Seen it"),
	})
	if err != nil {
		t.Fatal(err)
	}
	onIssue, ok := next(gitlab.EventTypeNote).(*gitlab.IssueCommentEvent)
	if !ok || onIssue.ObjectAttributes.ID != issueNote.ID || onIssue.Issue.IID != issue.IID ||
		onIssue.Issue.Title != "Broken" || onIssue.User == nil || onIssue.User.Username != "root" {
		t.Fatalf("issue note event: %+v", onIssue)
	}
	release, _, err := client.Releases.CreateRelease("hk/app", &gitlab.CreateReleaseOptions{
		TagName: gitlab.Ptr("v1.0"), Ref: gitlab.Ptr("main"), Name: gitlab.Ptr("One"),
	})
	if err != nil {
		t.Fatal(err)
	}
	main := git(t, work, "rev-parse", "HEAD")
	released, ok := next(gitlab.EventTypeRelease).(*gitlab.ReleaseEvent)
	if !ok || released.ObjectKind != "release" || released.Action != "create" || released.Tag != release.TagName ||
		released.Name != "One" || released.Commit.ID != main || released.Assets.Count != 4 ||
		len(released.Assets.Sources) != 4 || released.Project.PathWithNamespace != "hk/app" {
		t.Fatalf("release event: %+v", released)
	}
}
