// Command forgecore-soak puts the Go host (forgecore-http) under mixed load for a while and
// checks that every answer is the expected one and that the host does not leak:
//
//	forgecore-soak -go-host PATH [-clients 32] [-seconds 60] [-warmup 5] [-fixture-script tests/fixtures/repo.sh]
//
// It builds the fixture repositories (tests/fixtures/repo.sh) into a temporary directory, adds
// one root group per 8 clients (soak0/app, soak1/app, ... pointing at the fixture's bare
// repository, so that group member roles never meet the 10-roles-per-group cap), starts the
// host on 127.0.0.1 port 0 with a fresh data directory, those repositories under -repos and a
// -config raising the archive, large-blob and health-generation rate limits out of reach,
// generates each project's health report once, checks every request of the mix once, then
// runs -clients clients for -seconds. Each client picks requests at random (seeded, so a run
// can be repeated) from the mix:
//
//   - member roles, instance and group: create (201), update (200), list (200), delete (204)
//   - GET /projects/:id by path and by id
//   - tree: offset pages, keyset pages followed through Link, recursive
//   - blob, raw blob; archive as tar.gz, zip, tar.bz2 and tar
//   - compare, contributors, merge base, changelog GET, health reads
//   - deliberately bad requests, answered exactly: an unknown ref (404 Tree Not Found), per_page=0
//     (400), anonymous on the instance roles (401)
//
// Every archive request must be a 200 starting with its format's magic bytes.
//
// After the warm-up and at the end, with every client paused between requests (so that no
// request holds a file or a buffer at that moment), it reads the host's VmRSS and Threads from
// /proc/PID/status and counts /proc/PID/fd. It exits non-zero with a clear message on any
// unexpected status, any transport error, RSS growth over the bound (see rssBound), fd growth
// over -fd-growth, anything on the host's stderr, or a host that does not stop cleanly on
// SIGTERM. Loopback only and bounded in time: every request has a timeout and the whole run
// a deadline after which the host is killed.
package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"math/rand"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"forgecore.dev/loadtest/internal/hostproc"
)

const (
	startupTimeout = 60 * time.Second
	requestTimeout = 30 * time.Second
	stopTimeout    = 15 * time.Second
	// clientsPerGroup keeps each root group under the core's cap of 10 roles: a client holds
	// at most one group role at a time.
	clientsPerGroup = 8
	// settle lets the host finish the requests its clients have just read (closing responses)
	// before a sample.
	settle = 300 * time.Millisecond
	// giveUp stops the clients early once this many requests failed (a dead host).
	giveUp = 1000
	// progressEvery is the period of the progress lines, in seconds.
	progressEvery = 10
	// rssFloor and rssFraction make the RSS bound: growth from the warm-up sample to the end may
	// be the larger of 64 MiB and half the warm-up figure. Allocators keep what they have
	// freed (glibc gives threads doing cgo calls their own arenas, up to 8 per core; Go's heap
	// target is twice the live heap), so a healthy host's RSS still creeps up after a short
	// warm-up, ever more slowly (measured: 48 -> 56 MiB in a minute, 62 MiB after four; 41 ->
	// 44 MiB with MALLOC_ARENA_MAX=1). A leak of one response, statement or repository handle
	// per request (a few hundred bytes and up) over the 100,000 and more requests of a
	// minute's soak exceeds 64 MiB. The summary prints the smallest per-request leak caught.
	rssFloor    = 64 << 20
	rssFraction = 0.5
)

func main() {
	os.Exit(run())
}

type options struct {
	goHost   string
	clients  int
	duration time.Duration
	warmup   time.Duration
	script   string
	fdGrowth int
	seed     int64
}

func run() int {
	var o options
	var seconds, warmup float64
	flag.StringVar(&o.goHost, "go-host", "", "the forgecore-http `binary` (required)")
	flag.IntVar(&o.clients, "clients", 32, "concurrent clients")
	flag.Float64Var(&seconds, "seconds", 60, "length of the run, warm-up included")
	flag.Float64Var(&warmup, "warmup", 5, "seconds before the first RSS and fd sample")
	flag.StringVar(&o.script, "fixture-script", "tests/fixtures/repo.sh", "the script that builds the fixture repositories")
	flag.IntVar(&o.fdGrowth, "fd-growth", 8, "open file descriptors the host may gain between the samples")
	flag.Int64Var(&o.seed, "seed", 1, "seed of the clients' random choices")
	flag.Parse()
	o.duration = time.Duration(seconds * float64(time.Second))
	o.warmup = time.Duration(warmup * float64(time.Second))
	switch {
	case o.goHost == "":
		return usage("-go-host is required")
	case flag.NArg() > 0:
		return usage(fmt.Sprintf("unexpected arguments %q", flag.Args()))
	case o.clients < 1 || o.clients > 1024:
		return usage("-clients must be between 1 and 1024")
	case o.warmup <= 0 || o.duration <= o.warmup:
		return usage("-warmup must be positive and shorter than -seconds")
	}
	if err := soak(o); err != nil {
		fmt.Fprintf(os.Stderr, "forgecore-soak: FAIL: %v\n", err)
		return 1
	}
	return 0
}

func usage(message string) int {
	fmt.Fprintf(os.Stderr, "forgecore-soak: %s\n", message)
	flag.Usage()
	return 2
}

// sample is what /proc says about the host at one moment.
type sample struct {
	rss     int64 // bytes
	fds     int
	sockets int
	threads int
}

func readSample(pid int) (sample, error) {
	var s sample
	status, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return s, err
	}
	for _, line := range strings.Split(string(status), "\n") {
		fields := strings.Fields(line)
		if len(fields) < 2 {
			continue
		}
		switch fields[0] {
		case "VmRSS:":
			kib, _ := strconv.ParseInt(fields[1], 10, 64)
			s.rss = kib << 10
		case "Threads:":
			s.threads, _ = strconv.Atoi(fields[1])
		}
	}
	if s.rss == 0 {
		return s, fmt.Errorf("no VmRSS in /proc/%d/status", pid)
	}
	dir := fmt.Sprintf("/proc/%d/fd", pid)
	entries, err := os.ReadDir(dir)
	if err != nil {
		return s, err
	}
	for _, entry := range entries {
		s.fds++
		if target, err := os.Readlink(filepath.Join(dir, entry.Name())); err == nil && strings.HasPrefix(target, "socket:") {
			s.sockets++
		}
	}
	return s, nil
}

func mib(bytes int64) string { return fmt.Sprintf("%.1f MiB", float64(bytes)/(1<<20)) }

func soak(o options) error {
	budget := o.duration + 2*startupTimeout + requestTimeout + stopTimeout
	ctx, cancel := context.WithTimeout(context.Background(), budget)
	defer cancel()

	dir, err := os.MkdirTemp("", "forgecore-soak-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	repos := filepath.Join(dir, "repos")
	if out, err := exec.Command("bash", o.script, filepath.Join(repos, "fx")).CombinedOutput(); err != nil {
		return fmt.Errorf("%s: %v\n%s", o.script, err, out)
	}
	groups := (o.clients + clientsPerGroup - 1) / clientsPerGroup
	for g := 0; g < groups; g++ {
		if err := os.MkdirAll(filepath.Join(repos, fmt.Sprintf("soak%d", g)), 0o755); err != nil {
			return err
		}
		if err := os.Symlink(filepath.Join(repos, "fx", "bare.git"), filepath.Join(repos, fmt.Sprintf("soak%d", g), "app")); err != nil {
			return err
		}
	}
	// Rate limits out of reach for the run; the API rate limit stays off (its default).
	high := map[string]int{"limit": 1_000_000_000, "period_seconds": 60}
	config, _ := json.Marshal(map[string]any{"rate_limits": map[string]any{
		"archive": high, "large_blob": high, "health_generate": high,
	}})
	configFile := filepath.Join(dir, "config.json")
	if err := os.WriteFile(configFile, config, 0o644); err != nil {
		return err
	}

	h, err := hostproc.Start(ctx, startupTimeout, o.goHost, "-listen", "127.0.0.1:0", "-data-dir", filepath.Join(dir, "data"),
		"-repos", repos, "-config", configFile, "-print-admin-token",
		// Anything on stderr is a failure of the soak: the request records are not wanted here.
		"-request-log=false")
	if err != nil {
		return fmt.Errorf("starting %s: %w", o.goHost, err)
	}
	stopped := false
	defer func() {
		if !stopped {
			h.Kill()
		}
	}()
	pid := h.Pid

	transport := &http.Transport{
		MaxIdleConns: o.clients, MaxIdleConnsPerHost: o.clients, MaxConnsPerHost: o.clients,
		DisableCompression: true, IdleConnTimeout: time.Hour,
	}
	s := &state{h: h, client: &http.Client{Timeout: requestTimeout, Transport: transport}, groups: groups}
	if err := s.setup(); err != nil {
		return fmt.Errorf("setup: %w", err)
	}
	// Every request of the mix once, in order, before the load: a wrong expectation fails here
	// with one clear message.
	check := s.newClient(-1, o.seed)
	for _, op := range mix {
		op.run(check)
		if failure := s.firstFailure(); failure != "" {
			return fmt.Errorf("checking %s before the load: %s", op.name, failure)
		}
	}

	s.requests.Store(0)
	fmt.Printf("soak: %d clients for %v (warm-up %v) against %s (pid %d), %d root groups for group roles\n",
		o.clients, o.duration, o.warmup, o.goHost, pid, groups)
	began := time.Now()
	end := began.Add(o.duration)
	var wg sync.WaitGroup
	clients := make([]*client, o.clients)
	for i := range clients {
		clients[i] = s.newClient(i, o.seed+int64(i)+1)
		wg.Add(1)
		go func(c *client) {
			defer wg.Done()
			for time.Now().Before(end) && ctx.Err() == nil && s.failures.Load() < giveUp {
				s.pause.RLock()
				c.pick().run(c)
				s.pause.RUnlock()
			}
		}(clients[i])
	}
	// RSS every second for the peak; the warm-up sample with every client paused.
	var first sample
	var firstErr error
	peak := int64(0)
	ticker := time.NewTicker(time.Second)
	warm := time.After(o.warmup)
	finished := make(chan struct{})
	go func() { wg.Wait(); close(finished) }()
	sampled := false
wait:
	for {
		select {
		case tick := <-ticker.C:
			now, err := readSample(pid)
			if err == nil && now.rss > peak {
				peak = now.rss
			}
			if seconds := int(tick.Sub(began).Round(time.Second).Seconds()); err == nil && seconds%progressEvery == 0 {
				fmt.Printf("soak: %3d s: %d requests, %d errors, RSS %s, %d fds, %d threads\n",
					seconds, s.requests.Load(), s.failures.Load(), mib(now.rss), now.fds, now.threads)
			}
		case <-warm:
			s.pause.Lock()
			time.Sleep(settle)
			first, firstErr = readSample(pid)
			s.requestsAtSample.Store(s.requests.Load())
			s.pause.Unlock()
			sampled = true
			fmt.Printf("soak: after the warm-up (%d requests): RSS %s, %d fds (%d sockets), %d threads\n",
				s.requests.Load(), mib(first.rss), first.fds, first.sockets, first.threads)
		case <-finished:
			break wait
		}
	}
	ticker.Stop()
	elapsed := time.Since(began)
	time.Sleep(settle)
	last, lastErr := readSample(pid)
	if lastErr == nil && last.rss > peak {
		peak = last.rss
	}
	transport.CloseIdleConnections()
	stopErr := h.Stop(stopTimeout)
	stopped = true

	// The report, then the verdict.
	stats := map[string]*opStats{}
	for _, c := range clients {
		for name, st := range c.stats {
			if stats[name] == nil {
				stats[name] = &opStats{}
			}
			stats[name].count += st.count
			stats[name].latencies = append(stats[name].latencies, st.latencies...)
		}
	}
	printStats(stats)
	requests := s.requests.Load()
	failures := s.failures.Load()
	measured := requests - s.requestsAtSample.Load()
	var problems []string
	if failures > 0 {
		problems = append(problems, fmt.Sprintf("%d unexpected answers or transport errors, the first: %s", failures, s.firstFailure()))
	}
	switch {
	case !sampled:
		problems = append(problems, "no RSS or fd figures: the clients stopped before the warm-up ended")
	case firstErr != nil || lastErr != nil:
		problems = append(problems, fmt.Sprintf("reading /proc/%d: warm-up sample: %v, end sample: %v", pid, firstErr, lastErr))
	default:
		problems = append(problems, growthProblems(first, last, o.fdGrowth)...)
		if measured > 0 {
			bound := rssBound(first.rss)
			fmt.Printf("soak: the RSS bound (%s) catches a leak of %d bytes or more per request after the warm-up (%d requests)\n",
				mib(bound), bound/measured, measured)
		}
	}
	if stopErr != nil {
		problems = append(problems, stopErr.Error())
	}
	if text := h.Stderr(); text != "" {
		problems = append(problems, fmt.Sprintf("the host wrote to stderr:\n%s", tail(text, 2000)))
	}
	fmt.Printf("soak summary: %d requests served in %.1f s (%.0f/s) by %d clients, errors %d, RSS %s -> %s (peak %s), fds %d -> %d, threads %d -> %d\n",
		requests, elapsed.Seconds(), float64(requests)/elapsed.Seconds(), o.clients, failures,
		mib(first.rss), mib(last.rss), mib(peak), first.fds, last.fds, first.threads, last.threads)
	if len(problems) > 0 {
		return errors.New(strings.Join(problems, "; "))
	}
	return nil
}

// rssBound is the RSS growth allowed after a warm-up sample of start bytes.
func rssBound(start int64) int64 {
	return max(int64(rssFloor), int64(rssFraction*float64(start)))
}

// growthProblems compares the end sample with the warm-up one.
func growthProblems(first, last sample, fdGrowth int) []string {
	var problems []string
	if growth, bound := last.rss-first.rss, rssBound(first.rss); growth > bound {
		problems = append(problems, fmt.Sprintf("RSS grew by %s (%s -> %s), over the bound of %s",
			mib(growth), mib(first.rss), mib(last.rss), mib(bound)))
	}
	if last.fds-first.fds > fdGrowth {
		problems = append(problems, fmt.Sprintf("open file descriptors grew from %d to %d (%d sockets -> %d), over the allowed %d",
			first.fds, last.fds, first.sockets, last.sockets, fdGrowth))
	}
	return problems
}

func tail(text string, n int) string {
	if len(text) <= n {
		return text
	}
	return "..." + text[len(text)-n:]
}

// state is what the clients share: the host, what setup learnt, the counters.
type state struct {
	h      *hostproc.Host
	client *http.Client
	groups int
	// pause: every request holds it for reading; a sample takes it for writing, so that no
	// request is in flight at that moment.
	pause            sync.RWMutex
	requests         atomic.Int64
	requestsAtSample atomic.Int64
	failures         atomic.Int64
	failureMu        sync.Mutex
	failure          string // the first one

	projects   []string // URL-encoded paths of the repository projects
	projectIDs []int
	readmeSHA  string
	binarySHA  string
	treeSize   int // entries at the root of the fixture tree
}

func (s *state) fail(format string, args ...any) {
	s.failures.Add(1)
	s.failureMu.Lock()
	defer s.failureMu.Unlock()
	if s.failure == "" {
		s.failure = fmt.Sprintf(format, args...)
	}
}

func (s *state) firstFailure() string {
	s.failureMu.Lock()
	defer s.failureMu.Unlock()
	return s.failure
}

// setup learns ids and blob SHAs and generates each project's health report once.
func (s *state) setup() error {
	c := s.newClient(-1, 0)
	for _, path := range []string{"fx/bare", "fx/work"} {
		encoded := url.PathEscape(path)
		body, _, ok := c.do("setup", "GET", "/api/v4/projects/"+encoded, nil, 200)
		var project struct {
			ID int `json:"id"`
		}
		if !ok || json.Unmarshal(body, &project) != nil || project.ID == 0 {
			return fmt.Errorf("GET project %s: %s", path, s.firstFailure())
		}
		s.projects = append(s.projects, encoded)
		s.projectIDs = append(s.projectIDs, project.ID)
		if _, _, ok := c.do("setup", "GET", "/api/v4/projects/"+encoded+"/repository/health?generate=true", c.admin, 200); !ok {
			return fmt.Errorf("generating the health report of %s: %s", path, s.firstFailure())
		}
	}
	body, _, ok := c.do("setup", "GET", "/api/v4/projects/fx%2Fbare/repository/tree?per_page=100", nil, 200)
	var entries []struct{ ID, Name string }
	if !ok || json.Unmarshal(body, &entries) != nil {
		return fmt.Errorf("tree: %s", s.firstFailure())
	}
	s.treeSize = len(entries)
	for _, e := range entries {
		switch e.Name {
		case "README.md":
			s.readmeSHA = e.ID
		case "bin.dat":
			s.binarySHA = e.ID
		}
	}
	if s.readmeSHA == "" || s.binarySHA == "" {
		return fmt.Errorf("no README.md or bin.dat in the fixture tree %s", body)
	}
	s.requests.Store(0)
	return nil
}

// client is one load client: its random source, its role counter and its statistics.
type client struct {
	s     *state
	id    int
	rng   *rand.Rand
	n     int
	stats map[string]*opStats
	admin http.Header
}

type opStats struct {
	count     int
	latencies []time.Duration
}

func (s *state) newClient(id int, seed int64) *client {
	return &client{s: s, id: id, rng: rand.New(rand.NewSource(seed)), stats: map[string]*opStats{},
		admin: http.Header{"Private-Token": {s.h.Token}}}
}

// do sends one request and checks its status (and, for error answers, nothing more: the
// callers check bodies where they matter). The target is a path under the host, or an
// absolute URL (a Link).
func (c *client) do(name, method, target string, header http.Header, want int, body ...any) ([]byte, http.Header, bool) {
	var reader io.Reader
	if len(body) > 0 {
		data, _ := json.Marshal(body[0])
		reader = bytes.NewReader(data)
		header = header.Clone()
		header.Set("Content-Type", "application/json")
	}
	full := target
	if !strings.HasPrefix(target, "http://") {
		full = c.s.h.URL + target
	}
	req, err := http.NewRequest(method, full, reader)
	if err != nil {
		c.s.fail("%s %s: %v", method, target, err)
		return nil, nil, false
	}
	for k, v := range header {
		req.Header[k] = v
	}
	started := time.Now()
	response, err := c.s.client.Do(req)
	var data []byte
	if err == nil {
		data, err = io.ReadAll(response.Body)
		response.Body.Close()
	}
	elapsed := time.Since(started)
	c.s.requests.Add(1)
	st := c.stats[name]
	if st == nil {
		st = &opStats{}
		c.stats[name] = st
	}
	st.count++
	st.latencies = append(st.latencies, elapsed)
	if err != nil {
		c.s.fail("%s %s: transport error: %v", method, target, err)
		return nil, nil, false
	}
	if response.StatusCode != want {
		c.s.fail("%s %s: status %d, want %d: %.300s", method, target, response.StatusCode, want, data)
		return data, response.Header, false
	}
	return data, response.Header, true
}

// expect checks a deliberately bad request's exact answer.
func (c *client) expect(name, target string, header http.Header, want int, wantBody string) {
	body, _, ok := c.do(name, "GET", target, header, want)
	if ok && string(body) != wantBody {
		c.s.fail("GET %s: body %.300s, want %s", target, body, wantBody)
	}
}

func (c *client) project() string { return c.s.projects[c.rng.Intn(len(c.s.projects))] }

func (c *client) repo(rest string) string {
	return "/api/v4/projects/" + c.project() + "/repository/" + rest
}

// roleCycle creates, updates, lists and deletes one role under base (instance or group).
func (c *client) roleCycle(name, base string) {
	c.n++
	levels := []int{10, 15, 20, 30, 40, 50}
	role := map[string]any{
		"name":              fmt.Sprintf("soak %d %d", c.id, c.n),
		"base_access_level": levels[c.rng.Intn(len(levels))],
		"read_code":         c.rng.Intn(2) == 0,
	}
	body, _, ok := c.do(name, "POST", base, c.admin, 201, role)
	var created struct {
		ID int `json:"id"`
	}
	if !ok || json.Unmarshal(body, &created) != nil || created.ID == 0 {
		if ok {
			c.s.fail("POST %s: no id in %.300s", base, body)
		}
		return
	}
	one := fmt.Sprintf("%s/%d", base, created.ID)
	body, _, ok = c.do(name, "PUT", one, c.admin, 200, map[string]string{"description": fmt.Sprintf("updated %d", c.n)})
	if ok && !bytes.Contains(body, []byte(fmt.Sprintf(`"description":"updated %d"`, c.n))) {
		c.s.fail("PUT %s: %.300s", one, body)
	}
	c.do(name, "GET", base, c.admin, 200)
	c.do(name, "DELETE", one, c.admin, 204)
}

// magic checks the first bytes of an archive format.
var archiveMagic = map[string]func([]byte) bool{
	"":         func(b []byte) bool { return bytes.HasPrefix(b, []byte{0x1f, 0x8b}) },
	".tar.gz":  func(b []byte) bool { return bytes.HasPrefix(b, []byte{0x1f, 0x8b}) },
	".zip":     func(b []byte) bool { return bytes.HasPrefix(b, []byte("PK\x03\x04")) },
	".tar.bz2": func(b []byte) bool { return bytes.HasPrefix(b, []byte("BZh")) },
	".tar":     func(b []byte) bool { return len(b) > 262 && string(b[257:262]) == "ustar" },
}

var archiveFormats = []string{"", ".tar.gz", ".zip", ".tar.bz2", ".tar"}

// mix is what the clients do, with weights (relative frequencies).
type operation struct {
	name   string
	weight int
	run    func(c *client)
}

var mix = []operation{
	{"instance roles", 3, func(c *client) { c.roleCycle("instance roles", "/api/v4/member_roles") }},
	{"group roles", 3, func(c *client) {
		c.roleCycle("group roles", fmt.Sprintf("/api/v4/groups/soak%d/member_roles", max(c.id, 0)/clientsPerGroup))
	}},
	{"project", 4, func(c *client) {
		if c.rng.Intn(2) == 0 {
			c.do("project", "GET", "/api/v4/projects/"+c.project(), nil, 200)
		} else {
			c.do("project", "GET", fmt.Sprintf("/api/v4/projects/%d", c.s.projectIDs[c.rng.Intn(len(c.s.projectIDs))]), nil, 200)
		}
	}},
	{"tree offset", 6, func(c *client) {
		c.do("tree offset", "GET", c.repo(fmt.Sprintf("tree?per_page=5&page=%d", 1+c.rng.Intn(3))), nil, 200)
	}},
	{"tree keyset", 4, func(c *client) {
		target, seen := c.repo("tree?pagination=keyset&per_page=5"), 0
		for pages := 0; target != "" && pages < 20; pages++ {
			body, header, ok := c.do("tree keyset", "GET", target, nil, 200)
			var entries []json.RawMessage
			if !ok || json.Unmarshal(body, &entries) != nil {
				return
			}
			seen += len(entries)
			target = nextLink(header.Get("Link"))
		}
		if seen != c.s.treeSize {
			c.s.fail("keyset pages gave %d entries, want %d", seen, c.s.treeSize)
		}
	}},
	{"tree recursive", 4, func(c *client) {
		c.do("tree recursive", "GET", c.repo("tree?recursive=true&per_page=100&ref=main"), nil, 200)
	}},
	{"blob", 6, func(c *client) { c.do("blob", "GET", c.repo("blobs/"+c.s.readmeSHA), nil, 200) }},
	{"raw blob", 6, func(c *client) {
		sha := c.s.readmeSHA
		if c.rng.Intn(2) == 0 {
			sha = c.s.binarySHA
		}
		c.do("raw blob", "GET", c.repo("blobs/"+sha+"/raw"), nil, 200)
	}},
	{"archive", 4, func(c *client) {
		format := archiveFormats[c.rng.Intn(len(archiveFormats))]
		query := ""
		if c.rng.Intn(3) == 0 {
			query = "?sha=feature"
		}
		body, _, ok := c.do("archive", "GET", c.repo("archive"+format+query), c.admin, 200)
		if ok && !archiveMagic[format](body) {
			c.s.fail("archive%s: not that format: %.40q", format, body)
		}
	}},
	{"compare", 4, func(c *client) {
		queries := []string{"from=v1.0.0&to=main", "from=main&to=feature", "from=v1.0.0&to=main&straight=true"}
		c.do("compare", "GET", c.repo("compare?"+queries[c.rng.Intn(len(queries))]), nil, 200)
	}},
	{"contributors", 4, func(c *client) {
		queries := []string{"", "?order_by=commits&sort=desc", "?ref=feature"}
		c.do("contributors", "GET", c.repo("contributors"+queries[c.rng.Intn(len(queries))]), nil, 200)
	}},
	{"merge base", 4, func(c *client) {
		c.do("merge base", "GET", c.repo("merge_base?refs[]=main&refs[]=feature"), nil, 200)
	}},
	{"changelog", 3, func(c *client) {
		body, _, ok := c.do("changelog", "GET", c.repo("changelog?version=2.0.0"), nil, 200)
		if ok && !bytes.Contains(body, []byte(`"notes":"## 2.0.0`)) {
			c.s.fail("changelog: %.300s", body)
		}
	}},
	{"health", 3, func(c *client) { c.do("health", "GET", c.repo("health"), c.admin, 200) }},
	{"bad: unknown ref", 2, func(c *client) {
		c.expect("bad: unknown ref", c.repo("tree?ref=no-such-ref"), nil, 404, `{"message":"404 Tree Not Found"}`)
	}},
	{"bad: per_page=0", 2, func(c *client) {
		c.expect("bad: per_page=0", c.repo("tree?per_page=0"), nil, 400, `{"error":"per_page does not have a valid value"}`)
	}},
	{"bad: anonymous roles", 2, func(c *client) {
		c.expect("bad: anonymous roles", "/api/v4/member_roles", nil, 401, `{"message":"401 Unauthorized"}`)
	}},
}

var totalWeight = func() int {
	total := 0
	for _, op := range mix {
		total += op.weight
	}
	return total
}()

func (c *client) pick() *operation {
	n := c.rng.Intn(totalWeight)
	for i := range mix {
		if n < mix[i].weight {
			return &mix[i]
		}
		n -= mix[i].weight
	}
	return &mix[len(mix)-1]
}

// nextLink is the URL of rel="next" in a Link header, or "".
func nextLink(link string) string {
	for _, part := range strings.Split(link, ",") {
		part = strings.TrimSpace(part)
		if strings.HasSuffix(part, `rel="next"`) {
			if start, end := strings.Index(part, "<"), strings.Index(part, ">"); start >= 0 && end > start {
				return part[start+1 : end]
			}
		}
	}
	return ""
}

func printStats(stats map[string]*opStats) {
	names := make([]string, 0, len(stats))
	for name := range stats {
		names = append(names, name)
	}
	sort.Strings(names)
	fmt.Printf("%-22s %9s %10s %10s\n", "operation", "requests", "median", "p99")
	for _, name := range names {
		st := stats[name]
		sort.Slice(st.latencies, func(i, j int) bool { return st.latencies[i] < st.latencies[j] })
		q := func(f float64) string {
			if len(st.latencies) == 0 {
				return "-"
			}
			i := min(len(st.latencies)-1, int(float64(len(st.latencies))*f))
			return fmt.Sprintf("%.2f ms", float64(st.latencies[i])/float64(time.Millisecond))
		}
		fmt.Printf("%-22s %9d %10s %10s\n", name, st.count, q(0.5), q(0.99))
	}
}
