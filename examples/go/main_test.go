package main

import (
	"io"
	"net/http"
	"net/http/httptest"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"forgecore.dev/forgecore"
)

func get(t *testing.T, url string) (*http.Response, string) {
	t.Helper()
	response, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer response.Body.Close()
	body, _ := io.ReadAll(response.Body)
	return response, string(body)
}

// The program's own routes and forgecore's share one mux; encoded paths reach the core as
// sent, and without an external URL the core's links follow the Host the client used.
func TestHandlerInAMux(t *testing.T) {
	dir := t.TempDir()
	if out, err := exec.Command("bash", filepath.Join("..", "..", "tests", "fixtures", "repo.sh"), filepath.Join(dir, "repos")).CombinedOutput(); err != nil {
		t.Fatalf("%v %s", err, out)
	}
	core, err := forgecore.Open(forgecore.Config{DataDir: filepath.Join(dir, "data")})
	if err != nil {
		t.Fatal(err)
	}
	defer core.Close()
	for _, command := range []map[string]any{
		{"command": "group_add", "path": "fx", "visibility": "public"},
		{"command": "project_add", "path": "fx/my.proj", "repo": filepath.Join(dir, "repos", "work"), "visibility": "public"},
	} {
		response, err := core.Admin(command)
		if err != nil || response.Status != 201 {
			body, _ := response.Bytes()
			t.Fatalf("%v: %v %s", command, err, body)
		}
	}
	server := httptest.NewServer(newMux(core))
	defer server.Close()

	if response, body := get(t, server.URL+"/healthz"); response.StatusCode != 200 || body != "ok\n" {
		t.Fatalf("/healthz: %d %q", response.StatusCode, body)
	}
	if response, body := get(t, server.URL+"/api/v4/version"); response.StatusCode != 200 || !strings.Contains(body, `"version"`) {
		t.Fatalf("/api/v4/version: %d %q", response.StatusCode, body)
	}
	response, body := get(t, server.URL+"/api/v4/projects/fx%2Fmy%2Eproj/repository/tree?per_page=2")
	if response.StatusCode != 200 || !strings.HasPrefix(response.Header.Get("Link"), "<"+server.URL+"/api/v4/projects/") {
		t.Fatalf("tree: %d %v %s", response.StatusCode, response.Header, body)
	}
	// Outside /api/v4/ the mux answers, not the core.
	if response, body := get(t, server.URL+"/elsewhere"); response.StatusCode != 404 || strings.Contains(body, "message") {
		t.Fatalf("/elsewhere: %d %q", response.StatusCode, body)
	}
	// Inside it, even an unknown route is the core's JSON 404.
	if response, body := get(t, server.URL+"/api/v4/nothing"); response.StatusCode != 404 || body != `{"message":"404 Not Found"}` {
		t.Fatalf("/api/v4/nothing: %d %q", response.StatusCode, body)
	}
}
