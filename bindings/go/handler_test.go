package forgecore_test

// The Handler over a real socket: faithful transport of targets (%2F, %2E), headers, bodies
// (binary, streamed, too large) and statuses; concurrency under the race detector; panics.

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"log"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"forgecore.dev/forgecore"
)

// TestConcurrentRequests: 64 goroutines x 500 requests on one core over keep-alive
// connections, each answer checked byte for byte: JSON answers, a group path with %2F, a
// streamed binary blob and, one request in 25, a tree page and one in 100 a streamed binary
// blob larger than one chunk (the costly ones in a debug build).
func TestConcurrentRequests(t *testing.T) {
	const goroutines, perGoroutine = 64, 500
	big := git(t, fx.bigRepo, "rev-parse", "HEAD:big.bin")
	small := git(t, fx.repos+"/work", "rev-parse", "HEAD:bin.dat")
	status, _, roleBody := request(t, "POST", "/api/v4/member_roles",
		http.Header{"Private-Token": {fx.token}, "Content-Type": {"application/json"}},
		[]byte(`{"name":"concurrent reader","base_access_level":10,"read_code":true}`))
	if status != 201 {
		t.Fatalf("create role: %d %s", status, roleBody)
	}
	type probe struct {
		target string
		header http.Header
		want   []byte
	}
	cheap := []probe{
		{target: "/api/v4/version"},
		{target: "/api/v4/member_roles", header: withToken(fx.token)},
		{target: "/api/v4/groups/fx%2Fsub"},
		{target: "/api/v4/projects/fx%2Fwork/repository/blobs/" + small + "/raw", want: gitBytes(t, fx.repos+"/work", "cat-file", "blob", small)},
	}
	treeProbe := probe{target: "/api/v4/projects/fx%2Fwork/repository/tree?per_page=5"}
	bigProbe := probe{target: "/api/v4/projects/fx%2Fbig/repository/blobs/" + big + "/raw", want: bigBinary}
	probes := append(cheap, treeProbe, bigProbe)
	for i := range probes { // every answer must equal the first one, taken alone
		if probes[i].want == nil {
			status, _, body := request(t, "GET", probes[i].target, probes[i].header, nil)
			if status != 200 {
				t.Fatalf("GET %s: %d %s", probes[i].target, status, body)
			}
			probes[i].want = body
		}
	}
	pick := func(g, i int) probe {
		switch {
		case (g+i)%25 == 0:
			return probes[len(cheap)] // the tree
		case (g+i)%100 == 12:
			return probes[len(cheap)+1] // the big blob
		}
		return probes[(g+i)%len(cheap)]
	}

	var failures atomic.Int64
	var firstFailure sync.Once
	var wg sync.WaitGroup
	for g := 0; g < goroutines; g++ {
		wg.Add(1)
		go func(g int) {
			defer wg.Done()
			for i := 0; i < perGoroutine; i++ {
				p := pick(g, i)
				err := func() error {
					req, err := http.NewRequest("GET", fx.url+p.target, nil)
					if err != nil {
						return err
					}
					for name, values := range p.header {
						req.Header[name] = values
					}
					response, err := httpClient.Do(req)
					if err != nil {
						return err
					}
					defer response.Body.Close()
					body, err := io.ReadAll(response.Body)
					if err != nil {
						return err
					}
					if response.StatusCode != 200 || !bytes.Equal(body, p.want) {
						return fmt.Errorf("GET %s: %d, %d bytes, want 200 and %d bytes", p.target, response.StatusCode, len(body), len(p.want))
					}
					return nil
				}()
				if err != nil {
					failures.Add(1)
					firstFailure.Do(func() { t.Errorf("goroutine %d request %d: %v", g, i, err) })
				}
			}
		}(g)
	}
	wg.Wait()
	if n := failures.Load(); n > 0 {
		t.Fatalf("%d of %d requests failed", n, goroutines*perGoroutine)
	}
}

func TestEncodedSlashReachesTheCore(t *testing.T) {
	status, _, body := request(t, "GET", "/api/v4/groups/fx%2Fsub", nil, nil)
	if status != 200 || decode[map[string]any](t, body)["full_path"] != "fx/sub" {
		t.Fatalf("fx%%2Fsub: %d %s", status, body)
	}
	// A host that decoded %2F would have routed this; it is no route at all.
	if status, _, body := request(t, "GET", "/api/v4/groups/fx/sub", nil, nil); status != 404 {
		t.Fatalf("fx/sub: %d %s, want 404", status, body)
	}
}

func TestEncodedDotReachesTheCore(t *testing.T) {
	want := git(t, fx.repos+"/work", "rev-parse", "HEAD:README.md")
	status, _, body := request(t, "GET", "/api/v4/projects/fx%2Fmy%2Eproj/repository/tree", nil, nil)
	if status != 200 {
		t.Fatalf("%d %s", status, body)
	}
	found := false
	for _, entry := range decode[[]map[string]string](t, body) {
		found = found || (entry["path"] == "README.md" && entry["id"] == want)
	}
	if !found {
		t.Fatalf("README.md %s not in %s", want, body)
	}
	status, _, body = request(t, "GET", "/api/v4/projects/fx%2Fmy%2Eproj", nil, nil)
	if status != 200 || decode[map[string]any](t, body)["path_with_namespace"] != dotProject {
		t.Fatalf("project: %d %s", status, body)
	}
}

// rawRequest writes a request target byte for byte on a new connection and reads the answer.
func rawRequest(t *testing.T, requestLine string, extra string) *http.Response {
	t.Helper()
	conn, err := net.DialTimeout("tcp", strings.TrimPrefix(fx.url, "http://"), 10*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close() })
	_ = conn.SetDeadline(time.Now().Add(30 * time.Second))
	if _, err := io.WriteString(conn, requestLine+"\r\nHost: test.invalid\r\nConnection: close\r\n"+extra+"\r\n"); err != nil {
		t.Fatal(err)
	}
	response, err := http.ReadResponse(bufio.NewReader(conn), nil)
	if err != nil {
		t.Fatal(err)
	}
	return response
}

func TestRawTargetIsPassedAsSent(t *testing.T) {
	// Lower-case escapes, an encoded dot and a query with + and %2C: the core parses them.
	response := rawRequest(t, "GET /api/v4/projects/fx%2fmy%2eproj/repository/merge_base?refs=main%2Cfeature HTTP/1.1", "")
	body, _ := io.ReadAll(response.Body)
	want := git(t, fx.repos+"/work", "merge-base", "main", "feature")
	if response.StatusCode != 200 || decode[map[string]any](t, body)["id"] != want {
		t.Fatalf("%d %s, want %s", response.StatusCode, body, want)
	}
}

func TestBinaryBodiesAreIntact(t *testing.T) {
	// A streamed raw blob larger than one chunk, every byte value.
	sha := git(t, fx.bigRepo, "rev-parse", "HEAD:big.bin")
	status, header, body := request(t, "GET", "/api/v4/projects/fx%2Fbig/repository/blobs/"+sha+"/raw", nil, nil)
	if status != 200 || !bytes.Equal(body, bigBinary) {
		t.Fatalf("raw blob: %d, %d bytes, want %d", status, len(body), len(bigBinary))
	}
	if !bytes.Equal(body, gitBytes(t, fx.bigRepo, "cat-file", "blob", sha)) {
		t.Fatal("raw blob differs from git cat-file")
	}
	if header.Get("Transfer-Encoding") != "" || header.Get("Connection") != "" {
		t.Fatalf("hop-by-hop headers copied from the core: %v", header)
	}
	// NULs and bytes over 0x7f in a small file.
	small := git(t, fx.repos+"/work", "rev-parse", "HEAD:bin.dat")
	status, _, body = request(t, "GET", "/api/v4/projects/fx%2Fwork/repository/blobs/"+small+"/raw", nil, nil)
	if status != 200 || !bytes.Equal(body, gitBytes(t, fx.repos+"/work", "cat-file", "blob", small)) {
		t.Fatalf("bin.dat: %d %q", status, body)
	}
	// A request body that is not UTF-8 reaches the core unchanged: only then is this its answer.
	status, _, body = request(t, "POST", "/api/v4/member_roles",
		http.Header{"Private-Token": {fx.token}, "Content-Type": {"application/x-www-form-urlencoded"}},
		[]byte("name=\xff\xfe&base_access_level=20"))
	if status != 400 || string(body) != `{"message":"400 Bad request - the body is not valid UTF-8"}` {
		t.Fatalf("binary form body: %d %s", status, body)
	}
	// UTF-8 in a JSON body comes back as sent.
	name := fmt.Sprintf("rôle ✓ 役割 %d", time.Now().UnixNano())
	status, _, body = request(t, "POST", "/api/v4/member_roles",
		http.Header{"Private-Token": {fx.token}, "Content-Type": {"application/json"}},
		[]byte(`{"name":"`+name+`","base_access_level":20}`))
	if status != 201 || decode[map[string]any](t, body)["name"] != name {
		t.Fatalf("utf-8 body: %d %s", status, body)
	}
}

func TestChunkedRequestBody(t *testing.T) {
	name := fmt.Sprintf("chunked %d", time.Now().UnixNano())
	payload := `{"name":"` + name + `","base_access_level":30}`
	req, _ := http.NewRequest("POST", fx.url+"/api/v4/member_roles", io.MultiReader(strings.NewReader(payload)))
	req.Header.Set("Private-Token", fx.token)
	req.Header.Set("Content-Type", "application/json")
	req.ContentLength = -1 // sent chunked
	response, err := httpClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(response.Body)
	response.Body.Close()
	if response.StatusCode != 201 || decode[map[string]any](t, body)["name"] != name {
		t.Fatalf("%d %s", response.StatusCode, body)
	}
}

func TestTooLargeBodyIs413(t *testing.T) {
	for _, size := range []int{1<<20 + 1, 2 << 20, 16 << 20} {
		status, _, body := request(t, "POST", "/api/v4/member_roles",
			http.Header{"Private-Token": {fx.token}, "Content-Type": {"application/json"}}, bytes.Repeat([]byte(" "), size))
		if status != 413 || string(body) != `{"message":"413 Request Entity Too Large"}` {
			t.Fatalf("%d bytes: %d %s", size, status, body)
		}
		if status, _, _ := request(t, "GET", "/api/v4/version", nil, nil); status != 200 {
			t.Fatalf("after %d bytes: /version %d", size, status)
		}
	}
	// A huge declared length: the host reads 1 MiB + 1 bytes and answers, not the whole body.
	conn, err := net.DialTimeout("tcp", strings.TrimPrefix(fx.url, "http://"), 10*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	_ = conn.SetDeadline(time.Now().Add(30 * time.Second))
	fmt.Fprintf(conn, "POST /api/v4/member_roles HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: %d\r\n\r\n", int64(10)<<30)
	if _, err := conn.Write(bytes.Repeat([]byte(" "), 1<<20+1)); err != nil {
		t.Fatal(err)
	}
	response, err := http.ReadResponse(bufio.NewReader(conn), nil)
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(response.Body)
	if response.StatusCode != 413 || string(body) != `{"message":"413 Request Entity Too Large"}` {
		t.Fatalf("declared 10 GiB: %d %s", response.StatusCode, body)
	}
}

func TestStatusesHeadersAndEmptyBodies(t *testing.T) {
	auth := http.Header{"Private-Token": {fx.token}, "Content-Type": {"application/json"}}
	status, _, body := request(t, "POST", "/api/v4/member_roles", auth, []byte(`{"name":"to delete","base_access_level":10}`))
	if status != 201 {
		t.Fatalf("create: %d %s", status, body)
	}
	id := decode[map[string]any](t, body)["id"]
	status, header, body := request(t, "DELETE", fmt.Sprintf("/api/v4/member_roles/%v", id), auth, nil)
	if status != 204 || len(body) != 0 || header.Get("Content-Type") != "" {
		t.Fatalf("delete: %d %v %q", status, header, body)
	}
	status, header, body = request(t, "HEAD", "/api/v4/version", nil, nil)
	if status != 200 || len(body) != 0 || header.Get("Content-Type") != "application/json" {
		t.Fatalf("HEAD: %d %v %q", status, header, body)
	}
	status, _, body = request(t, "PATCH", "/api/v4/version", nil, nil)
	if status != 405 {
		t.Fatalf("PATCH: %d %s", status, body)
	}
	for _, target := range []string{"/api/v4/no/such/route", "/nowhere"} {
		status, header, body = request(t, "GET", target, nil, nil)
		if status != 404 || header.Get("Content-Type") != "application/json" || string(body) != `{"message":"404 Not Found"}` {
			t.Fatalf("%s: %d %v %s", target, status, header, body)
		}
	}
	status, _, body = request(t, "GET", "/api/v4/member_roles", withToken("glpat-notarealtoken000000000000"), nil)
	if status != 401 || string(body) != `{"message":"401 Unauthorized"}` {
		t.Fatalf("bad token: %d %s", status, body)
	}
	// Pagination headers and an absolute Link reach the client.
	status, header, _ = request(t, "GET", "/api/v4/projects/fx%2Fwork/repository/tree?per_page=2", nil, nil)
	if status != 200 || header.Get("X-Per-Page") != "2" || !strings.HasPrefix(header.Get("Link"), "<"+fx.url+"/api/v4/") {
		t.Fatalf("tree page: %d %v", status, header)
	}
}

func TestPanicInTheCoreIs500AndTheServerLivesOn(t *testing.T) {
	for i := 0; i < 3; i++ {
		status, header, body := request(t, "GET", "/api/v4/__panic", nil, nil)
		if status != 500 || header.Get("Content-Type") != "application/json" {
			t.Fatalf("panic route: %d %v %s", status, header, body)
		}
		if msg, _ := decode[map[string]any](t, body)["message"].(string); !strings.HasPrefix(msg, "500") {
			t.Fatalf("panic body: %s", body)
		}
		if status, _, body := request(t, "GET", "/api/v4/member_roles", withToken(fx.token), nil); status != 200 {
			t.Fatalf("after a panic: %d %s", status, body)
		}
	}
}

// A panic in the Go handler itself (here: no core at all) is a 500 in GitLab's shape, and the
// server goes on serving.
func TestPanicInTheHandlerIs500(t *testing.T) {
	logged := &lockedBuffer{}
	broken := forgecore.NewHandler(nil)
	broken.ErrorLog = log.New(logged, "", 0)
	mux := http.NewServeMux()
	mux.Handle("/broken/", broken)
	mux.HandleFunc("/ok", func(w http.ResponseWriter, _ *http.Request) { io.WriteString(w, "ok") })
	server := httptest.NewServer(mux)
	defer server.Close()
	for i := 0; i < 2; i++ {
		response, err := http.Get(server.URL + "/broken/x")
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(response.Body)
		response.Body.Close()
		if response.StatusCode != 500 || string(body) != `{"message":"500 Internal Server Error"}` ||
			response.Header.Get("Content-Type") != "application/json" {
			t.Fatalf("%d %v %s", response.StatusCode, response.Header, body)
		}
		response, err = http.Get(server.URL + "/ok")
		if err != nil || response.StatusCode != 200 {
			t.Fatalf("after a panic: %v %v", response, err)
		}
		response.Body.Close()
	}
	if !strings.Contains(logged.String(), "panic serving GET /broken/x") {
		t.Fatalf("the panic was not logged: %q", logged.String())
	}
}

// MaxRequests: a request whose body is still arriving holds its place, and one more is a 503
// at once; a client that waits for each answer (new connections, answers buffered and
// streamed) is never refused, even with one place.
func TestMaxRequests(t *testing.T) {
	handler := forgecore.NewHandler(fx.core)
	handler.MaxRequests = 1
	server := httptest.NewServer(handler)
	defer server.Close()
	client := &http.Client{Transport: &http.Transport{DisableKeepAlives: true}, Timeout: 30 * time.Second}
	get := func(target string) (int, []byte) {
		t.Helper()
		response, err := client.Get(server.URL + target)
		if err != nil {
			t.Fatal(err)
		}
		defer response.Body.Close()
		body, err := io.ReadAll(response.Body)
		if err != nil {
			t.Fatal(err)
		}
		return response.StatusCode, body
	}

	slow, err := net.DialTimeout("tcp", strings.TrimPrefix(server.URL, "http://"), 10*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	defer slow.Close()
	_ = slow.SetDeadline(time.Now().Add(30 * time.Second))
	payload := fmt.Sprintf(`{"name":"max %d","base_access_level":10}`, time.Now().UnixNano())
	fmt.Fprintf(slow, "POST /api/v4/member_roles HTTP/1.1\r\nHost: x\r\nPrivate-Token: %s\r\n"+
		"Content-Type: application/json\r\nContent-Length: %d\r\n\r\n%s", fx.token, len(payload), payload[:8])
	refused := false
	for deadline := time.Now().Add(10 * time.Second); !refused && time.Now().Before(deadline); {
		switch status, body := get("/api/v4/version"); status {
		case 503:
			if string(body) != `{"message":"503 Service Unavailable - too many requests"}` {
				t.Fatalf("refused with %s", body)
			}
			refused = true
		case 200: // the slow request's head has not reached the handler yet
			time.Sleep(10 * time.Millisecond)
		default:
			t.Fatalf("while a body arrives: %d %s", status, body)
		}
	}
	if !refused {
		t.Fatal("a request whose body is arriving did not hold its place")
	}
	_, _ = io.WriteString(slow, payload[8:])
	response, err := http.ReadResponse(bufio.NewReader(slow), nil)
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(response.Body)
	if response.StatusCode != 201 {
		t.Fatalf("the slow request: %d %s", response.StatusCode, body)
	}

	small := git(t, fx.repos+"/work", "rev-parse", "HEAD:bin.dat")
	want := gitBytes(t, fx.repos+"/work", "cat-file", "blob", small)
	for i := 0; i < 100; i++ {
		if status, body := get("/api/v4/version"); status != 200 {
			t.Fatalf("request %d, one at a time: %d %s", i, status, body)
		}
		if status, body := get("/api/v4/projects/fx%2Fwork/repository/blobs/" + small + "/raw"); status != 200 || !bytes.Equal(body, want) {
			t.Fatalf("streamed request %d, one at a time: %d %q", i, status, body)
		}
	}
}

// A closed core answers 503 through the handler and ErrClosed through Do.
func TestClosedCore(t *testing.T) {
	core, err := forgecore.Open(forgecore.Config{DataDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	handler := forgecore.NewHandler(core)
	if err := core.Close(); err != nil {
		t.Fatal(err)
	}
	recorder := httptest.NewRecorder()
	handler.ServeHTTP(recorder, httptest.NewRequest("GET", "/api/v4/version", nil))
	if recorder.Code != 503 || !json.Valid(recorder.Body.Bytes()) {
		t.Fatalf("%d %s", recorder.Code, recorder.Body)
	}
	if _, err := core.Do("GET", "/api/v4/version", nil, nil); err != forgecore.ErrClosed {
		t.Fatalf("Do after Close: %v", err)
	}
	if err := core.Close(); err != nil {
		t.Fatalf("second Close: %v", err)
	}
}

// lockedBuffer is a log destination the race detector accepts: the server writes it on its
// goroutines, the test reads it after a network round trip it cannot see.
type lockedBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *lockedBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *lockedBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}
