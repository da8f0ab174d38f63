package forgecore_test

// The fixture every test of this package shares: the fixture repositories of
// tests/fixtures/repo.sh plus one with a large binary file, and one core behind the Handler on
// a real loopback socket (httptest), with the administrator's token and public projects.

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"forgecore.dev/forgecore"
)

// Project paths: fx/work is the fixture repository; fx/my.proj the same repository under a
// path with a dot (which GitLab's Go client sends as %2E); fx/big a repository with a large
// binary file.
const (
	workProject = "fx/work"
	dotProject  = "fx/my.proj"
	bigProject  = "fx/big"
)

// BigBinary is committed as big.bin in fx/big: every byte value, NULs, and more than one
// 64 KiB chunk of fc_response_read.
var bigBinary = append(bytes.Repeat(func() []byte {
	b := make([]byte, 256)
	for i := range b {
		b[i] = byte(i)
	}
	return b
}(), 320), []byte("\x00tail\xff")...)

type fixture struct {
	core    *forgecore.Core
	server  *httptest.Server
	url     string // the server's base URL, also the core's external_url
	token   string // the administrator's personal access token
	repos   string // tests/fixtures/repo.sh output: repos/work, repos/bare.git, ...
	bigRepo string
	dataDir string
}

var fx *fixture

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "forgecore-go-test-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	fx, err = setup(dir)
	code := 1
	if err != nil {
		fmt.Fprintln(os.Stderr, "setup:", err)
	} else {
		code = m.Run()
		fx.server.Close()
		if err := fx.core.Close(); err != nil {
			fmt.Fprintln(os.Stderr, "close:", err)
			code = 1
		}
	}
	os.RemoveAll(dir)
	os.Exit(code)
}

// repoRoot is the checkout this package lives in (bindings/go/../..).
func repoRoot() string {
	root, _ := filepath.Abs(filepath.Join("..", ".."))
	return root
}

func setup(dir string) (*fixture, error) {
	f := &fixture{repos: filepath.Join(dir, "repos"), bigRepo: filepath.Join(dir, "big"), dataDir: filepath.Join(dir, "data")}
	script := filepath.Join(repoRoot(), "tests", "fixtures", "repo.sh")
	if out, err := exec.Command("bash", script, f.repos).CombinedOutput(); err != nil {
		return nil, fmt.Errorf("%s: %v\n%s", script, err, out)
	}
	if err := makeBigRepo(f.bigRepo); err != nil {
		return nil, err
	}
	// Listen first: the core's external URL (absolute Link headers) is the server's URL.
	f.server = httptest.NewUnstartedServer(nil)
	f.url = "http://" + f.server.Listener.Addr().String()
	core, err := forgecore.Open(forgecore.Config{
		DataDir:     f.dataDir,
		ExternalURL: f.url,
		Features:    json.RawMessage(`{"test_panic_route": true}`),
		// The shared core outlives the tests' temporary repositories, which a maintenance run
		// queued by their writes would still be writing in while they are removed.
		Maintenance: json.RawMessage(`{"enabled": false}`),
	})
	if err != nil {
		f.server.Listener.Close()
		return nil, err
	}
	f.core = core
	f.server.Config.Handler = forgecore.NewHandler(core)
	f.server.Start()

	var boot struct{ Token string }
	if err := f.admin(map[string]any{"command": "bootstrap", "issue_token": true}, &boot); err != nil {
		return nil, err
	}
	f.token = boot.Token
	for _, command := range []map[string]any{
		{"command": "group_add", "path": "fx", "visibility": "public"},
		{"command": "group_add", "path": "fx/sub", "visibility": "public"},
		{"command": "project_add", "path": workProject, "repo": filepath.Join(f.repos, "work"), "visibility": "public"},
		{"command": "project_add", "path": dotProject, "repo": filepath.Join(f.repos, "work"), "visibility": "public"},
		{"command": "project_add", "path": bigProject, "repo": f.bigRepo, "visibility": "public"},
	} {
		if err := f.admin(command, nil); err != nil {
			return nil, err
		}
	}
	return f, nil
}

func makeBigRepo(dir string) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(dir, "big.bin"), bigBinary, 0o644); err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(dir, "README.md"), []byte("big\n"), 0o644); err != nil {
		return err
	}
	for _, args := range [][]string{
		{"init", "-q", "-b", "main", "."},
		{"add", "big.bin", "README.md"},
		{"-c", "user.name=t", "-c", "user.email=t@example.com", "commit", "-q", "-m", "big"},
	} {
		if _, err := gitIn(dir, args...); err != nil {
			return err
		}
	}
	return nil
}

// admin runs one admin command through the typed door; out (if not nil) gets its JSON answer.
func (f *fixture) admin(command map[string]any, out any) error {
	response, err := f.core.Admin(command)
	if err != nil {
		return err
	}
	body, err := response.Bytes()
	if err != nil {
		return err
	}
	if response.Status/100 != 2 {
		return fmt.Errorf("admin %v: %d %s", command["command"], response.Status, body)
	}
	if out != nil {
		return json.Unmarshal(body, out)
	}
	return nil
}

// gitIn runs git in dir with no user or system configuration; its standard output.
func gitIn(dir string, args ...string) ([]byte, error) {
	cmd := exec.Command("git", append([]string{"-C", dir}, args...)...)
	cmd.Env = append(os.Environ(), "GIT_CONFIG_NOSYSTEM=1", "GIT_CONFIG_GLOBAL=/dev/null")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return nil, fmt.Errorf("git %s: %v: %s", strings.Join(args, " "), err, stderr.String())
	}
	return out, nil
}

func git(t testing.TB, dir string, args ...string) string {
	t.Helper()
	out, err := gitIn(dir, args...)
	if err != nil {
		t.Fatal(err)
	}
	return strings.TrimSpace(string(out))
}

func gitBytes(t testing.TB, dir string, args ...string) []byte {
	t.Helper()
	out, err := gitIn(dir, args...)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

var httpClient = &http.Client{
	Timeout:   60 * time.Second,
	Transport: &http.Transport{MaxIdleConnsPerHost: 128, DisableCompression: true},
}

// request sends one request over the loopback socket: status, headers and body.
func request(t testing.TB, method, target string, header http.Header, body []byte) (int, http.Header, []byte) {
	t.Helper()
	var reader io.Reader
	if body != nil {
		reader = bytes.NewReader(body)
	}
	req, err := http.NewRequest(method, fx.url+target, reader)
	if err != nil {
		t.Fatal(err)
	}
	for name, values := range header {
		req.Header[name] = values
	}
	response, err := httpClient.Do(req)
	if err != nil {
		t.Fatalf("%s %s: %v", method, target, err)
	}
	defer response.Body.Close()
	data, err := io.ReadAll(response.Body)
	if err != nil {
		t.Fatalf("%s %s: reading the body: %v", method, target, err)
	}
	return response.StatusCode, response.Header, data
}

func withToken(token string) http.Header {
	return http.Header{"Private-Token": {token}}
}

// decode unmarshals JSON or fails the test.
func decode[T any](t testing.TB, data []byte) T {
	t.Helper()
	var value T
	if err := json.Unmarshal(data, &value); err != nil {
		t.Fatalf("not JSON (%v): %q", err, data)
	}
	return value
}
