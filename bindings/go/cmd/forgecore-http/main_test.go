package main

// The host as a process: this test binary runs itself as forgecore-http (TestMain hands over
// to main when FORGECORE_HTTP_TEST_MAIN is set), so the tests see what a user sees: the
// printed lines, the first-start administrator, repository discovery, a GitLab client
// talking to it, and a clean exit on SIGTERM and SIGINT.

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	gitlab "gitlab.com/gitlab-org/api/client-go"
)

func TestMain(m *testing.M) {
	if os.Getenv("FORGECORE_HTTP_TEST_MAIN") == "1" {
		main()
		return
	}
	os.Exit(m.Run())
}

// hostProcess is a running forgecore-http with its output so far.
type hostProcess struct {
	cmd    *exec.Cmd
	mu     sync.Mutex
	lines  []string
	stderr bytes.Buffer
	done   chan struct{}
	url    string
}

// problems is what the host wrote to stderr besides the core's request records (one JSON
// object a line at severity INFO): warnings, errors, panics. Call it once the host has exited.
func (h *hostProcess) problems() string {
	var other []string
	for _, line := range strings.Split(h.stderr.String(), "\n") {
		var record struct {
			Severity      string `json:"severity"`
			CorrelationID string `json:"correlation_id"`
		}
		if line == "" || json.Unmarshal([]byte(line), &record) == nil && record.Severity == "INFO" && record.CorrelationID != "" {
			continue
		}
		other = append(other, line)
	}
	return strings.Join(other, "\n")
}

func (h *hostProcess) output() []string {
	h.mu.Lock()
	defer h.mu.Unlock()
	return append([]string(nil), h.lines...)
}

func (h *hostProcess) line(prefix string) string {
	for _, line := range h.output() {
		if strings.HasPrefix(line, prefix) {
			return strings.TrimPrefix(line, prefix)
		}
	}
	return ""
}

// startHost runs the host with args and waits for "listening on URL".
func startHost(t *testing.T, args ...string) *hostProcess {
	t.Helper()
	h := &hostProcess{cmd: exec.Command(os.Args[0], args...), done: make(chan struct{})}
	h.cmd.Env = append(os.Environ(), "FORGECORE_HTTP_TEST_MAIN=1")
	h.cmd.Stderr = &h.stderr
	stdout, err := h.cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := h.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	ready := make(chan string, 1)
	go func() {
		defer close(h.done)
		scanner := bufio.NewScanner(stdout)
		for scanner.Scan() {
			h.mu.Lock()
			h.lines = append(h.lines, scanner.Text())
			h.mu.Unlock()
			if url, ok := strings.CutPrefix(scanner.Text(), "listening on "); ok {
				ready <- url
			}
		}
	}()
	t.Cleanup(func() {
		if h.cmd.ProcessState == nil {
			_ = h.cmd.Process.Kill()
			_ = h.cmd.Wait()
		}
	})
	select {
	case h.url = <-ready:
	case <-h.done:
		_ = h.cmd.Wait()
		t.Fatalf("the host exited before listening: %q %s", h.output(), h.stderr.String())
	case <-time.After(60 * time.Second):
		t.Fatalf("the host did not listen within 60 s: %q", h.output())
	}
	return h
}

// stop sends sig and waits for the exit code.
func (h *hostProcess) stop(t *testing.T, sig syscall.Signal) int {
	t.Helper()
	if err := h.cmd.Process.Signal(sig); err != nil {
		t.Fatal(err)
	}
	exited := make(chan error, 1)
	go func() { <-h.done; exited <- h.cmd.Wait() }()
	select {
	case err := <-exited:
		var exit *exec.ExitError
		if errors.As(err, &exit) {
			return exit.ExitCode()
		}
		if err != nil {
			t.Fatal(err)
		}
		return 0
	case <-time.After(30 * time.Second):
		t.Fatal("the host did not stop within 30 s")
		return -1
	}
}

// fixtureRepos builds tests/fixtures/repo.sh's repositories and names the work tree
// "forgecore" under the returned directory (as `make run` does with the checkout).
func fixtureRepos(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	script := filepath.Join("..", "..", "..", "..", "tests", "fixtures", "repo.sh")
	if out, err := exec.Command("bash", script, filepath.Join(dir, "fx")).CombinedOutput(); err != nil {
		t.Fatalf("%s: %v %s", script, err, out)
	}
	repos := filepath.Join(dir, "repos")
	if err := os.MkdirAll(repos, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join(dir, "fx", "work"), filepath.Join(repos, "forgecore")); err != nil {
		t.Fatal(err)
	}
	return repos
}

func TestFirstStartThenRestart(t *testing.T) {
	repos := fixtureRepos(t)
	data := filepath.Join(t.TempDir(), "data")

	host := startHost(t, "-listen", "127.0.0.1:0", "-data-dir", data, "-repos", repos)
	out := host.output()
	token := host.line("admin token: ")
	if host.line("created the administrator ") != "root" || !strings.HasPrefix(token, "glpat-") ||
		host.line("project: ") != "forgecore (new)" || out[len(out)-1] != "listening on "+host.url {
		t.Fatalf("first start printed %q", out)
	}
	if !strings.HasPrefix(host.url, "http://127.0.0.1:") || strings.HasSuffix(host.url, ":0") {
		t.Fatalf("url %q", host.url)
	}
	if !strings.Contains(strings.Join(out, "\n"), `curl -H "PRIVATE-TOKEN: `+token+`" `+host.url+"/api/v4/member_roles") ||
		host.line("     curl ") != host.url+"/api/v4/projects/forgecore/repository/tree" {
		t.Fatalf("no try lines in %q", out)
	}

	client, err := gitlab.NewClient(token, gitlab.WithBaseURL(host.url))
	if err != nil {
		t.Fatal(err)
	}
	role, response, err := client.MemberRolesService.CreateInstanceMemberRole(&gitlab.CreateMemberRoleOptions{
		Name: gitlab.Ptr("reader"), BaseAccessLevel: gitlab.Ptr(gitlab.GuestPermissions), ReadCode: gitlab.Ptr(true),
	})
	if err != nil || response.StatusCode != 201 {
		t.Fatalf("create: %v %v", response, err)
	}
	nodes, response, err := client.Repositories.ListTree("forgecore", &gitlab.ListTreeOptions{ListOptions: gitlab.ListOptions{PerPage: 2}})
	if err != nil || len(nodes) != 2 || !strings.HasPrefix(response.NextLink, host.url+"/api/v4/projects/forgecore/repository/tree?") {
		t.Fatalf("tree: %v %+v %v", nodes, response, err)
	}
	if code := host.stop(t, syscall.SIGTERM); code != 0 {
		t.Fatalf("SIGTERM: exit %d, %s", code, host.stderr.String())
	}

	// Again on the same data: no new administrator, no token unless asked, projects kept.
	host = startHost(t, "-listen", "127.0.0.1:0", "-data-dir", data, "-repos", repos)
	if host.line("created the administrator ") != "" || host.line("admin token: ") != "" || host.line("project: ") != "forgecore" {
		t.Fatalf("restart printed %q", host.output())
	}
	if !strings.Contains(strings.Join(host.output(), "\n"), `"PRIVATE-TOKEN: <token>"`) {
		t.Fatalf("restart printed %q", host.output())
	}
	client, _ = gitlab.NewClient(token, gitlab.WithBaseURL(host.url))
	roles, _, err := client.MemberRolesService.ListInstanceMemberRoles()
	if err != nil || len(roles) != 1 || roles[0].ID != role.ID {
		t.Fatalf("roles after a restart: %v %v", roles, err)
	}
	if code := host.stop(t, syscall.SIGINT); code != 0 {
		t.Fatalf("SIGINT: exit %d, %s", code, host.stderr.String())
	}

	// -print-admin-token issues a new token for the existing administrator.
	host = startHost(t, "-listen", "127.0.0.1:0", "-data-dir", data, "-print-admin-token", "-external-url", "http://forge.example/")
	fresh := host.line("admin token: ")
	if fresh == "" || fresh == token || host.line("created the administrator ") != "" {
		t.Fatalf("-print-admin-token printed %q", host.output())
	}
	if host.url != "http://forge.example" {
		t.Fatalf("external url: %q", host.url)
	}
	host.stop(t, syscall.SIGTERM)
}

// A request in flight when SIGTERM arrives is answered in full before the host exits.
func TestGracefulShutdownFinishesRequests(t *testing.T) {
	host := startHost(t, "-listen", "127.0.0.1:0", "-data-dir", filepath.Join(t.TempDir(), "data"))
	address := strings.TrimPrefix(host.url, "http://")
	conn, err := net.DialTimeout("tcp", address, 10*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	// Half a request: the server has read the headers and waits for the body.
	body := `{"name":"late","base_access_level":10}`
	fmt.Fprintf(conn, "POST /api/v4/member_roles HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: %d\r\n\r\n", len(body))
	time.Sleep(200 * time.Millisecond)
	exitCode := make(chan int, 1)
	go func() { exitCode <- host.stop(t, syscall.SIGTERM) }()
	time.Sleep(200 * time.Millisecond)
	if _, err := io.WriteString(conn, body); err != nil {
		t.Fatal(err)
	}
	_ = conn.SetReadDeadline(time.Now().Add(10 * time.Second))
	answer, _ := io.ReadAll(conn)
	if !bytes.HasPrefix(answer, []byte("HTTP/1.1 401 ")) || !bytes.HasSuffix(answer, []byte(`{"message":"401 Unauthorized"}`)) {
		t.Fatalf("in-flight answer: %q", answer)
	}
	if code := <-exitCode; code != 0 {
		t.Fatalf("exit %d: %s", code, host.stderr.String())
	}
}

func TestBadArguments(t *testing.T) {
	for _, args := range [][]string{
		{}, // no -data-dir
		{"-data-dir", t.TempDir(), "-listen", "nope"},
		{"-data-dir", t.TempDir(), "-listen", "127.0.0.1:99999"},
		{"-data-dir", t.TempDir(), "extra"},
		{"-data-dir", t.TempDir(), "-read-timeout", "0s"},
		{"-data-dir", t.TempDir(), "-read-timeout", "30"}, // a duration needs its unit
		{"-data-dir", t.TempDir(), "-max-connections", "0"},
		{"-data-dir", t.TempDir(), "-write-timeout", "0s"},
		{"-data-dir", t.TempDir(), "-max-client-connections", "0"},
		{"-data-dir", t.TempDir(), "-max-requests", "-1"},
		{"-no-such-flag"},
	} {
		var stdout, stderr bytes.Buffer
		if code := run(args, &stdout, &stderr); code != 2 || stderr.Len() == 0 {
			t.Fatalf("%q: exit %d, stderr %q", args, code, stderr.String())
		}
	}
	var stdout, stderr bytes.Buffer
	if code := run([]string{"-h"}, &stdout, &stderr); code != 0 || !strings.Contains(stderr.String(), "-data-dir") {
		t.Fatalf("-h: exit %d, %q", code, stderr.String())
	}
	// A data directory the core refuses to open: exit 1 with the core's message.
	file := filepath.Join(t.TempDir(), "file")
	if err := os.WriteFile(file, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	stderr.Reset()
	if code := run([]string{"-listen", "127.0.0.1:0", "-data-dir", file}, &stdout, &stderr); code != 1 || stderr.Len() == 0 {
		t.Fatalf("a file as data dir: exit %d, %q", code, stderr.String())
	}
	// register_repos refusing a directory that does not exist: exit 1.
	stderr.Reset()
	if code := run([]string{"-listen", "127.0.0.1:0", "-data-dir", t.TempDir(), "-repos", "/no/such/dir"}, &stdout, &stderr); code != 1 ||
		!strings.Contains(stderr.String(), "register_repos") {
		t.Fatalf("missing -repos dir: exit %d, %q", code, stderr.String())
	}
}

// -config merges a JSON object over the built configuration: two API requests a minute make
// the third a 429 in GitLab's shape, repository health can be turned off, and the file may
// name the data directory itself.
func TestConfigFile(t *testing.T) {
	dir := t.TempDir()
	config := filepath.Join(dir, "config.json")
	data := filepath.Join(dir, "data")
	text := `{"data_dir": "` + data + `", "rate_limits": {"api_requests": {"limit": 2, "period_seconds": 60}},
	          "features": {"repository_health": false}}`
	if err := os.WriteFile(config, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	host := startHost(t, "-listen", "127.0.0.1:0", "-config", config)
	if _, err := os.Stat(filepath.Join(data)); err != nil {
		t.Fatalf("the data directory of the file was not used: %v", err)
	}
	var statuses []int
	var last *http.Response
	for i := 0; i < 3; i++ {
		response, err := http.Get(host.url + "/api/v4/version")
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(response.Body)
		response.Body.Close()
		statuses = append(statuses, response.StatusCode)
		last = response
		if i == 2 && string(body) != `{"message":{"error":"This endpoint has been requested too many times. Try again later."}}` {
			t.Fatalf("429 body %q", body)
		}
	}
	if fmt.Sprint(statuses) != "[200 200 429]" || last.Header.Get("Retry-After") == "" {
		t.Fatalf("statuses %v, Retry-After %q", statuses, last.Header.Get("Retry-After"))
	}
	host.stop(t, syscall.SIGTERM)

	// Without the rate limit, the feature switch shows: health is a 404 for the administrator.
	text = `{"features": {"repository_health": false}}`
	if err := os.WriteFile(config, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	repos := fixtureRepos(t)
	host = startHost(t, "-listen", "127.0.0.1:0", "-data-dir", filepath.Join(dir, "data2"), "-repos", repos,
		"-config", config, "-print-admin-token")
	request, _ := http.NewRequest("GET", host.url+"/api/v4/projects/forgecore/repository/health", nil)
	request.Header.Set("Private-Token", host.line("admin token: "))
	response, err := http.DefaultClient.Do(request)
	if err != nil {
		t.Fatal(err)
	}
	response.Body.Close()
	if response.StatusCode != 404 {
		t.Fatalf("health with the feature off: %d", response.StatusCode)
	}
	host.stop(t, syscall.SIGTERM)
}

func TestBadConfigFile(t *testing.T) {
	dir := t.TempDir()
	write := func(name, text string) string {
		path := filepath.Join(dir, name)
		if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		return path
	}
	// Not readable or not a JSON object: a usage error (exit 2) naming -config.
	for _, path := range []string{filepath.Join(dir, "missing.json"), write("array.json", "[]"),
		write("null.json", "null"), write("broken.json", `{"rate_limits":`)} {
		var stdout, stderr bytes.Buffer
		if code := run([]string{"-data-dir", t.TempDir(), "-config", path}, &stdout, &stderr); code != 2 ||
			!strings.Contains(stderr.String(), "-config") {
			t.Fatalf("%s: exit %d, %q", path, code, stderr.String())
		}
	}
	// A key the core does not know: the core refuses it (exit 1 with its message).
	var stdout, stderr bytes.Buffer
	path := write("unknown.json", `{"rate_limits": {"api_request": {"limit": 1, "period_seconds": 1}}}`)
	if code := run([]string{"-listen", "127.0.0.1:0", "-data-dir", t.TempDir(), "-config", path}, &stdout, &stderr); code != 1 ||
		!strings.Contains(stderr.String(), "api_request") {
		t.Fatalf("unknown key: exit %d, %q", code, stderr.String())
	}
}

// openFiles counts the descriptors the process pid holds.
func openFiles(t *testing.T, pid int) int {
	t.Helper()
	entries, err := os.ReadDir(fmt.Sprintf("/proc/%d/fd", pid))
	if err != nil {
		t.Fatal(err)
	}
	return len(entries)
}

// Clients that hold a connection without finishing their request (half a request line, or a
// Content-Length whose body never comes), five times more of them than -max-connections: the
// host keeps a descriptor for 8 of them only, answers the others 503 at once, closes every one
// within -read-timeout plus a margin, and serves on, even while its slots are full.
func TestSlowClientsAreCutOffAndCapped(t *testing.T) {
	const readTimeout, margin, maxConnections = 2 * time.Second, 2 * time.Second, 8
	const tooMany = `{"message":"503 Service Unavailable - too many connections"}`
	host := startHost(t, "-listen", "127.0.0.1:0", "-data-dir", filepath.Join(t.TempDir(), "data"),
		"-read-timeout", readTimeout.String(), "-max-connections", fmt.Sprint(maxConnections))
	address := strings.TrimPrefix(host.url, "http://")
	baseline := openFiles(t, host.cmd.Process.Pid)

	opened := time.Now()
	var idle []net.Conn
	for i := 0; i < 5*maxConnections; i++ {
		conn, err := net.DialTimeout("tcp", address, 5*time.Second)
		if err != nil {
			t.Fatal(err)
		}
		defer conn.Close()
		idle = append(idle, conn)
		partial := "GET /api/v4/vers"
		if i%2 == 0 {
			partial = "POST /api/v4/member_roles HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n"
		}
		if _, err := io.WriteString(conn, partial); err != nil {
			t.Fatal(err)
		}
	}
	time.Sleep(500 * time.Millisecond)
	if files := openFiles(t, host.cmd.Process.Pid); files > baseline+maxConnections {
		t.Fatalf("%d descriptors with %d idle clients, %d before", files, len(idle), baseline)
	}
	// With every slot taken, a request is refused at once rather than queued. (Over a raw
	// connection: the answer can come before the request is written, which Go's Transport
	// takes for an unsolicited response on an idle connection, that is, a closed one.)
	started := time.Now()
	conn, err := net.DialTimeout("tcp", address, 5*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	_ = conn.SetDeadline(time.Now().Add(5 * time.Second))
	if _, err := io.WriteString(conn, "GET /api/v4/version HTTP/1.1\r\nHost: x\r\n\r\n"); err != nil {
		t.Fatal(err)
	}
	response, err := http.ReadResponse(bufio.NewReader(conn), nil)
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(response.Body)
	if response.StatusCode != 503 || string(body) != tooMany || response.Header.Get("Content-Type") != "application/json" ||
		time.Since(started) > time.Second {
		t.Fatalf("with the cap full: %d %q after %v", response.StatusCode, body, time.Since(started))
	}

	refused := 0
	for i, conn := range idle {
		_ = conn.SetReadDeadline(opened.Add(readTimeout + margin))
		answer, err := io.ReadAll(conn)
		if errors.Is(err, os.ErrDeadlineExceeded) {
			t.Fatalf("client %d still connected %v after it began", i, readTimeout+margin)
		}
		// Cut off, a half request line is a 400 (net/http reads it as a whole line) or nothing.
		if bytes.HasPrefix(answer, []byte("HTTP/1.1 503 ")) {
			refused++
			if !bytes.HasSuffix(answer, []byte(tooMany)) {
				t.Fatalf("client %d: %q", i, answer)
			}
		}
	}
	if refused != len(idle)-maxConnections {
		t.Fatalf("%d of %d clients refused, with %d slots", refused, len(idle), maxConnections)
	}
	response, err = http.Get(host.url + "/api/v4/version")
	if err != nil {
		t.Fatal(err)
	}
	response.Body.Close()
	if response.StatusCode != 200 {
		t.Fatalf("after the idle clients: %d", response.StatusCode)
	}
	if code := host.stop(t, syscall.SIGTERM); code != 0 || host.problems() != "" {
		t.Fatalf("exit %d: %s", code, host.problems())
	}
}

// The read timeout bounds the head and then each 64 KiB of the body, not the whole body: a
// body sent steadily for longer than the timeout (a large git push) is read to its end.
func TestASteadyBodyIsReadPastTheReadTimeout(t *testing.T) {
	const readTimeout = 2 * time.Second
	host := startHost(t, "-listen", "127.0.0.1:0", "-data-dir", filepath.Join(t.TempDir(), "data"),
		"-read-timeout", readTimeout.String(), "-print-admin-token")
	payload := `{"name": "steady", "base_access_level": 10}`
	body := strings.Repeat(" ", 10*65536-len(payload)) + payload
	conn, err := net.DialTimeout("tcp", strings.TrimPrefix(host.url, "http://"), 5*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	started := time.Now()
	head := fmt.Sprintf("POST /api/v4/member_roles HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"+
		"Private-Token: %s\r\nContent-Length: %d\r\n\r\n", host.line("admin token: "), len(body))
	if _, err := io.WriteString(conn, head); err != nil {
		t.Fatal(err)
	}
	for start := 0; start < len(body); start += 65536 {
		time.Sleep(readTimeout / 4)
		if _, err := io.WriteString(conn, body[start:min(start+65536, len(body))]); err != nil {
			t.Fatalf("cut off after %v: %v", time.Since(started), err)
		}
	}
	_ = conn.SetReadDeadline(time.Now().Add(10 * time.Second))
	response, err := http.ReadResponse(bufio.NewReader(conn), nil)
	if err != nil {
		t.Fatalf("no answer after %v: %v", time.Since(started), err)
	}
	answer, _ := io.ReadAll(response.Body)
	if response.StatusCode != 201 || !strings.Contains(string(answer), `"name":"steady"`) {
		t.Fatalf("%d %s", response.StatusCode, answer)
	}
	if elapsed := time.Since(started); elapsed < 2*readTimeout {
		t.Fatalf("the body took %v, not longer than the timeout", elapsed)
	}
	host.stop(t, syscall.SIGTERM)
}

// One byte a second keeps every single read short: the head's deadline cuts such a client off,
// and in the body, the deadline of its first 64 KiB.
func TestTricklingClientIsCutOffAtTheDeadline(t *testing.T) {
	const readTimeout, margin = 2 * time.Second, 2 * time.Second
	host := startHost(t, "-listen", "127.0.0.1:0", "-data-dir", filepath.Join(t.TempDir(), "data"),
		"-read-timeout", readTimeout.String())
	address := strings.TrimPrefix(host.url, "http://")
	for _, trickle := range []struct{ name, head, byte string }{
		{"head", "GET /api/v4/version HTTP/1.1\r\nHost: x\r\nX-Slow: ", "a"},
		{"body", "POST /api/v4/member_roles HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n", " "},
	} {
		t.Run(trickle.name, func(t *testing.T) {
			conn, err := net.DialTimeout("tcp", address, 5*time.Second)
			if err != nil {
				t.Fatal(err)
			}
			defer conn.Close()
			started := time.Now()
			if _, err := io.WriteString(conn, trickle.head); err != nil {
				t.Fatal(err)
			}
			closed := make(chan time.Duration, 1)
			go func() {
				_, _ = io.Copy(io.Discard, conn) // until the host closes it
				closed <- time.Since(started)
			}()
			ticker := time.NewTicker(time.Second)
			defer ticker.Stop()
			for {
				_, _ = io.WriteString(conn, trickle.byte) // fails once the host has closed it
				select {
				case elapsed := <-closed:
					if elapsed < readTimeout-200*time.Millisecond {
						t.Fatalf("cut off after %v, before the deadline", elapsed)
					}
					return
				case <-ticker.C:
					if time.Since(started) > readTimeout+margin {
						t.Fatalf("still connected after %v", time.Since(started))
					}
				}
			}
		})
	}
}

// net/http keeps `_` in header names and the core reads `private-token` and `job-token` only:
// a token header spelled with `_` is no token, so a proxy filtering `Private-Token` is not
// bypassed. A bad job token is a 401, never anonymous: the 200 shows `JOB_TOKEN` was not read.
func TestTokenHeadersWithUnderscoreAreNoTokens(t *testing.T) {
	host := startHost(t, "-listen", "127.0.0.1:0", "-data-dir", filepath.Join(t.TempDir(), "data"))
	token := host.line("admin token: ")
	status := func(target, name, value string) int {
		t.Helper()
		request, err := http.NewRequest("GET", host.url+target, nil)
		if err != nil {
			t.Fatal(err)
		}
		request.Header[name] = []string{value} // as spelled: Header.Set would canonicalize it
		response, err := http.DefaultClient.Do(request)
		if err != nil {
			t.Fatal(err)
		}
		response.Body.Close()
		return response.StatusCode
	}
	for _, name := range []string{"PRIVATE_TOKEN", "Private_Token", "private_token"} {
		if got := status("/api/v4/member_roles", name, token); got != 401 {
			t.Fatalf("%s: %d", name, got)
		}
	}
	if got := status("/api/v4/member_roles", "Private-Token", token); got != 200 {
		t.Fatalf("Private-Token: %d", got)
	}
	bogus := "glcbt-" + strings.Repeat("x", 20)
	if job, underscore := status("/api/v4/version", "Job-Token", bogus), status("/api/v4/version", "JOB_TOKEN", bogus); job != 401 || underscore != 200 {
		t.Fatalf("a bad job token: Job-Token %d, JOB_TOKEN %d", job, underscore)
	}
}
