package forgecore_test

// GitLab's Go client (gitlab.com/gitlab-org/api/client-go, pinned in go.mod), unchanged,
// against the Go host: labels, issues and notes (issue #40) — Labels.Create/List/Get/Update/
// DeleteLabel, Issues.CreateIssue/ListProjectIssues (Renovate's state=opened&scope=created_by_me
// and search)/GetIssue/UpdateIssue (state_event close, add_labels)/DeleteIssue, Notes.Create/
// List/Get/Update/DeleteIssueNote, and a confidential issue hidden from a guest.

import (
	"fmt"
	"testing"
	"time"

	gitlab "gitlab.com/gitlab-org/api/client-go"
)

func TestClientIssuesNotesLabels(t *testing.T) {
	suffix := time.Now().UnixNano() % 1e9
	ownerName := fmt.Sprintf("iowner%d", suffix)
	guestName := fmt.Sprintf("iguest%d", suffix)
	client := newClient(t, userWithToken(t, ownerName))
	guestToken := userWithToken(t, guestName)
	project, _, err := client.Projects.CreateProject(&gitlab.CreateProjectOptions{
		Name: gitlab.Ptr("Tracker"), Path: gitlab.Ptr("tracker"),
	})
	if err != nil {
		t.Fatal(err)
	}
	guestUser, _, err := newClient(t, guestToken).Users.CurrentUser()
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := client.ProjectMembers.AddProjectMember(project.ID, &gitlab.AddProjectMemberOptions{
		UserID: gitlab.Ptr(guestUser.ID), AccessLevel: gitlab.Ptr(gitlab.GuestPermissions),
	}); err != nil {
		t.Fatal(err)
	}

	// Labels.
	label, response, err := client.Labels.CreateLabel(project.ID, &gitlab.CreateLabelOptions{
		Name: gitlab.Ptr("bug"), Color: gitlab.Ptr("#d9534f"),
	})
	if err != nil || response.StatusCode != 201 || label.Name != "bug" || label.TextColor != "#FFFFFF" {
		t.Fatalf("label: %+v %v", label, err)
	}
	_, response, err = client.Labels.CreateLabel(project.ID, &gitlab.CreateLabelOptions{
		Name: gitlab.Ptr("bug"), Color: gitlab.Ptr("#ffffff"),
	})
	if err == nil || response.StatusCode != 409 {
		t.Fatalf("a taken name: %v", err)
	}
	updated, _, err := client.Labels.UpdateLabel(project.ID, label.ID, &gitlab.UpdateLabelOptions{
		NewName: gitlab.Ptr("defect"), Color: gitlab.Ptr("#000000"),
	})
	if err != nil || updated.Name != "defect" || updated.Color != "#000000" {
		t.Fatalf("updated label: %+v %v", updated, err)
	}
	if got, _, err := client.Labels.GetLabel(project.ID, "defect"); err != nil || got.ID != label.ID {
		t.Fatalf("label by name: %+v %v", got, err)
	}

	// Issues as Renovate drives them.
	mine := &gitlab.ListProjectIssuesOptions{State: gitlab.Ptr("opened"), Scope: gitlab.Ptr("created_by_me")}
	if list, _, err := client.Issues.ListProjectIssues(project.ID, mine); err != nil || len(list) != 0 {
		t.Fatalf("empty list: %+v %v", list, err)
	}
	labels := gitlab.LabelOptions{"renovate"}
	issue, response, err := client.Issues.CreateIssue(project.ID, &gitlab.CreateIssueOptions{
		Title: gitlab.Ptr("Dependency Dashboard"), Description: gitlab.Ptr("- [ ] a"), Labels: &labels,
	})
	if err != nil || response.StatusCode != 201 || issue.IID != 1 || issue.State != "opened" ||
		len(issue.Labels) != 1 || issue.Labels[0] != "renovate" || issue.References == nil ||
		issue.References.Full != ownerName+"/tracker#1" || issue.TaskCompletionStatus == nil ||
		issue.TaskCompletionStatus.Count != 1 {
		t.Fatalf("created: %+v %v", issue, err)
	}
	mine.Search = gitlab.Ptr("Dependency Dashboard")
	if list, _, err := client.Issues.ListProjectIssues(project.ID, mine); err != nil || len(list) != 1 || list[0].IID != 1 {
		t.Fatalf("searched: %+v %v", list, err)
	}
	add := gitlab.LabelOptions{"defect"}
	closed, _, err := client.Issues.UpdateIssue(project.ID, 1, &gitlab.UpdateIssueOptions{
		Description: gitlab.Ptr("- [x] a"), StateEvent: gitlab.Ptr("close"), AddLabels: &add,
	})
	if err != nil || closed.State != "closed" || len(closed.Labels) != 2 || closed.ClosedBy == nil ||
		closed.TaskCompletionStatus.CompletedCount != 1 {
		t.Fatalf("closed: %+v %v", closed, err)
	}
	if got, _, err := client.Issues.GetIssue(project.ID, 1); err != nil || got.State != "closed" {
		t.Fatalf("got: %+v %v", got, err)
	}

	// Notes.
	note, _, err := client.Notes.CreateIssueNote(project.ID, 1, &gitlab.CreateIssueNoteOptions{Body: gitlab.Ptr("Shipped")})
	if err != nil || note.Body != "Shipped" || note.Author.Username != ownerName || note.NoteableType != "Issue" {
		t.Fatalf("note: %+v %v", note, err)
	}
	if edited, _, err := client.Notes.UpdateIssueNote(project.ID, 1, note.ID, &gitlab.UpdateIssueNoteOptions{
		Body: gitlab.Ptr("Shipped!"),
	}); err != nil || edited.Body != "Shipped!" {
		t.Fatalf("edited: %+v %v", edited, err)
	}
	notes, _, err := client.Notes.ListIssueNotes(project.ID, 1, &gitlab.ListIssueNotesOptions{Sort: gitlab.Ptr("asc")})
	if err != nil || len(notes) != 2 || notes[0].Body != "closed" || !notes[0].System || notes[1].Body != "Shipped!" {
		t.Fatalf("notes: %+v %v", notes, err)
	}
	if got, _, err := client.Notes.GetIssueNote(project.ID, 1, note.ID); err != nil || got.ID != note.ID {
		t.Fatalf("one note: %+v %v", got, err)
	}
	if _, err := client.Notes.DeleteIssueNote(project.ID, 1, note.ID); err != nil {
		t.Fatal(err)
	}

	// A confidential issue: absent for a guest, 404 on its own.
	secret, _, err := client.Issues.CreateIssue(project.ID, &gitlab.CreateIssueOptions{
		Title: gitlab.Ptr("Leak"), Confidential: gitlab.Ptr(true),
	})
	if err != nil || !secret.Confidential {
		t.Fatalf("secret: %+v %v", secret, err)
	}
	guest := newClient(t, guestToken)
	if list, _, err := guest.Issues.ListProjectIssues(project.ID, nil); err != nil || len(list) != 1 || list[0].IID != 1 {
		t.Fatalf("a guest's list: %+v %v", list, err)
	}
	_, response, err = guest.Issues.GetIssue(project.ID, secret.IID)
	if err == nil || response == nil || response.StatusCode != 404 {
		t.Fatalf("a guest reads the secret: %v", err)
	}
	if _, err := client.Issues.DeleteIssue(project.ID, secret.IID); err != nil {
		t.Fatal(err)
	}
	if _, err := client.Labels.DeleteLabel(project.ID, "defect", nil); err != nil {
		t.Fatal(err)
	}
	if list, _, err := client.Labels.ListLabels(project.ID, nil); err != nil || len(list) != 1 || list[0].Name != "renovate" {
		t.Fatalf("labels left: %+v %v", list, err)
	}
}
