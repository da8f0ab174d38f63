package main

// The soak's verdicts: it must fail when the host answers wrongly, when the host dies under
// it, and when RSS or file descriptors grow past the bounds. The passing run is `make
// test-soak`; these run short soaks in-process against the host built here from the binding's
// module (through a wrapper script that `exec`s it, so that the pid the soak samples is the
// host's).

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

var hostBinary string

const (
	fixtureScript = "../../../../tests/fixtures/repo.sh"
	// bindingModule is the Go binding's module, whose cmd/forgecore-http is the host.
	bindingModule = "../../../../bindings/go"
)

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "forgecore-soak-test-")
	if err != nil {
		panic(err)
	}
	hostBinary = filepath.Join(dir, "forgecore-http")
	build := exec.Command("go", "build", "-o", hostBinary, "./cmd/forgecore-http")
	build.Dir = bindingModule
	if out, err := build.CombinedOutput(); err != nil {
		os.RemoveAll(dir)
		panic(string(out))
	}
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

// wrapper writes a shell script that runs the host with the soak's arguments after prefix
// commands, and returns its path.
func wrapper(t *testing.T, prefix string, extra ...string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "host.sh")
	script := "#!/bin/sh\n" + prefix + "\nexec " + hostBinary + ` "$@" ` + strings.Join(extra, " ") + "\n"
	if err := os.WriteFile(path, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	return path
}

func short(host string) options {
	return options{goHost: host, clients: 4, duration: 4 * time.Second, warmup: time.Second,
		script: fixtureScript, fdGrowth: 8, seed: 1}
}

// A host answering 429 once a caller made 60 requests a minute (its last -config wins over
// the soak's): setup and the first pass of checks get through, the load does not.
func TestUnexpectedStatusFails(t *testing.T) {
	config := filepath.Join(t.TempDir(), "limited.json")
	if err := os.WriteFile(config, []byte(`{"rate_limits": {"api_requests": {"limit": 60, "period_seconds": 60}}}`), 0o644); err != nil {
		t.Fatal(err)
	}
	err := soak(short(wrapper(t, "", "-config", config)))
	if err == nil || !strings.Contains(err.Error(), "unexpected answers") || !strings.Contains(err.Error(), "status 429, want") {
		t.Fatalf("soak against a rate-limited host: %v", err)
	}
	t.Logf("the verdict: %v", err)
}

// A host killed in the middle of the run: transport errors, and no clean stop.
func TestHostDyingFails(t *testing.T) {
	err := soak(short(wrapper(t, "(sleep 3; kill -9 $$) &")))
	if err == nil || !strings.Contains(err.Error(), "transport error") || !strings.Contains(err.Error(), "exited") {
		t.Fatalf("soak against a host killed after 3 s: %v", err)
	}
	t.Logf("the verdict: %v", err)
}

func TestGrowthBounds(t *testing.T) {
	const mebi = 1 << 20
	start := sample{rss: 60 * mebi, fds: 89, sockets: 33}
	for _, c := range []struct {
		name     string
		end      sample
		problems int
		text     string
	}{
		{"flat", sample{rss: 66 * mebi, fds: 89, sockets: 33}, 0, ""},
		{"exactly 64 MiB and 8 fds more", sample{rss: 124 * mebi, fds: 97}, 0, ""},
		{"over 64 MiB more", sample{rss: 125 * mebi, fds: 89}, 1, "RSS grew by 65.0 MiB"},
		{"fds past the handful", sample{rss: 60 * mebi, fds: 98, sockets: 42}, 1, "open file descriptors grew from 89 to 98"},
	} {
		problems := growthProblems(start, c.end, 8)
		if len(problems) != c.problems || (c.text != "" && !strings.Contains(problems[0], c.text)) {
			t.Errorf("%s: %q", c.name, problems)
		}
	}
	// A large host is allowed half its warm-up RSS.
	big := sample{rss: 400 * mebi}
	if p := growthProblems(big, sample{rss: 599 * mebi}, 8); len(p) != 0 {
		t.Errorf("400 -> 599 MiB: %q", p)
	}
	if p := growthProblems(big, sample{rss: 601 * mebi}, 8); len(p) != 1 {
		t.Errorf("400 -> 601 MiB: %q", p)
	}
}

func TestReadSampleOfThisProcess(t *testing.T) {
	s, err := readSample(os.Getpid())
	if err != nil || s.rss <= 0 || s.fds < 3 || s.threads < 1 {
		t.Fatalf("%+v %v", s, err)
	}
	f, err := os.Open(fixtureScript)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if more, _ := readSample(os.Getpid()); more.fds != s.fds+1 {
		t.Fatalf("an opened file: %d -> %d fds", s.fds, more.fds)
	}
}

func TestNextLink(t *testing.T) {
	link := `<http://h/api/v4/projects/1/repository/tree?page_token=a%2Cb&per_page=5>; rel="next", <http://h/x?page=1>; rel="first"`
	if got := nextLink(link); got != "http://h/api/v4/projects/1/repository/tree?page_token=a%2Cb&per_page=5" {
		t.Fatalf("%q", got)
	}
	if got := nextLink(`<http://h/x?page=1>; rel="first"`); got != "" {
		t.Fatalf("%q", got)
	}
}
