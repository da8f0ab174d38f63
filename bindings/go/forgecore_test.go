package forgecore_test

// The Core: opening (ABI version, refused configurations), the raw door and the typed doors
// agreeing, streamed bodies, and closing with responses still out.

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"runtime"
	"strings"
	"sync"
	"testing"

	"forgecore.dev/forgecore"
)

func TestOpenRefusesAnUnknownConfigurationKey(t *testing.T) {
	_, err := forgecore.Open(forgecore.Config{DataDir: t.TempDir(), Limits: json.RawMessage(`{"no_such_limit": 1}`)})
	var refused *forgecore.Error
	if !errors.As(err, &refused) || refused.Status != 400 || !strings.Contains(refused.Error(), "no_such_limit") {
		t.Fatalf("Open: %v", err)
	}
}

func TestMaxBodyBytesFollowsTheConfiguration(t *testing.T) {
	if fx.core.MaxBodyBytes() != forgecore.DefaultMaxBodyBytes {
		t.Fatalf("default: %d", fx.core.MaxBodyBytes())
	}
	core, err := forgecore.Open(forgecore.Config{DataDir: t.TempDir(), Limits: json.RawMessage(`{"max_body_bytes": 4194304}`)})
	if err != nil {
		t.Fatal(err)
	}
	defer core.Close()
	if core.MaxBodyBytes() != 4<<20 {
		t.Fatalf("configured: %d", core.MaxBodyBytes())
	}
	// A 2 MiB body is then read whole by the handler and accepted by the core (a 400 about
	// JSON, not a 413).
	handler := forgecore.NewHandler(core)
	body := append([]byte(`{"name":"x","base_access_level":10}`), bytes.Repeat([]byte(" "), 2<<20)...)
	recorder := httptest.NewRecorder()
	req, _ := http.NewRequest("POST", "/api/v4/member_roles", bytes.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	handler.ServeHTTP(recorder, req)
	if recorder.Code != 401 { // anonymous: the core read the body and then refused the caller
		t.Fatalf("%d %s", recorder.Code, recorder.Body)
	}
}

// OpenJSON hands the text to fc_open as it is: an unknown top-level key (which Config could
// not carry) reaches the core and is refused; limits.max_body_bytes is read from the text.
func TestOpenJSONPassesTheTextThrough(t *testing.T) {
	dir, _ := json.Marshal(t.TempDir())
	_, err := forgecore.OpenJSON([]byte(`{"data_dir": ` + string(dir) + `, "no_such_section": {}}`))
	var refused *forgecore.Error
	if !errors.As(err, &refused) || refused.Status != 400 || !strings.Contains(refused.Error(), "no_such_section") {
		t.Fatalf("OpenJSON with an unknown key: %v", err)
	}
	if _, err := forgecore.OpenJSON([]byte(`{"data_dir": ` + string(dir) + "}\x00")); !errors.Is(err, forgecore.ErrInvalidArgument) {
		t.Fatalf("OpenJSON with a NUL byte: %v", err)
	}
	core, err := forgecore.OpenJSON([]byte(`{"data_dir": ` + string(dir) + `, "limits": {"max_body_bytes": 2048}}`))
	if err != nil {
		t.Fatal(err)
	}
	defer core.Close()
	if core.MaxBodyBytes() != 2048 {
		t.Fatalf("max body bytes: %d", core.MaxBodyBytes())
	}
}

func TestDoAnswersWhatTheCoreAnswers(t *testing.T) {
	response, err := fx.core.Do("GET", "/api/v4/member_roles", http.Header{"Private-Token": {fx.token}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if response.Status != 200 || response.Streamed || response.Header.Get("Content-Type") != "application/json" {
		t.Fatalf("%d %v streamed=%v", response.Status, response.Header, response.Streamed)
	}
	body, err := response.Bytes()
	if err != nil || !json.Valid(body) {
		t.Fatalf("%v %s", err, body)
	}
	if _, err := fx.core.Do("GET", "/api/v4/version\x00", nil, nil); !errors.Is(err, forgecore.ErrInvalidArgument) {
		t.Fatalf("NUL in the target: %v", err)
	}
	// Header values with quotes, backslashes, control characters and bytes that are not
	// UTF-8 still make valid JSON for the core: the answer is a 401 for the token, not a 400.
	response, err = fx.core.Do("GET", "/api/v4/member_roles",
		http.Header{"Private-Token": {"a\"b\\c\x01\xff"}, "X-Other": {"1", "2"}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if body, _ := response.Bytes(); response.Status != 401 {
		t.Fatalf("%d %s", response.Status, body)
	}
}

func TestTypedDoorsAgreeWithTheHTTPDoor(t *testing.T) {
	auth := forgecore.Auth{PrivateToken: fx.token}
	created, err := fx.core.MemberRolesCreate(auth, map[string]any{"name": "typed door", "base_access_level": 15, "read_code": true})
	if err != nil {
		t.Fatal(err)
	}
	var role map[string]any
	if err := created.JSON(&role); err != nil || created.Status != 201 {
		t.Fatalf("create: %d %v", created.Status, err)
	}
	typed, err := fx.core.MemberRolesList(auth, nil)
	if err != nil {
		t.Fatal(err)
	}
	viaHTTP, err := fx.core.Do("GET", "/api/v4/member_roles", http.Header{"Private-Token": {fx.token}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	a, _ := typed.Bytes()
	b, _ := viaHTTP.Bytes()
	if typed.Status != 200 || !bytes.Equal(a, b) || !strings.Contains(string(a), `"typed door"`) {
		t.Fatalf("typed %d %s\nhttp %s", typed.Status, a, b)
	}
	deleted, err := fx.core.MemberRolesDelete(auth, map[string]any{"member_role_id": role["id"]})
	if err != nil || deleted.Status != 204 {
		t.Fatalf("delete: %v %v", deleted, err)
	}

	work := fx.repos + "/work"
	sha := git(t, work, "rev-parse", "HEAD:README.md")
	blob, err := fx.core.RepositoryBlob(forgecore.Auth{}, map[string]any{"project": workProject, "sha": sha})
	if err != nil {
		t.Fatal(err)
	}
	var meta struct {
		Content string `json:"content"`
		SHA     string `json:"sha"`
	}
	if err := blob.JSON(&meta); err != nil || meta.SHA != sha {
		t.Fatalf("blob: %v %+v", err, meta)
	}
	content, _ := base64.StdEncoding.DecodeString(meta.Content)
	if !bytes.Equal(content, gitBytes(t, work, "cat-file", "blob", sha)) {
		t.Fatalf("blob content %q", content)
	}
	base, err := fx.core.RepositoryMergeBase(forgecore.Auth{}, map[string]any{"project": workProject, "refs": []string{"main", "feature"}})
	if err != nil {
		t.Fatal(err)
	}
	var commit struct{ ID string }
	if err := base.JSON(&commit); err != nil || commit.ID != git(t, work, "merge-base", "main", "feature") {
		t.Fatalf("merge base: %v %+v", err, commit)
	}
	// The commits family: list, one commit, its diff, refs and sequence.
	list, err := fx.core.RepositoryCommits(forgecore.Auth{}, map[string]any{"project": workProject, "ref_name": "main~1", "per_page": 2})
	if err != nil {
		t.Fatal(err)
	}
	var listed []struct{ ID string }
	if err := list.JSON(&listed); err != nil || len(listed) != 2 || listed[0].ID != git(t, work, "rev-parse", "main~1") ||
		list.Header.Get("X-Next-Page") != "2" || list.Header.Get("X-Total") != "" {
		t.Fatalf("commits: %v %+v %v", err, listed, list.Header)
	}
	one, err := fx.core.RepositoryCommit(forgecore.Auth{}, map[string]any{"project": workProject, "sha": "v1.0.0"})
	if err != nil {
		t.Fatal(err)
	}
	var detail struct {
		ID    string
		Stats *struct{ Total int }
	}
	if err := one.JSON(&detail); err != nil || detail.ID != git(t, work, "rev-parse", "v1.0.0^{commit}") || detail.Stats == nil {
		t.Fatalf("commit: %v %+v", err, detail)
	}
	for _, call := range []func(forgecore.Auth, any) (*forgecore.Response, error){
		fx.core.RepositoryCommitDiff, fx.core.RepositoryCommitRefs, fx.core.RepositoryCommitSequence,
	} {
		answer, err := call(forgecore.Auth{}, map[string]any{"project": workProject, "sha": "main"})
		if err != nil || answer.Status != 200 {
			t.Fatalf("commit route: %v %v", answer, err)
		}
	}
	sequence, _ := fx.core.RepositoryCommitSequence(forgecore.Auth{}, map[string]any{"project": workProject, "sha": "main"})
	var count struct{ Count int }
	if err := sequence.JSON(&count); err != nil || fmt.Sprint(count.Count) != git(t, work, "rev-list", "--count", "main") {
		t.Fatalf("sequence: %v %+v", err, count)
	}
	missing, err := fx.core.RepositoryTree(forgecore.Auth{}, map[string]any{"project": "fx/none"})
	if err != nil || missing.Status != 404 {
		t.Fatalf("tree of a missing project: %v %v", missing, err)
	}
	if _, err := fx.core.RepositoryTree(forgecore.Auth{}, map[string]any{"bad": make(chan int)}); err == nil {
		t.Fatal("parameters that are not JSON gave no error")
	}
}

func TestStreamedBody(t *testing.T) {
	sha := git(t, fx.bigRepo, "rev-parse", "HEAD:big.bin")
	response, err := fx.core.RepositoryRawBlob(forgecore.Auth{}, map[string]any{"project": bigProject, "sha": sha})
	if err != nil {
		t.Fatal(err)
	}
	if response.Status != 200 || !response.Streamed {
		t.Fatalf("%d streamed=%v", response.Status, response.Streamed)
	}
	// Small reads: every byte arrives in order, then EOF, then EOF again.
	var got bytes.Buffer
	buf := make([]byte, 1000)
	for {
		n, err := response.Body.Read(buf)
		got.Write(buf[:n])
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
	}
	if !bytes.Equal(got.Bytes(), bigBinary) {
		t.Fatalf("%d bytes, want %d", got.Len(), len(bigBinary))
	}
	if n, err := response.Body.Read(buf); n != 0 || err != io.EOF {
		t.Fatalf("after the end: %d %v", n, err)
	}
	response.Close()

	// Closed early: later reads fail and nothing leaks; closing twice is fine.
	response, err = fx.core.RepositoryRawBlob(forgecore.Auth{}, map[string]any{"project": bigProject, "sha": sha})
	if err != nil {
		t.Fatal(err)
	}
	if n, err := response.Body.Read(buf); n == 0 || err != nil {
		t.Fatalf("first read: %d %v", n, err)
	}
	response.Close()
	response.Close()
	if _, err := response.Body.Read(buf); !errors.Is(err, forgecore.ErrBodyClosed) {
		t.Fatalf("read after Close: %v", err)
	}
}

func TestStreamOutlivesItsCore(t *testing.T) {
	core, err := forgecore.Open(forgecore.Config{DataDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	for _, command := range []map[string]any{
		{"command": "group_add", "path": "g", "visibility": "public"},
		{"command": "project_add", "path": "g/big", "repo": fx.bigRepo, "visibility": "public"},
	} {
		if r, err := core.Admin(command); err != nil || r.Status != 200 && r.Status != 201 {
			body, _ := r.Bytes()
			t.Fatalf("%v: %v %s", command, err, body)
		}
	}
	sha := git(t, fx.bigRepo, "rev-parse", "HEAD:big.bin")
	response, err := core.Do("GET", "/api/v4/projects/g%2Fbig/repository/blobs/"+sha+"/raw", nil, nil)
	if err != nil || !response.Streamed {
		t.Fatalf("%v %v", response, err)
	}
	core.Close()
	body, err := response.Bytes()
	if err != nil || !bytes.Equal(body, bigBinary) {
		t.Fatalf("after Close: %v, %d bytes", err, len(body))
	}
}

// Forgotten responses are freed by their finalizers; calls racing Close either finish or get
// ErrClosed, never a freed context.
func TestCloseWhileCallsAreInFlight(t *testing.T) {
	core, err := forgecore.Open(forgecore.Config{DataDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	errs := make(chan error, 8)
	for g := 0; g < 8; g++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; i < 200; i++ {
				response, err := core.Do("GET", "/api/v4/version", nil, nil)
				if errors.Is(err, forgecore.ErrClosed) {
					return
				}
				if err != nil || response.Status != 200 {
					errs <- err
					return
				}
				_ = response // left for the finalizer
			}
		}()
	}
	core.Close()
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatalf("a call failed otherwise than ErrClosed: %v", err)
	}
	runtime.GC()
}

// The binding and the library it links are one release: the library's GET /version reports
// the binding's Version as its revision (Cargo.toml's version, which both carry).
func TestVersionIsTheLibrarys(t *testing.T) {
	response, err := fx.core.Do("GET", "/api/v4/version", nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	body, err := response.Bytes()
	if err != nil || response.Status != 200 {
		t.Fatalf("%d %v %s", response.Status, err, body)
	}
	var version struct{ Revision string }
	if err := json.Unmarshal(body, &version); err != nil || version.Revision != forgecore.Version {
		t.Fatalf("/version %s, binding %s (%v)", body, forgecore.Version, err)
	}
}

// LogTo receives the core's record of every request, one JSON line each, written out by the
// time logging is turned off again.
func TestLogToWritesOneLinePerRequest(t *testing.T) {
	var out bytes.Buffer
	if err := forgecore.LogTo(&out, forgecore.LogInfo); err != nil {
		t.Fatal(err)
	}
	ua := fmt.Sprintf("go-log-to-%d", runtime.NumGoroutine())
	ids := map[string]bool{}
	for i := 0; i < 3; i++ {
		response, err := fx.core.Do("GET", "/api/v4/version", http.Header{"User-Agent": {ua}}, nil)
		if err != nil {
			t.Fatal(err)
		}
		ids[response.Header.Get("X-Request-Id")] = true
		_, _ = response.Bytes()
	}
	if err := forgecore.LogTo(nil, 0); err != nil {
		t.Fatal(err)
	}
	seen := 0
	for _, line := range strings.Split(out.String(), "\n") {
		var record struct {
			UA            string `json:"ua"`
			CorrelationID string `json:"correlation_id"`
			Status        int    `json:"status"`
		}
		if line == "" || json.Unmarshal([]byte(line), &record) != nil || record.UA != ua {
			continue
		}
		if !ids[record.CorrelationID] || record.Status != 200 {
			t.Fatalf("a record of no request made: %s", line)
		}
		seen++
	}
	if seen != 3 {
		t.Fatalf("%d records for 3 requests:\n%s", seen, out.String())
	}
	if err := forgecore.LogTo(&out, 6); err == nil {
		t.Fatal("level 6 was accepted")
	}
}
