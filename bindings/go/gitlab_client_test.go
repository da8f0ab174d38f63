package forgecore_test

// GitLab's Go client (gitlab.com/gitlab-org/api/client-go, pinned in go.mod), unchanged,
// against the Go host: member roles and the repository reads, each compared with what the git
// CLI says about the same repository.

import (
	"archive/tar"
	"archive/zip"
	"bytes"
	"compress/gzip"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"forgecore.dev/forgecore"
	gitlab "gitlab.com/gitlab-org/api/client-go"
)

// newClient is a client with a personal access token, or an anonymous one for "" (the
// library's Unauthenticated source, which sends no token header at all).
func newClient(t *testing.T, token string) *gitlab.Client {
	t.Helper()
	var source gitlab.AuthSource = gitlab.AccessTokenAuthSource{Token: token}
	if token == "" {
		source = gitlab.Unauthenticated{}
	}
	client, err := gitlab.NewAuthSourceClient(source, gitlab.WithBaseURL(fx.url))
	if err != nil {
		t.Fatal(err)
	}
	return client
}

// --- member roles -------------------------------------------------------------------------

func roleIDs(roles []*gitlab.MemberRole) map[int64]*gitlab.MemberRole {
	ids := map[int64]*gitlab.MemberRole{}
	for _, role := range roles {
		ids[role.ID] = role
	}
	return ids
}

func TestClientInstanceMemberRoles(t *testing.T) {
	client := newClient(t, fx.token)
	name := fmt.Sprintf("go client reader %d", time.Now().UnixNano())
	role, response, err := client.MemberRolesService.CreateInstanceMemberRole(&gitlab.CreateMemberRoleOptions{
		Name:            gitlab.Ptr(name),
		BaseAccessLevel: gitlab.Ptr(gitlab.GuestPermissions),
		Description:     gitlab.Ptr("reads code"),
		ReadCode:        gitlab.Ptr(true),
		AdminWebHook:    gitlab.Ptr(true),
	})
	if err != nil {
		t.Fatal(err)
	}
	if response.StatusCode != 201 || role.ID <= 0 || role.Name != name || role.Description != "reads code" ||
		role.BaseAccessLevel != gitlab.GuestPermissions || !role.ReadCode || !role.AdminWebHook || role.RemoveProject ||
		role.GroupID != 0 {
		t.Fatalf("created: %d %+v", response.StatusCode, role)
	}
	roles, _, err := client.MemberRolesService.ListInstanceMemberRoles()
	if err != nil {
		t.Fatal(err)
	}
	if listed := roleIDs(roles)[role.ID]; listed == nil || listed.Name != name || !listed.ReadCode {
		t.Fatalf("role %d not listed: %v", role.ID, roles)
	}
	response, err = client.MemberRolesService.DeleteInstanceMemberRole(role.ID)
	if err != nil || response.StatusCode != 204 {
		t.Fatalf("delete: %v %v", response, err)
	}
	roles, _, err = client.MemberRolesService.ListInstanceMemberRoles()
	if err != nil || roleIDs(roles)[role.ID] != nil {
		t.Fatalf("after delete: %v %v", roles, err)
	}
	_, err = client.MemberRolesService.DeleteInstanceMemberRole(role.ID)
	if !errors.Is(err, gitlab.ErrNotFound) {
		t.Fatalf("deleting again: %v", err)
	}
	// Validation errors are 400s the client reports with the core's message.
	_, response, err = client.MemberRolesService.CreateInstanceMemberRole(&gitlab.CreateMemberRoleOptions{
		BaseAccessLevel: gitlab.Ptr(gitlab.GuestPermissions),
	})
	var failure *gitlab.ErrorResponse
	if !errors.As(err, &failure) || response.StatusCode != 400 || !strings.Contains(failure.Message, "name is missing") {
		t.Fatalf("no name: %v", err)
	}
	// Anonymous: 401.
	_, response, err = newClient(t, "").MemberRolesService.ListInstanceMemberRoles()
	if err == nil || response.StatusCode != 401 {
		t.Fatalf("anonymous: %v %v", response, err)
	}
}

func TestClientGroupMemberRoles(t *testing.T) {
	// A group path with a dot: the client sends it as roles%2Etop.
	group := fmt.Sprintf("roles.top%d", time.Now().UnixNano()%1e6)
	var created struct {
		ID int64 `json:"id"`
	}
	if err := fx.admin(map[string]any{"command": "group_add", "path": group}, &created); err != nil {
		t.Fatal(err)
	}
	if err := fx.admin(map[string]any{"command": "group_add", "path": group + "/sub"}, nil); err != nil {
		t.Fatal(err)
	}
	client := newClient(t, fx.token)
	role, response, err := client.MemberRolesService.CreateMemberRole(group, &gitlab.CreateMemberRoleOptions{
		Name:               gitlab.Ptr("GuestCodeReader"),
		BaseAccessLevel:    gitlab.Ptr(gitlab.DeveloperPermissions),
		ReadCode:           gitlab.Ptr(true),
		AdminVulnerability: gitlab.Ptr(true),
	})
	if err != nil {
		t.Fatal(err)
	}
	if response.StatusCode != 201 || role.GroupID == 0 || !role.ReadCode || !role.AdminVulnerability ||
		role.BaseAccessLevel != gitlab.DeveloperPermissions {
		t.Fatalf("created: %+v", role)
	}
	if role.GroupID != created.ID {
		t.Fatalf("group_id %d, the group is %d", role.GroupID, created.ID)
	}
	// The same group by its numeric id.
	roles, _, err := client.MemberRolesService.ListMemberRoles(role.GroupID)
	if err != nil || roleIDs(roles)[role.ID] == nil || len(roles) != 1 {
		t.Fatalf("list by id: %v %v", roles, err)
	}
	roles, _, err = client.MemberRolesService.ListMemberRoles(group)
	if err != nil || roleIDs(roles)[role.ID] == nil {
		t.Fatalf("list by path: %v %v", roles, err)
	}
	// Instance roles do not list group roles.
	instance, _, err := client.MemberRolesService.ListInstanceMemberRoles()
	if err != nil || roleIDs(instance)[role.ID] != nil {
		t.Fatalf("instance list: %v %v", instance, err)
	}
	// Only root groups have roles.
	_, response, err = client.MemberRolesService.CreateMemberRole(group+"/sub", &gitlab.CreateMemberRoleOptions{
		Name: gitlab.Ptr("nested"), BaseAccessLevel: gitlab.Ptr(gitlab.GuestPermissions),
	})
	if err == nil || response.StatusCode != 400 {
		t.Fatalf("subgroup role: %v %v", response, err)
	}
	response, err = client.MemberRolesService.DeleteMemberRole(group, role.ID)
	if err != nil || response.StatusCode != 204 {
		t.Fatalf("delete: %v %v", response, err)
	}
	roles, _, err = client.MemberRolesService.ListMemberRoles(group)
	if err != nil || len(roles) != 0 {
		t.Fatalf("after delete: %v %v", roles, err)
	}
}

// --- repository ---------------------------------------------------------------------------

type treeRow struct{ mode, kind, id, path string }

// utf8Replace decodes like Python's bytes.decode("utf-8", "replace"): each invalid byte is
// U+FFFD, which is how a JSON answer carries a path that is not UTF-8.
func utf8Replace(b []byte) string {
	var out strings.Builder
	for len(b) > 0 {
		r, size := utf8.DecodeRune(b)
		out.WriteRune(r)
		b = b[size:]
	}
	return out.String()
}

// gitTree is `git ls-tree -z ARGS` in GitLab's order: trees, then blobs, then submodules.
func gitTree(t *testing.T, dir string, args ...string) []treeRow {
	t.Helper()
	var rows []treeRow
	for _, record := range bytes.Split(gitBytes(t, dir, append([]string{"ls-tree", "-z"}, args...)...), []byte{0}) {
		if len(record) == 0 {
			continue
		}
		meta, path, _ := bytes.Cut(record, []byte{'\t'})
		fields := strings.Fields(string(meta))
		rows = append(rows, treeRow{fields[0], fields[1], fields[2], utf8Replace(path)})
	}
	rank := map[string]int{"tree": 0, "blob": 1, "commit": 2}
	sort.SliceStable(rows, func(i, j int) bool { return rank[rows[i].kind] < rank[rows[j].kind] })
	return rows
}

func nodeRows(nodes []*gitlab.TreeNode) []treeRow {
	rows := make([]treeRow, len(nodes))
	for i, n := range nodes {
		rows[i] = treeRow{n.Mode, n.Type, n.ID, n.Path}
	}
	return rows
}

func sameRows(t *testing.T, what string, got, want []treeRow) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("%s: %d entries, want %d\ngot  %v\nwant %v", what, len(got), len(want), got, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("%s: entry %d is %v, want %v", what, i, got[i], want[i])
		}
	}
}

// scan collects every page of a list call with the client's own ScanAndCollect, which gives
// no page option on the first call.
func scan[T any](list func(...gitlab.RequestOptionFunc) ([]T, *gitlab.Response, error)) ([]T, error) {
	return gitlab.ScanAndCollect(func(p gitlab.PaginationOptionFunc) ([]T, *gitlab.Response, error) {
		if p == nil {
			return list()
		}
		return list(p)
	})
}

func TestClientTreeKeysetScanAndCollect(t *testing.T) {
	client := newClient(t, "")
	work := fx.repos + "/work"
	for _, project := range []any{workProject, dotProject} {
		for _, perPage := range []int64{1, 3, 100} {
			opt := &gitlab.ListTreeOptions{
				ListOptions: gitlab.ListOptions{Pagination: "keyset", PerPage: perPage},
				Recursive:   gitlab.Ptr(true),
			}
			pages := 0
			nodes, err := gitlab.ScanAndCollect(func(p gitlab.PaginationOptionFunc) ([]*gitlab.TreeNode, *gitlab.Response, error) {
				pages++
				options := []gitlab.RequestOptionFunc{}
				if p != nil {
					options = append(options, p)
				}
				nodes, response, err := client.Repositories.ListTree(project, opt, options...)
				if err == nil && response.NextLink != "" && len(nodes) != int(perPage) {
					t.Errorf("a next link after a page of %d entries, per_page %d", len(nodes), perPage)
				}
				return nodes, response, err
			})
			if err != nil {
				t.Fatal(err)
			}
			want := gitTree(t, work, "-r", "-t", "HEAD")
			sameRows(t, fmt.Sprintf("%v keyset per_page=%d", project, perPage), nodeRows(nodes), want)
			if minPages := (len(want) + int(perPage) - 1) / int(perPage); pages < minPages {
				t.Fatalf("%d pages for %d entries at %d per page", pages, len(want), perPage)
			}
		}
	}
	// path and ref travel in the next link too.
	opt := &gitlab.ListTreeOptions{
		ListOptions: gitlab.ListOptions{Pagination: "keyset", PerPage: 2},
		Path:        gitlab.Ptr("a"), Ref: gitlab.Ptr("v1.0.0"), Recursive: gitlab.Ptr(true),
	}
	nodes, err := scan(func(o ...gitlab.RequestOptionFunc) ([]*gitlab.TreeNode, *gitlab.Response, error) {
		return client.Repositories.ListTree(workProject, opt, o...)
	})
	if err != nil {
		t.Fatal(err)
	}
	var want []treeRow
	for _, row := range gitTree(t, work, "-r", "-t", "v1.0.0", "a/") {
		if row.path != "a" { // git lists the directory itself too; GitLab what is inside it
			want = append(want, row)
		}
	}
	sameRows(t, "a at v1.0.0", nodeRows(nodes), want)
}

func TestClientTreeOffsetPages(t *testing.T) {
	client := newClient(t, "")
	opt := &gitlab.ListTreeOptions{ListOptions: gitlab.ListOptions{PerPage: 4}}
	first, response, err := client.Repositories.ListTree(workProject, opt)
	if err != nil {
		t.Fatal(err)
	}
	want := gitTree(t, fx.repos+"/work", "HEAD")
	if len(first) != 4 || response.TotalItems != int64(len(want)) || response.NextPage != 2 || response.CurrentPage != 1 {
		t.Fatalf("first page: %d entries, %+v", len(first), response)
	}
	nodes, err := scan(func(o ...gitlab.RequestOptionFunc) ([]*gitlab.TreeNode, *gitlab.Response, error) {
		return client.Repositories.ListTree(workProject, opt, o...)
	})
	if err != nil {
		t.Fatal(err)
	}
	sameRows(t, "offset", nodeRows(nodes), want)
	_, _, err = client.Repositories.ListTree(workProject, &gitlab.ListTreeOptions{Ref: gitlab.Ptr("no-such-ref")})
	if !errors.Is(err, gitlab.ErrNotFound) {
		t.Fatalf("missing ref: %v", err)
	}
}

func TestClientBlobAndRawBlob(t *testing.T) {
	client := newClient(t, "")
	work := fx.repos + "/work"
	count := 0
	for _, row := range gitTree(t, work, "-r", "HEAD") {
		if row.kind != "blob" {
			continue
		}
		count++
		content := gitBytes(t, work, "cat-file", "blob", row.id)
		data, _, err := client.Repositories.Blob(workProject, row.id)
		if err != nil {
			t.Fatalf("%s: %v", row.path, err)
		}
		var blob struct {
			Size     int64  `json:"size"`
			Encoding string `json:"encoding"`
			Content  string `json:"content"`
			SHA      string `json:"sha"`
		}
		if err := json.Unmarshal(data, &blob); err != nil {
			t.Fatalf("%s: %v %s", row.path, err, data)
		}
		decoded, err := base64.StdEncoding.Strict().DecodeString(blob.Content)
		if err != nil || blob.SHA != row.id || blob.Size != int64(len(content)) || blob.Encoding != "base64" || !bytes.Equal(decoded, content) {
			t.Fatalf("%s: %+v", row.path, blob)
		}
		raw, _, err := client.Repositories.RawBlobContent(dotProject, row.id)
		if err != nil || !bytes.Equal(raw, content) {
			t.Fatalf("%s raw: %v %q", row.path, err, raw)
		}
	}
	if count < 8 {
		t.Fatalf("only %d blobs", count)
	}
	sha := git(t, fx.bigRepo, "rev-parse", "HEAD:big.bin")
	raw, _, err := client.Repositories.RawBlobContent(bigProject, sha)
	if err != nil || !bytes.Equal(raw, bigBinary) {
		t.Fatalf("big raw blob: %v, %d bytes", err, len(raw))
	}
	if _, _, err := client.Repositories.Blob(workProject, strings.Repeat("0", 40)); !errors.Is(err, gitlab.ErrNotFound) {
		t.Fatalf("missing blob: %v", err)
	}
}

func TestClientContributors(t *testing.T) {
	client := newClient(t, "")
	want := map[string]int64{}
	for _, email := range strings.Split(git(t, fx.repos+"/work", "log", "--no-merges", "--format=%ae", "main"), "\n") {
		want[email]++
	}
	opt := &gitlab.ListContributorsOptions{ListOptions: gitlab.ListOptions{PerPage: 2}}
	contributors, err := scan(func(o ...gitlab.RequestOptionFunc) ([]*gitlab.Contributor, *gitlab.Response, error) {
		return client.Repositories.Contributors(workProject, opt, o...)
	})
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]int64{}
	for _, c := range contributors {
		got[c.Email] = c.Commits
		if c.Additions != 0 || c.Deletions != 0 || c.Name == "" {
			t.Fatalf("contributor %+v", c)
		}
	}
	if fmt.Sprint(got) != fmt.Sprint(want) || len(contributors) != len(want) {
		t.Fatalf("contributors %v, git says %v", got, want)
	}
	byName, _, err := client.Repositories.Contributors(workProject, &gitlab.ListContributorsOptions{
		OrderBy: gitlab.Ptr("name"), Sort: gitlab.Ptr("desc"),
	})
	if err != nil || len(byName) != len(want) {
		t.Fatalf("by name: %v %v", byName, err)
	}
	for i := 1; i < len(byName); i++ {
		if strings.ToLower(byName[i-1].Name) < strings.ToLower(byName[i].Name) {
			t.Fatalf("not by name, descending: %v", byName)
		}
	}
}

func TestClientMergeBase(t *testing.T) {
	client := newClient(t, "")
	work := fx.repos + "/work"
	for _, refs := range [][]string{{"main", "feature"}, {"feature", "v1.0.0"}, {"main", "feature", "light"}} {
		want := git(t, work, append([]string{"merge-base"}, refs...)...)
		commit, _, err := client.Repositories.MergeBase(dotProject, &gitlab.MergeBaseOptions{Ref: gitlab.Ptr(refs)})
		if err != nil {
			t.Fatalf("%v: %v", refs, err)
		}
		date, err := time.Parse(time.RFC3339, git(t, work, "show", "-s", "--format=%aI", want))
		if err != nil {
			t.Fatal(err)
		}
		if commit.ID != want || commit.ShortID != want[:8] || commit.AuthoredDate == nil ||
			!commit.AuthoredDate.Equal(date) || commit.Title != git(t, work, "show", "-s", "--format=%s", want) {
			t.Fatalf("%v: %s %s %v %q, want %s authored %v", refs, commit.ID, commit.ShortID, commit.AuthoredDate, commit.Title, want, date)
		}
	}
	if _, _, err := client.Repositories.MergeBase(workProject, &gitlab.MergeBaseOptions{Ref: gitlab.Ptr([]string{"main", "orphan"})}); !errors.Is(err, gitlab.ErrNotFound) {
		t.Fatalf("no common ancestor: %v", err)
	}
	_, response, err := client.Repositories.MergeBase(workProject, &gitlab.MergeBaseOptions{Ref: gitlab.Ptr([]string{"main"})})
	if err == nil || response.StatusCode != 400 {
		t.Fatalf("one ref: %v %v", response, err)
	}
}

// --- archive, compare and changelog ------------------------------------------------------------

type archiveEntry struct {
	name, linkname string
	mode           int64
	typeflag       byte
	content        string
}

// tarEntries lists a tar stream's entries with their first path component removed, and the
// comment of its pax global header (git archive puts the commit id there).
func tarEntries(t *testing.T, data []byte) (map[string]archiveEntry, string) {
	t.Helper()
	entries := map[string]archiveEntry{}
	comment := ""
	reader := tar.NewReader(bytes.NewReader(data))
	for {
		header, err := reader.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatalf("tar: %v", err)
		}
		if header.Typeflag == tar.TypeXGlobalHeader {
			comment = header.PAXRecords["comment"]
			continue
		}
		content, _ := io.ReadAll(reader)
		_, rest, _ := strings.Cut(header.Name, "/")
		entries[rest] = archiveEntry{rest, header.Linkname, header.Mode, header.Typeflag, string(content)}
	}
	return entries, comment
}

func TestClientArchive(t *testing.T) {
	client := newClient(t, "")
	work := fx.repos + "/work"
	sha := git(t, work, "rev-parse", "main")
	data, _, err := client.Repositories.Archive(workProject, &gitlab.ArchiveOptions{Format: gitlab.Ptr("tar"), SHA: gitlab.Ptr("main")})
	if err != nil {
		t.Fatal(err)
	}
	got, comment := tarEntries(t, data)
	want, wantComment := tarEntries(t, gitBytes(t, work, "archive", "--format=tar", "--prefix=x/", "main"))
	if comment != wantComment || comment != sha {
		t.Fatalf("pax comment %q, git's %q", comment, wantComment)
	}
	if len(got) != len(want) {
		t.Fatalf("%d entries, git archive has %d", len(got), len(want))
	}
	for name, entry := range want {
		if got[name] != entry {
			t.Fatalf("%q: %+v, git archive has %+v", name, got[name], entry)
		}
	}
	again, _, err := client.Repositories.Archive(workProject, &gitlab.ArchiveOptions{Format: gitlab.Ptr("tar"), SHA: gitlab.Ptr("main")})
	if err != nil || !bytes.Equal(again, data) {
		t.Fatalf("a second download differs: %v", err)
	}
	var streamed bytes.Buffer
	if _, err := client.Repositories.StreamArchive(dotProject, &streamed, &gitlab.ArchiveOptions{Format: gitlab.Ptr("tar.gz"), SHA: gitlab.Ptr("main")}); err != nil {
		t.Fatal(err)
	}
	unzipped, err := gzip.NewReader(&streamed)
	if err != nil {
		t.Fatal(err)
	}
	inner, err := io.ReadAll(unzipped)
	if err != nil {
		t.Fatal(err)
	}
	if entries, _ := tarEntries(t, inner); len(entries) != len(want) {
		t.Fatalf("tar.gz: %d entries, want %d", len(entries), len(want))
	}
	zipped, _, err := client.Repositories.Archive(workProject, &gitlab.ArchiveOptions{Format: gitlab.Ptr("zip"), SHA: gitlab.Ptr("v1.0.0")})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := zip.NewReader(bytes.NewReader(zipped), int64(len(zipped))); err != nil {
		t.Fatalf("zip: %v", err)
	}
}

func TestClientCompare(t *testing.T) {
	client := newClient(t, "")
	work := fx.repos + "/work"
	compare, _, err := client.Repositories.Compare(dotProject, &gitlab.CompareOptions{From: gitlab.Ptr("v1.0.0"), To: gitlab.Ptr("main")})
	if err != nil {
		t.Fatal(err)
	}
	wantCommits := strings.Fields(git(t, work, "rev-list", "v1.0.0..main"))
	gotCommits := map[string]bool{}
	for _, c := range compare.Commits {
		gotCommits[c.ID] = true
		if c.AuthoredDate == nil || c.CommittedDate == nil {
			t.Fatalf("commit without dates: %+v", c)
		}
	}
	if len(compare.Commits) != len(wantCommits) {
		t.Fatalf("%d commits, git rev-list has %d", len(compare.Commits), len(wantCommits))
	}
	for _, id := range wantCommits {
		if !gotCommits[id] {
			t.Fatalf("commit %s missing", id)
		}
	}
	if compare.Commit == nil || compare.Commit.ID != git(t, work, "rev-parse", "main") || compare.CompareSameRef || compare.CompareTimeout {
		t.Fatalf("compare: %+v", compare)
	}
	wantPaths := strings.Fields(git(t, work, "diff", "--name-only", "v1.0.0...main"))
	var gotPaths []string
	for _, d := range compare.Diffs {
		gotPaths = append(gotPaths, d.NewPath)
		if d.Diff == "" {
			t.Fatalf("empty diff for %s", d.NewPath)
		}
	}
	sort.Strings(gotPaths)
	sort.Strings(wantPaths)
	if strings.Join(gotPaths, "\n") != strings.Join(wantPaths, "\n") {
		t.Fatalf("diff paths %v, git diff has %v", gotPaths, wantPaths)
	}
	same, _, err := client.Repositories.Compare(workProject, &gitlab.CompareOptions{From: gitlab.Ptr("main"), To: gitlab.Ptr("main")})
	if err != nil || !same.CompareSameRef || len(same.Commits) != 0 {
		t.Fatalf("same ref: %+v %v", same, err)
	}
	if _, _, err := client.Repositories.Compare(workProject, &gitlab.CompareOptions{From: gitlab.Ptr("nope"), To: gitlab.Ptr("main")}); !errors.Is(err, gitlab.ErrNotFound) {
		t.Fatalf("unknown ref: %v", err)
	}
}

func TestClientChangelog(t *testing.T) {
	// A project of its own on a bare clone: AddChangelog commits to it.
	clone := filepath.Join(t.TempDir(), "changelog.git")
	if _, err := gitIn(filepath.Dir(clone), "clone", "-q", "--bare", fx.repos+"/bare.git", clone); err != nil {
		t.Fatal(err)
	}
	path := fmt.Sprintf("fx/changelog%d", time.Now().UnixNano()%1e6)
	if err := fx.admin(map[string]any{"command": "project_add", "path": path, "repo": clone, "visibility": "public"}, nil); err != nil {
		t.Fatal(err)
	}
	client := newClient(t, fx.token)
	data, _, err := client.Repositories.GenerateChangelogData(path, gitlab.GenerateChangelogDataOptions{
		Version: gitlab.Ptr("2.0.0"),
		Date:    gitlab.Ptr(gitlab.ISOTime(time.Date(2024, 1, 2, 0, 0, 0, 0, time.UTC))),
	})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(data.Notes, "## 2.0.0 (2024-01-02)") || !strings.Contains(data.Notes, "Feature step 1") ||
		!strings.Contains(data.Notes, "Feature step 3") || strings.Contains(data.Notes, "Add files of every kind") {
		t.Fatalf("notes:\n%s", data.Notes)
	}
	before := git(t, clone, "rev-parse", "main")
	response, err := client.Repositories.AddChangelog(path, &gitlab.AddChangelogOptions{
		Version: gitlab.Ptr("2.0.0"), Branch: gitlab.Ptr("main"),
		Date: gitlab.Ptr(gitlab.ISOTime(time.Date(2024, 1, 2, 0, 0, 0, 0, time.UTC))),
	})
	if err != nil || response.StatusCode != 200 {
		t.Fatalf("AddChangelog: %v %v", response, err)
	}
	if after := git(t, clone, "rev-parse", "main"); after == before || git(t, clone, "rev-parse", "main~1") != before {
		t.Fatalf("main moved from %s to %s, not by one commit", before, after)
	}
	if file := git(t, clone, "show", "main:CHANGELOG.md"); !strings.Contains(file, "## 2.0.0 (2024-01-02)") {
		t.Fatalf("CHANGELOG.md:\n%s", file)
	}
	// A job token of the project may read the notes.
	var job struct {
		Token string `json:"token"`
	}
	if err := fx.admin(map[string]any{"command": "job_token_add", "project": path}, &job); err != nil {
		t.Fatal(err)
	}
	jobClient, err := gitlab.NewJobClient(job.Token, gitlab.WithBaseURL(fx.url))
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := jobClient.Repositories.GenerateChangelogData(path, gitlab.GenerateChangelogDataOptions{Version: gitlab.Ptr("2.0.1")}); err != nil {
		t.Fatalf("job token: %v", err)
	}
}

// --- repository files ---------------------------------------------------------------------

func TestClientRepositoryFiles(t *testing.T) {
	reader := newClient(t, "")
	work := fx.repos + "/work"
	for _, row := range gitTree(t, work, "-r", "HEAD") {
		// A name that is not UTF-8 cannot be sent in a URL's path as text.
		if row.kind != "blob" || !utf8.ValidString(row.path) || strings.ContainsAny(row.path, "\"\\\ufffd") {
			continue
		}
		content := gitBytes(t, work, "cat-file", "blob", row.id)
		file, _, err := reader.RepositoryFiles.GetFile(workProject, row.path, &gitlab.GetFileOptions{Ref: gitlab.Ptr("HEAD")})
		if err != nil {
			t.Fatalf("%s: %v", row.path, err)
		}
		decoded, _ := base64.StdEncoding.DecodeString(file.Content)
		last := git(t, work, "log", "-1", "--format=%H", "HEAD", "--", row.path)
		if !bytes.Equal(decoded, content) || file.BlobID != row.id || file.LastCommitID != last || file.Ref != "HEAD" ||
			file.FilePath != row.path || file.Size != int64(len(content)) {
			t.Fatalf("%s: %+v", row.path, file)
		}
		meta, _, err := reader.RepositoryFiles.GetFileMetaData(workProject, row.path, &gitlab.GetFileMetaDataOptions{Ref: gitlab.Ptr("HEAD")})
		if err != nil || meta.BlobID != row.id || meta.LastCommitID != last || meta.SHA256 != file.SHA256 || meta.Size != file.Size {
			t.Fatalf("%s HEAD: %v %+v", row.path, err, meta)
		}
		raw, _, err := reader.RepositoryFiles.GetRawFile(workProject, row.path, &gitlab.GetRawFileOptions{Ref: gitlab.Ptr("HEAD")})
		if err != nil || !bytes.Equal(raw, content) {
			t.Fatalf("%s raw: %v", row.path, err)
		}
	}
	if _, _, err := reader.RepositoryFiles.GetFile(workProject, "no/such/file", &gitlab.GetFileOptions{Ref: gitlab.Ptr("HEAD")}); !errors.Is(err, gitlab.ErrNotFound) {
		t.Fatalf("missing file: %v", err)
	}
	blame, _, err := reader.RepositoryFiles.GetFileBlame(workProject, "README.md", &gitlab.GetFileBlameOptions{Ref: gitlab.Ptr("HEAD")})
	if err != nil || len(blame) == 0 || blame[0].Commit.ID != git(t, work, "blame", "--porcelain", "-L1,1", "HEAD", "--", "README.md")[:40] {
		t.Fatalf("blame: %v %+v", err, blame)
	}

	// Writes, on a project of its own (a bare clone), as the administrator.
	clone := filepath.Join(t.TempDir(), "files.git")
	if _, err := gitIn(filepath.Dir(clone), "clone", "-q", "--bare", fx.repos+"/bare.git", clone); err != nil {
		t.Fatal(err)
	}
	path := fmt.Sprintf("fx/files%d", time.Now().UnixNano()%1e6)
	if err := fx.admin(map[string]any{"command": "project_add", "path": path, "repo": clone, "visibility": "public"}, nil); err != nil {
		t.Fatal(err)
	}
	writer := newClient(t, fx.token)
	info, _, err := writer.RepositoryFiles.CreateFile(path, "docs/new.md", &gitlab.CreateFileOptions{
		Branch: gitlab.Ptr("main"), Content: gitlab.Ptr("new\n"), CommitMessage: gitlab.Ptr("Add docs/new.md"),
	})
	if err != nil || info.FilePath != "docs/new.md" || info.Branch != "main" {
		t.Fatalf("create: %v %+v", err, info)
	}
	created := git(t, clone, "rev-parse", "main")
	info, _, err = writer.RepositoryFiles.UpdateFile(path, "docs/new.md", &gitlab.UpdateFileOptions{
		Branch: gitlab.Ptr("main"), Content: gitlab.Ptr("bmV3ZXIK"), Encoding: gitlab.Ptr("base64"),
		CommitMessage: gitlab.Ptr("Update docs/new.md"), LastCommitID: gitlab.Ptr(created),
	})
	if err != nil || info.Branch != "main" {
		t.Fatalf("update: %v %+v", err, info)
	}
	if got := git(t, clone, "show", "main:docs/new.md"); got != "newer" {
		t.Fatalf("content after update: %q", got)
	}
	_, _, err = writer.RepositoryFiles.UpdateFile(path, "docs/new.md", &gitlab.UpdateFileOptions{
		Branch: gitlab.Ptr("main"), Content: gitlab.Ptr("x"), CommitMessage: gitlab.Ptr("x"), LastCommitID: gitlab.Ptr(created),
	})
	var stale *gitlab.ErrorResponse
	if !errors.As(err, &stale) || stale.Response.StatusCode != 400 || !strings.Contains(stale.Message, "changed since you started editing it") {
		t.Fatalf("stale update: %v", err)
	}
	if _, err := writer.RepositoryFiles.DeleteFile(path, "docs/new.md", &gitlab.DeleteFileOptions{
		Branch: gitlab.Ptr("main"), CommitMessage: gitlab.Ptr("Remove docs/new.md"),
	}); err != nil {
		t.Fatalf("delete: %v", err)
	}
	if log := git(t, clone, "log", "-3", "--format=%s", "main"); log != "Remove docs/new.md\nUpdate docs/new.md\nAdd docs/new.md" {
		t.Fatalf("log:\n%s", log)
	}
	if _, err := gitIn(clone, "fsck", "--strict"); err != nil {
		t.Fatalf("fsck: %v", err)
	}
}

// --- commits ------------------------------------------------------------------------------

func TestClientCommits(t *testing.T) {
	client := newClient(t, "")
	work := fx.repos + "/work"
	// ListCommits followed page by page is git log, each page full until the last.
	for _, perPage := range []int64{1, 3, 100} {
		opt := &gitlab.ListCommitsOptions{ListOptions: gitlab.ListOptions{PerPage: perPage}}
		commits, err := scan(func(o ...gitlab.RequestOptionFunc) ([]*gitlab.Commit, *gitlab.Response, error) {
			list, response, err := client.Commits.ListCommits(workProject, opt, o...)
			if err == nil && response.TotalItems != 0 {
				t.Errorf("the commits list has a total: %d", response.TotalItems)
			}
			if err == nil && (response.NextPage != 0) != (len(list) == int(perPage)) {
				t.Errorf("next page %d after a page of %d at per_page %d", response.NextPage, len(list), perPage)
			}
			return list, response, err
		})
		if err != nil {
			t.Fatal(err)
		}
		want := strings.Fields(git(t, work, "log", "--format=%H", "main"))
		var got []string
		for _, c := range commits {
			got = append(got, c.ID)
		}
		if strings.Join(got, " ") != strings.Join(want, " ") {
			t.Fatalf("per_page %d: %v, git log has %v", perPage, got, want)
		}
	}
	// Filters the client sends: path, author, ref_name, with_stats.
	opt := &gitlab.ListCommitsOptions{
		ListOptions: gitlab.ListOptions{PerPage: 100},
		RefName:     gitlab.Ptr("feature"), Path: gitlab.Ptr("README.md"), WithStats: gitlab.Ptr(true),
	}
	filtered, _, err := client.Commits.ListCommits(workProject, opt)
	if err != nil {
		t.Fatal(err)
	}
	want := strings.Fields(git(t, work, "log", "--format=%H", "feature", "--", "README.md"))
	if len(filtered) != len(want) || len(want) == 0 {
		t.Fatalf("path filter: %d commits, git log has %d", len(filtered), len(want))
	}
	for i, c := range filtered {
		if c.ID != want[i] || c.Stats == nil {
			t.Fatalf("path filter: commit %d is %+v, want %s with stats", i, c, want[i])
		}
	}
	// GetCommit by branch: every field against git.
	commit, _, err := client.Commits.GetCommit(workProject, "main", nil)
	if err != nil {
		t.Fatal(err)
	}
	if commit.ID != git(t, work, "rev-parse", "main") || commit.ShortID != commit.ID[:8] ||
		commit.AuthorName != git(t, work, "log", "-1", "--format=%an", "main") ||
		commit.AuthorEmail != git(t, work, "log", "-1", "--format=%ae", "main") ||
		commit.AuthoredDate == nil || commit.AuthoredDate.Unix() != mustInt(t, git(t, work, "log", "-1", "--format=%at", "main")) ||
		commit.CommittedDate == nil || commit.CommittedDate.Unix() != mustInt(t, git(t, work, "log", "-1", "--format=%ct", "main")) ||
		strings.Join(commit.ParentIDs, " ") != git(t, work, "log", "-1", "--format=%P", "main") ||
		commit.Stats == nil || commit.Status != nil || commit.LastPipeline != nil || commit.ProjectID == 0 ||
		!strings.HasSuffix(commit.WebURL, "/fx/work/-/commit/"+commit.ID) {
		t.Fatalf("GetCommit(main): %+v", commit)
	}
	if _, _, err := client.Commits.GetCommit(workProject, "no-such-ref", nil); !errors.Is(err, gitlab.ErrNotFound) {
		t.Fatalf("unknown commit: %v", err)
	}
	// GetCommitDiff: the files git diff names against the first parent.
	diffs, _, err := client.Commits.GetCommitDiff(workProject, "v1.0.0", &gitlab.GetCommitDiffOptions{ListOptions: gitlab.ListOptions{PerPage: 100}})
	if err != nil {
		t.Fatal(err)
	}
	names := strings.Fields(git(t, work, "diff-tree", "--no-commit-id", "--name-only", "-r", "-M", "--root", "v1.0.0"))
	if len(diffs) != len(names) || len(names) == 0 {
		t.Fatalf("diff of v1.0.0: %d files, git has %v", len(diffs), names)
	}
	// GetCommitRefs: git branch --contains, then git tag --contains.
	refs, _, err := client.Commits.GetCommitRefs(workProject, "v1.0.0", &gitlab.GetCommitRefsOptions{ListOptions: gitlab.ListOptions{PerPage: 100}})
	if err != nil {
		t.Fatal(err)
	}
	var wantRefs []string
	for _, b := range strings.Fields(git(t, work, "branch", "--contains", "v1.0.0", "--format=%(refname:short)")) {
		wantRefs = append(wantRefs, "branch:"+b)
	}
	for _, tag := range strings.Fields(git(t, work, "tag", "--contains", "v1.0.0")) {
		wantRefs = append(wantRefs, "tag:"+tag)
	}
	var gotRefs []string
	for _, r := range refs {
		gotRefs = append(gotRefs, r.Type+":"+r.Name)
	}
	if strings.Join(gotRefs, " ") != strings.Join(wantRefs, " ") {
		t.Fatalf("refs %v, git has %v", gotRefs, wantRefs)
	}
}

func mustInt(t *testing.T, text string) int64 {
	t.Helper()
	var n int64
	if _, err := fmt.Sscan(text, &n); err != nil {
		t.Fatal(err)
	}
	return n
}

func TestClientCreateCommit(t *testing.T) {
	clone := filepath.Join(t.TempDir(), "commits.git")
	if _, err := gitIn(filepath.Dir(clone), "clone", "-q", "--bare", fx.repos+"/bare.git", clone); err != nil {
		t.Fatal(err)
	}
	path := fmt.Sprintf("fx/commits%d", time.Now().UnixNano()%1e6)
	if err := fx.admin(map[string]any{"command": "project_add", "path": path, "repo": clone, "visibility": "public"}, nil); err != nil {
		t.Fatal(err)
	}
	client := newClient(t, fx.token)
	before := git(t, clone, "rev-parse", "main")
	commit, _, err := client.Commits.CreateCommit(path, &gitlab.CreateCommitOptions{
		Branch: gitlab.Ptr("main"), CommitMessage: gitlab.Ptr("From the Go client"),
		Actions: []*gitlab.CommitActionOptions{
			{Action: gitlab.Ptr(gitlab.FileCreate), FilePath: gitlab.Ptr("go/new.txt"), Content: gitlab.Ptr("new\n")},
			{Action: gitlab.Ptr(gitlab.FileMove), PreviousPath: gitlab.Ptr("README.md"), FilePath: gitlab.Ptr("docs/README.md")},
		},
	})
	if err != nil || commit.ID != git(t, clone, "rev-parse", "main") || len(commit.ParentIDs) != 1 || commit.ParentIDs[0] != before {
		t.Fatalf("CreateCommit: %v %+v", err, commit)
	}
	if got := git(t, clone, "diff-tree", "-r", "-M", "--name-status", "--no-commit-id", "main"); got != "R100\tREADME.md\tdocs/README.md\nA\tgo/new.txt" {
		t.Fatalf("changes:\n%s", got)
	}
	anonymous := newClient(t, "")
	_, resp, err := anonymous.Commits.CreateCommit(path, &gitlab.CreateCommitOptions{
		Branch: gitlab.Ptr("main"), CommitMessage: gitlab.Ptr("x"),
		Actions: []*gitlab.CommitActionOptions{{Action: gitlab.Ptr(gitlab.FileCreate), FilePath: gitlab.Ptr("x")}},
	})
	if err == nil || resp == nil || resp.StatusCode != 401 {
		t.Fatalf("anonymous: %v %v", resp, err)
	}
}

// --- projects, users, branches, tags and protected branches (issue 28) ----------------------

// refsProject registers a bare clone of the fixture repository as a project of its own, so
// that the writes of one test change nothing another reads; its path and git directory.
func refsProject(t *testing.T, name string) (string, string) {
	t.Helper()
	dir := filepath.Join(t.TempDir(), name+".git")
	git(t, filepath.Join(fx.repos, "work"), "clone", "-q", "--bare", "--no-local", ".", dir)
	path := "fx/" + name
	if err := fx.admin(map[string]any{"command": "project_add", "path": path, "repo": dir, "visibility": "public"}, nil); err != nil {
		t.Fatal(err)
	}
	return path, dir
}

func TestClientCurrentUserAndProjects(t *testing.T) {
	client := newClient(t, fx.token)
	user, _, err := client.Users.CurrentUser()
	if err != nil {
		t.Fatal(err)
	}
	if user.Username != "root" || !user.IsAdmin || user.WebURL != fx.url+"/root" {
		t.Fatalf("current user: %+v", user)
	}
	if _, response, err := newClient(t, "").Users.CurrentUser(); err == nil || response.StatusCode != 401 {
		t.Fatalf("anonymous: %v %v", response, err)
	}
	project, _, err := client.Projects.GetProject(workProject, nil)
	if err != nil {
		t.Fatal(err)
	}
	if project.HTTPURLToRepo != fx.url+"/fx/work.git" || project.DefaultBranch != "main" || project.EmptyRepo ||
		project.Archived || project.Namespace == nil || project.Namespace.FullPath != "fx" || project.ForkedFromProject != nil {
		t.Fatalf("project: %+v", project)
	}
	// Every project the administrator sees, page by page as the client follows X-Next-Page.
	var paths []string
	options := &gitlab.ListProjectsOptions{ListOptions: gitlab.ListOptions{PerPage: 1}, OrderBy: gitlab.Ptr("id"), Sort: gitlab.Ptr("asc")}
	for {
		projects, response, err := client.Projects.ListProjects(options)
		if err != nil {
			t.Fatal(err)
		}
		for _, p := range projects {
			paths = append(paths, p.PathWithNamespace)
		}
		if response.NextPage == 0 {
			break
		}
		options.Page = response.NextPage
	}
	if len(paths) < 3 || paths[0] != workProject || paths[1] != dotProject || paths[2] != bigProject {
		t.Fatalf("listed: %v", paths)
	}
	mine, _, err := client.Projects.ListProjects(&gitlab.ListProjectsOptions{Membership: gitlab.Ptr(true)})
	if err != nil || len(mine) != 0 {
		t.Fatalf("the administrator is a member of nothing: %v %v", mine, err)
	}
}

func TestClientBranches(t *testing.T) {
	path, dir := refsProject(t, "go-branches")
	for _, name := range []string{"a-1", "a-2", "b/1", "b/2"} {
		git(t, dir, "branch", name, "main")
	}
	client := newClient(t, fx.token)
	var names []string
	options := &gitlab.ListBranchesOptions{ListOptions: gitlab.ListOptions{PerPage: 2}}
	for {
		branches, response, err := client.Branches.ListBranches(path, options)
		if err != nil {
			t.Fatal(err)
		}
		for _, b := range branches {
			names = append(names, b.Name+" "+b.Commit.ID)
		}
		if response.NextPage == 0 {
			break
		}
		options.Page = response.NextPage
	}
	want := strings.Split(git(t, dir, "for-each-ref", "--format=%(refname:short) %(objectname)", "refs/heads"), "\n")
	if strings.Join(names, "\n") != strings.Join(want, "\n") {
		t.Fatalf("listed %v, git lists %v", names, want)
	}
	main, _, err := client.Branches.GetBranch(path, "main")
	if err != nil || !main.Default || !main.Protected || main.Merged || !main.CanPush {
		t.Fatalf("main: %+v %v", main, err)
	}
	created, response, err := client.Branches.CreateBranch(path, &gitlab.CreateBranchOptions{Branch: gitlab.Ptr("go/new"), Ref: gitlab.Ptr("feature")})
	if err != nil || response.StatusCode != 201 || created.Commit.ID != git(t, dir, "rev-parse", "feature") {
		t.Fatalf("create: %+v %v", created, err)
	}
	if got := git(t, dir, "rev-parse", "refs/heads/go/new"); got != created.Commit.ID {
		t.Fatalf("git sees %s", got)
	}
	if _, _, err := client.Branches.GetBranch(path, "nope"); !errors.Is(err, gitlab.ErrNotFound) {
		t.Fatalf("missing branch: %v", err)
	}
	if response, err := client.Branches.DeleteBranch(path, "go/new"); err != nil || response.StatusCode != 204 {
		t.Fatalf("delete: %v %v", response, err)
	}
	if out, _ := gitIn(dir, "for-each-ref", "refs/heads/go"); len(out) != 0 {
		t.Fatalf("still there: %s", out)
	}
	if _, err := client.Branches.DeleteBranch(path, "main"); err == nil || !strings.Contains(err.Error(), "default branch") {
		t.Fatalf("deleting the default branch: %v", err)
	}
}

func TestClientTags(t *testing.T) {
	path, dir := refsProject(t, "go-tags")
	client := newClient(t, fx.token)
	tag, response, err := client.Tags.CreateTag(path, &gitlab.CreateTagOptions{TagName: gitlab.Ptr("v9.9.9"), Ref: gitlab.Ptr("main"), Message: gitlab.Ptr("Nines")})
	if err != nil || response.StatusCode != 201 || tag.Message != "Nines" || tag.Commit.ID != git(t, dir, "rev-parse", "main") {
		t.Fatalf("create: %+v %v", tag, err)
	}
	if kind := git(t, dir, "cat-file", "-t", "v9.9.9"); kind != "tag" || tag.Target != git(t, dir, "rev-parse", "v9.9.9") {
		t.Fatalf("git sees a %s, the API %s", kind, tag.Target)
	}
	tags, _, err := client.Tags.ListTags(path, &gitlab.ListTagsOptions{OrderBy: gitlab.Ptr("name"), Sort: gitlab.Ptr("asc")})
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, tag := range tags {
		names = append(names, tag.Name)
	}
	if want := git(t, dir, "for-each-ref", "--format=%(refname:short)", "refs/tags"); strings.Join(names, "\n") != want {
		t.Fatalf("listed %v, git lists %q", names, want)
	}
	got, _, err := client.Tags.GetTag(path, "v1.0.0")
	if err != nil || got.Message != "Release 1.0.0" || got.CreatedAt == nil {
		t.Fatalf("get: %+v %v", got, err)
	}
	if response, err := client.Tags.DeleteTag(path, "v9.9.9"); err != nil || response.StatusCode != 204 {
		t.Fatalf("delete: %v %v", response, err)
	}
	if _, _, err := client.Tags.GetTag(path, "v9.9.9"); !errors.Is(err, gitlab.ErrNotFound) {
		t.Fatalf("deleted tag: %v", err)
	}
}

func TestClientProtectedBranches(t *testing.T) {
	path, _ := refsProject(t, "go-protected")
	client := newClient(t, fx.token)
	protected, _, err := client.ProtectedBranches.ListProtectedBranches(path, nil)
	if err != nil || len(protected) != 1 || protected[0].Name != "main" || protected[0].PushAccessLevels[0].AccessLevel != gitlab.MaintainerPermissions {
		t.Fatalf("list: %v %v", protected, err)
	}
	rule, response, err := client.ProtectedBranches.ProtectRepositoryBranches(path, &gitlab.ProtectRepositoryBranchesOptions{
		Name:            gitlab.Ptr("release/*"),
		PushAccessLevel: gitlab.Ptr(gitlab.NoPermissions),
		AllowForcePush:  gitlab.Ptr(true),
	})
	if err != nil || response.StatusCode != 201 || rule.Name != "release/*" || !rule.AllowForcePush {
		t.Fatalf("protect: %+v %v", rule, err)
	}
	// No one may create a branch the rule protects, the administrator included.
	_, _, err = client.Branches.CreateBranch(path, &gitlab.CreateBranchOptions{Branch: gitlab.Ptr("release/1"), Ref: gitlab.Ptr("main")})
	if err == nil || !strings.Contains(err.Error(), "not allowed to create protected branches") {
		t.Fatalf("protected create: %v", err)
	}
	if response, err := client.ProtectedBranches.UnprotectRepositoryBranches(path, "release/*"); err != nil || response.StatusCode != 204 {
		t.Fatalf("unprotect: %v %v", response, err)
	}
	if _, response, err := client.Branches.CreateBranch(path, &gitlab.CreateBranchOptions{Branch: gitlab.Ptr("release/1"), Ref: gitlab.Ptr("main")}); err != nil || response.StatusCode != 201 {
		t.Fatalf("unprotected create: %v %v", response, err)
	}
}

func TestTypedBranchesAndProjects(t *testing.T) {
	path, dir := refsProject(t, "go-typed")
	auth := forgecore.Auth{PrivateToken: fx.token}
	response, err := fx.core.BranchCreate(auth, map[string]any{"project": path, "branch": "typed", "ref": "main"})
	if err != nil {
		t.Fatal(err)
	}
	body, _ := response.Bytes()
	if response.Status != 201 || git(t, dir, "rev-parse", "typed") != git(t, dir, "rev-parse", "main") {
		t.Fatalf("%d %s", response.Status, body)
	}
	for _, call := range []func() (*forgecore.Response, error){
		func() (*forgecore.Response, error) {
			return fx.core.BranchesList(auth, map[string]any{"project": path})
		},
		func() (*forgecore.Response, error) { return fx.core.TagsList(auth, map[string]any{"project": path}) },
		func() (*forgecore.Response, error) { return fx.core.ProjectGet(auth, map[string]any{"project": path}) },
		func() (*forgecore.Response, error) { return fx.core.ProjectsList(auth, nil) },
		func() (*forgecore.Response, error) { return fx.core.CurrentUser(auth, nil) },
		func() (*forgecore.Response, error) {
			return fx.core.ProtectedBranchesList(auth, map[string]any{"project": path})
		},
	} {
		response, err := call()
		if err != nil || response.Status != 200 {
			t.Fatalf("%v %v", response, err)
		}
		response.Close()
	}
}
