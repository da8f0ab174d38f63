// Command forgecore-bench measures requests per second through the HTTP hosts, the Go host
// (forgecore-http) and the Python host (python -m forgecore serve), on loopback:
//
//	forgecore-bench -go-host PATH [-python python3] [-seconds 3] [-rounds 1] [-clients 1,16] [-hosts go,python]
//	                [-postgres URL [-postgres-hosts go] [-postgres-pool-size N] [-psql psql]]
//
// It builds the fixture repositories (tests/fixtures/repo.sh) into a temporary directory and
// starts every host first, each on 127.0.0.1 port 0 with a fresh data directory and that
// directory as -repos; for each it reads the URL and administrator token the host prints,
// creates 10 member roles (as the Rust bench does) and checks every endpoint answers 200.
// Then, -rounds times, for each endpoint and client count, it measures every host in turn
// (clients that send GET requests back to back for -seconds after a short warm-up), so the
// rows compared are taken minutes apart at most, under the same machine load. A row pools the
// requests of all its rounds; one table is printed. The endpoints: GET /api/v4/version (the
// smallest answer: what the host and the call itself cost), GET /api/v4/member_roles (10
// roles) and a one-level tree, GET /api/v4/projects/fx%2Fwork/repository/tree (12 entries of
// the fixture work tree, repacked).
//
// With -postgres (a libpq URL of a role that may create databases, e.g. the server `make
// bench-go` starts under pg_virtualenv), each host named in -postgres-hosts is measured a second
// time with its data in PostgreSQL: a fresh database per host (created with psql), passed in a
// -config file as {"store": {"postgres": URL}}, the same repositories and roles. A second table
// then puts both backends side by side with the PostgreSQL/SQLite ratio of median latencies
// (the goal: reads within 2x of SQLite's).
//
// With -quiet-hosts, each host named there is measured once more with the core's request
// records and metrics off (-request-log=false / --no-request-log and {"monitoring": {"metrics":
// false}}), shown as HOST/off; a last table puts each such row beside the host with them on (the
// default: a JSON line per request to stderr, read by this program, and every request counted
// for /-/metrics), with the difference in throughput and median latency (the goal: under 5 %).
//
// Loopback only and bounded: every request has a timeout, the run stops itself after its
// budget (killing the hosts), and the hosts are stopped with SIGTERM at the end. Slowness is
// reported, never an error; the exit status is non-zero only when a host cannot be started or
// answers wrongly before measuring.
package main

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"net/http"
	neturl "net/url"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"forgecore.dev/loadtest/internal/hostproc"
)

const (
	startupTimeout = 60 * time.Second
	stopTimeout    = 10 * time.Second
	requestTimeout = 10 * time.Second
	warmup         = 300 * time.Millisecond
	roles          = 10
	treeTarget     = "/api/v4/projects/fx%2Fwork/repository/tree"
	rolesTarget    = "/api/v4/member_roles"
	versionTarget  = "/api/v4/version"
)

func main() {
	os.Exit(run())
}

func run() int {
	goHost := flag.String("go-host", "", "the forgecore-http binary (required for the go host)")
	python := flag.String("python", "python3", "the Python interpreter for the Python host (PYTHONPATH and FORGECORE_LIB come from the environment)")
	seconds := flag.Float64("seconds", 3, "measuring time per row")
	rounds := flag.Int("rounds", 1, "how many times every row is measured, the hosts taking turns")
	clientList := flag.String("clients", "1,16", "client counts, comma-separated")
	hostList := flag.String("hosts", "go,python", "hosts to measure, comma-separated: go, python")
	repoScript := flag.String("fixture-script", "tests/fixtures/repo.sh", "the script that builds the fixture repositories")
	postgres := flag.String("postgres", "", "a PostgreSQL server `URL` (a role that may create databases): measure the -postgres-hosts on PostgreSQL too")
	postgresHosts := flag.String("postgres-hosts", "go", "hosts to measure on PostgreSQL as well, comma-separated")
	psql := flag.String("psql", "psql", "the psql program, which creates the databases")
	poolSize := flag.Int("postgres-pool-size", 0, "store.pool_size of the hosts on PostgreSQL (0: the core's default)")
	quietHosts := flag.String("quiet-hosts", "", "hosts to measure a second time with request records and metrics off, comma-separated")
	flag.Parse()

	var clients []int
	for _, field := range strings.Split(*clientList, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(field))
		if err != nil || n < 1 || n > 256 {
			fmt.Fprintf(os.Stderr, "forgecore-bench: bad -clients %q\n", *clientList)
			return 2
		}
		clients = append(clients, n)
	}
	duration := time.Duration(*seconds * float64(time.Second))
	if *rounds < 1 || *rounds > 100 {
		fmt.Fprintf(os.Stderr, "forgecore-bench: bad -rounds %d\n", *rounds)
		return 2
	}
	hosts := strings.Split(*hostList, ",")
	// What is measured: each host on SQLite, then the -postgres-hosts on PostgreSQL.
	type hostRun struct {
		host, backend string
		quiet         bool // request records and metrics off
	}
	var runs []hostRun
	for _, name := range hosts {
		runs = append(runs, hostRun{strings.TrimSpace(name), sqlite, false})
	}
	if *quietHosts != "" {
		for _, name := range strings.Split(*quietHosts, ",") {
			runs = append(runs, hostRun{strings.TrimSpace(name), sqlite, true})
		}
	}
	if *postgres != "" {
		for _, name := range strings.Split(*postgresHosts, ",") {
			runs = append(runs, hostRun{strings.TrimSpace(name), postgresql, false})
		}
	}
	rowBudget := duration + warmup + requestTimeout + 5*time.Second
	budget := time.Duration(len(runs))*(startupTimeout+time.Duration(*rounds*len(endpoints)*len(clients))*rowBudget) + 30*time.Second
	ctx, cancel := context.WithTimeout(context.Background(), budget)
	defer cancel()

	dir, err := os.MkdirTemp("", "forgecore-bench-hosts-")
	if err != nil {
		fmt.Fprintln(os.Stderr, "forgecore-bench:", err)
		return 1
	}
	defer os.RemoveAll(dir)
	repos := filepath.Join(dir, "repos")
	if out, err := exec.Command("bash", *repoScript, filepath.Join(repos, "fx")).CombinedOutput(); err != nil {
		fmt.Fprintf(os.Stderr, "forgecore-bench: %s: %v\n%s", *repoScript, err, out)
		return 1
	}
	// Served repositories are packed, as a real one is; the script leaves loose objects.
	if out, err := exec.Command("git", "-C", filepath.Join(repos, "fx", "work"), "repack", "-adq").CombinedOutput(); err != nil {
		fmt.Fprintf(os.Stderr, "forgecore-bench: git repack: %v\n%s", err, out)
		return 1
	}

	fmt.Printf("\nHTTP hosts on loopback: Go net/http clients with keep-alive, %g s per row after a %v warm-up; nproc %d, GOMAXPROCS %d, load %s\n",
		*seconds, warmup, runtime.NumCPU(), runtime.GOMAXPROCS(0), loadAverage())
	var started []*target
	defer func() {
		for _, t := range started {
			_ = t.host.Stop(stopTimeout)
		}
	}()
	status := 0
	for i, r := range runs {
		name := r.host
		var command []string
		switch name {
		case "go":
			if *goHost == "" {
				fmt.Fprintln(os.Stderr, "forgecore-bench: -go-host is required for the go host")
				return 2
			}
			command = []string{*goHost}
		case "python":
			command = []string{*python, "-m", "forgecore", "serve"}
		default:
			fmt.Fprintf(os.Stderr, "forgecore-bench: unknown host %q\n", name)
			return 2
		}
		// Both hosts take these (Go's flag package accepts the two-dash spelling too).
		label := fmt.Sprintf("%s-%s-%d", name, r.backend, i)
		command = append(command, "--listen", "127.0.0.1:0", "--data-dir", filepath.Join(dir, "data-"+label),
			"--repos", repos, "--print-admin-token")
		if r.backend == postgresql {
			config, err := postgresConfig(*psql, *postgres, *poolSize, filepath.Join(dir, "config-"+label+".json"))
			if err != nil {
				fmt.Fprintf(os.Stderr, "forgecore-bench: %s host on PostgreSQL: %v\n", name, err)
				status = 1
				continue
			}
			command = append(command, "--config", config)
		}
		kind := name
		if r.quiet {
			path := filepath.Join(dir, "config-"+label+".json")
			if err := os.WriteFile(path, []byte(`{"monitoring": {"metrics": false}}`), 0o600); err != nil {
				fmt.Fprintln(os.Stderr, "forgecore-bench:", err)
				return 1
			}
			command = append(command, "--config", path)
			if name == "go" {
				command = append(command, "-request-log=false")
			} else {
				command = append(command, "--no-request-log")
			}
			kind = name + "/off"
		}
		// A host named twice for one backend (a comparison of two builds) is told apart: go#2.
		shown, same := kind, 1
		for _, other := range started {
			if other.kind == kind && other.backend == r.backend {
				same++
				shown = fmt.Sprintf("%s#%d", name, same)
			}
		}
		t, err := startHost(ctx, kind, shown, r.backend, command)
		if err != nil {
			fmt.Fprintf(os.Stderr, "forgecore-bench: %s host (%s): %v\n", name, r.backend, err)
			status = 1
			continue
		}
		started = append(started, t)
	}
	samples := map[rowKey]*sample{}
	var order []rowKey
	for round := 0; round < *rounds && ctx.Err() == nil; round++ {
		for _, e := range endpoints {
			for _, n := range clients {
				for _, t := range started {
					if ctx.Err() != nil {
						break
					}
					k := rowKey{t.name, t.backend, "GET " + e.target, n}
					s := measure(newClient(n), t.host.URL+e.target, t.header(e), n, duration)
					fmt.Fprintf(os.Stderr, "  round %d  %-6s %-10s %-52s x%-3d %8.0f rps\n",
						round+1, k.host, k.backend, k.endpoint, n, float64(len(s.latencies))/duration.Seconds())
					if samples[k] == nil {
						samples[k] = &sample{}
						order = append(order, k)
					}
					samples[k].add(s)
				}
			}
		}
	}
	var rows []row
	for _, k := range order {
		rows = append(rows, summarize(k, samples[k], time.Duration(*rounds)*duration))
	}
	printTable(rows)
	if *postgres != "" {
		fmt.Println()
		printComparison(rows)
	}
	if *quietHosts != "" {
		fmt.Println()
		printObserveCost(rows)
	}
	return status
}

// The backends a host keeps its data in.
const (
	sqlite     = "sqlite"
	postgresql = "postgresql"
)

// postgresConfig creates a fresh database on the server (with psql) and writes a host
// configuration naming it (and poolSize, unless 0) to path; answers path.
func postgresConfig(psql, server string, poolSize int, path string) (string, error) {
	name := fmt.Sprintf("forgecore_bench_%d_%d", os.Getpid(), time.Now().UnixNano())
	url, err := databaseURL(server, name)
	if err != nil {
		return "", err
	}
	command := exec.Command(psql, "-X", "-q", "-v", "ON_ERROR_STOP=1", "-c", "CREATE DATABASE "+name, server)
	command.Env = append(os.Environ(), "PGCONNECT_TIMEOUT=10")
	if out, err := command.CombinedOutput(); err != nil {
		return "", fmt.Errorf("CREATE DATABASE with %s: %v: %s", psql, err, bytes.TrimSpace(out))
	}
	store := map[string]any{"postgres": url}
	if poolSize > 0 {
		store["pool_size"] = poolSize
	}
	config, _ := json.Marshal(map[string]any{"store": store})
	return path, os.WriteFile(path, config, 0o600)
}

// databaseURL is the libpq URL server with its database replaced by name.
func databaseURL(server, name string) (string, error) {
	u, err := neturl.Parse(server)
	if err != nil || (u.Scheme != "postgresql" && u.Scheme != "postgres") || u.Host == "" {
		return "", fmt.Errorf("-postgres must be a postgresql://user:password@host:port/database URL, got %q", server)
	}
	u.Path, u.RawPath = "/"+name, ""
	return u.String(), nil
}

type row struct {
	host, backend    string
	endpoint         string
	clients          int
	requests, errors int
	rps              float64
	median, p99      time.Duration
}

// An endpoint measured: its target, whether it needs the token, what a good answer looks like.
type endpoint struct {
	target string
	auth   bool
	check  func([]byte) bool
}

var endpoints = []endpoint{
	{versionTarget, true, func(body []byte) bool {
		var v map[string]any
		return json.Unmarshal(body, &v) == nil && v["version"] != nil
	}},
	{rolesTarget, true, func(body []byte) bool { var v []any; return json.Unmarshal(body, &v) == nil && len(v) == roles }},
	{treeTarget, false, func(body []byte) bool { var v []any; return json.Unmarshal(body, &v) == nil && len(v) == 12 }},
}

// A host that is up, with its roles created and every endpoint checked: its kind (go,
// python), the name its rows show, its backend.
type target struct {
	kind, name, backend string
	host                *hostproc.Host
}

// header is what a request to the endpoint carries: the administrator token where it needs one.
func (t *target) header(e endpoint) http.Header {
	if !e.auth {
		return nil
	}
	return http.Header{"Private-Token": {t.host.Token}}
}

// startHost starts the host, creates the member roles and checks that every endpoint answers
// as it should; the host is stopped again on any error.
func startHost(ctx context.Context, kind, name, backend string, command []string) (*target, error) {
	h, err := hostproc.Start(ctx, startupTimeout, command...)
	if err != nil {
		return nil, err
	}
	t := &target{kind, name, backend, h}
	if err := t.prepare(); err != nil {
		_ = h.Stop(stopTimeout)
		return nil, err
	}
	return t, nil
}

func (t *target) prepare() error {
	client := newClient(4)
	levels := []int{10, 15, 20, 30, 40, 50}
	for i := 0; i < roles; i++ {
		role, _ := json.Marshal(map[string]any{
			"name": fmt.Sprintf("bench role %02d", i), "description": fmt.Sprintf("custom role %d created by the benchmark", i),
			"base_access_level": levels[i%len(levels)], "read_code": i%2 == 0, "read_vulnerability": i%3 == 0,
		})
		header := http.Header{"Private-Token": {t.host.Token}, "Content-Type": {"application/json"}}
		if status, body, err := get(client, "POST", t.host.URL+rolesTarget, header, role); err != nil || status != 201 {
			return fmt.Errorf("POST %s: %d %v %.200s", rolesTarget, status, err, body)
		}
	}
	for _, e := range endpoints {
		status, body, err := get(client, "GET", t.host.URL+e.target, t.header(e), nil)
		if err != nil || status != 200 || !e.check(body) {
			return fmt.Errorf("GET %s: %d %v %.200s", e.target, status, err, body)
		}
	}
	client.CloseIdleConnections()
	return nil
}

func newClient(conns int) *http.Client {
	return &http.Client{
		Timeout: requestTimeout,
		Transport: &http.Transport{
			MaxIdleConns: conns, MaxIdleConnsPerHost: conns, DisableCompression: true,
			IdleConnTimeout: 30 * time.Second,
		},
	}
}

func get(client *http.Client, method, url string, header http.Header, body []byte) (int, []byte, error) {
	var reader io.Reader
	if body != nil {
		reader = bytes.NewReader(body)
	}
	req, err := http.NewRequest(method, url, reader)
	if err != nil {
		return 0, nil, err
	}
	for name, values := range header {
		req.Header[name] = values
	}
	response, err := client.Do(req)
	if err != nil {
		return 0, nil, err
	}
	defer response.Body.Close()
	data, err := io.ReadAll(response.Body)
	return response.StatusCode, data, err
}

// measure runs n clients back to back for the warm-up plus duration; requests started in
// the warm-up are not counted.
func measure(client *http.Client, url string, header http.Header, n int, duration time.Duration) sample {
	begin := time.Now().Add(warmup)
	end := begin.Add(duration)
	var mu sync.Mutex
	var latencies []time.Duration
	errorCount := 0
	var wg sync.WaitGroup
	for i := 0; i < n; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			local := make([]time.Duration, 0, 4096)
			failed := 0
			req, _ := http.NewRequest("GET", url, nil)
			for name, values := range header {
				req.Header[name] = values
			}
			for {
				started := time.Now()
				if started.After(end) {
					break
				}
				ok := false
				if response, err := client.Do(req); err == nil {
					_, err = io.Copy(io.Discard, response.Body)
					response.Body.Close()
					ok = err == nil && response.StatusCode == 200
				}
				if started.After(begin) {
					if ok {
						local = append(local, time.Since(started))
					} else {
						failed++
					}
				}
			}
			mu.Lock()
			latencies = append(latencies, local...)
			errorCount += failed
			mu.Unlock()
		}()
	}
	wg.Wait()
	client.CloseIdleConnections()
	return sample{latencies, errorCount}
}

// One row of the table: a host on a backend, an endpoint, a client count.
type rowKey struct {
	host, backend, endpoint string
	clients                 int
}

// What a row's rounds measured: the latency of every request that succeeded, and the failures.
type sample struct {
	latencies []time.Duration
	errors    int
}

func (s *sample) add(other sample) {
	s.latencies = append(s.latencies, other.latencies...)
	s.errors += other.errors
}

// summarize is the row of a key from its samples, measured for `measured` in all.
func summarize(k rowKey, s *sample, measured time.Duration) row {
	latencies := s.latencies
	sort.Slice(latencies, func(i, j int) bool { return latencies[i] < latencies[j] })
	quantile := func(q float64) time.Duration {
		if len(latencies) == 0 {
			return 0
		}
		i := int(float64(len(latencies))*q+0.999999) - 1
		return latencies[max(0, min(len(latencies)-1, i))]
	}
	return row{host: k.host, backend: k.backend, endpoint: k.endpoint, clients: k.clients,
		requests: len(latencies), errors: s.errors,
		rps: float64(len(latencies)) / measured.Seconds(), median: quantile(0.5), p99: quantile(0.99)}
}

func printTable(rows []row) {
	lines := [][]string{{"host", "store", "endpoint", "clients", "requests", "rps", "median", "p99", "errors"}}
	for _, r := range rows {
		lines = append(lines, []string{r.host, r.backend, r.endpoint, strconv.Itoa(r.clients), strconv.Itoa(r.requests),
			fmt.Sprintf("%.0f", r.rps), ms(r.median), ms(r.p99), strconv.Itoa(r.errors)})
	}
	printLines(lines, 3)
}

// printComparison puts each host's rows on SQLite and on PostgreSQL side by side, with the
// ratio of their median latencies; a ratio over 2 (the goal's bound) is marked. The p99s are
// there because with many clients on few cores the median alone hides a long tail.
func printComparison(rows []row) {
	type key struct {
		host, endpoint string
		clients        int
	}
	on := map[string]map[key]row{sqlite: {}, postgresql: {}}
	var order []key
	for _, r := range rows {
		k := key{r.host, r.endpoint, r.clients}
		if r.backend == postgresql {
			order = append(order, k)
		}
		on[r.backend][k] = r
	}
	lines := [][]string{{"host", "endpoint", "clients", "SQLite rps", "PostgreSQL rps",
		"SQLite median / p99", "PostgreSQL median / p99", "PostgreSQL/SQLite median latency"}}
	for _, k := range order {
		lite, ok := on[sqlite][k]
		pg := on[postgresql][k]
		if !ok {
			continue
		}
		lines = append(lines, []string{k.host, k.endpoint, strconv.Itoa(k.clients),
			fmt.Sprintf("%.0f", lite.rps), fmt.Sprintf("%.0f", pg.rps),
			ms(lite.median) + " / " + ms(lite.p99), ms(pg.median) + " / " + ms(pg.p99),
			latencyRatio(lite.median, pg.median)})
	}
	printLines(lines, 2)
}

// printObserveCost puts each HOST/off row (records and metrics off) beside the HOST row (on):
// throughput and median latency, and how much the records and metrics cost (the goal: < 5 %).
func printObserveCost(rows []row) {
	type key struct {
		host, backend, endpoint string
		clients                 int
	}
	on := map[key]row{}
	for _, r := range rows {
		on[key{r.host, r.backend, r.endpoint, r.clients}] = r
	}
	lines := [][]string{{"host", "endpoint", "clients", "rps on", "rps off", "median on / off", "rps cost", "median cost"}}
	for _, off := range rows {
		host, quiet := strings.CutSuffix(off.host, "/off")
		if !quiet {
			continue
		}
		r, ok := on[key{host, off.backend, off.endpoint, off.clients}]
		if !ok || off.rps == 0 || off.median == 0 {
			continue
		}
		cost := func(x float64) string {
			mark := ""
			if x > 5 {
				mark = " (over 5 %)"
			}
			return fmt.Sprintf("%+.1f %%%s", x, mark)
		}
		lines = append(lines, []string{host, off.endpoint, strconv.Itoa(off.clients),
			fmt.Sprintf("%.0f", r.rps), fmt.Sprintf("%.0f", off.rps), ms(r.median) + " / " + ms(off.median),
			cost(100 * (off.rps - r.rps) / off.rps), cost(100 * (float64(r.median) - float64(off.median)) / float64(off.median))})
	}
	printLines(lines, 2)
}

// latencyRatio is pg/lite as "1.23", "2.50 (over 2x)", or "-" without both figures.
func latencyRatio(lite, pg time.Duration) string {
	if lite <= 0 || pg <= 0 {
		return "-"
	}
	ratio := float64(pg) / float64(lite)
	if ratio > 2 {
		return fmt.Sprintf("%.2f (over 2x)", ratio)
	}
	return fmt.Sprintf("%.2f", ratio)
}

// printLines prints a table whose first `text` columns are left-aligned, the others right.
func printLines(lines [][]string, text int) {
	widths := make([]int, len(lines[0]))
	for _, line := range lines {
		for i, cell := range line {
			widths[i] = max(widths[i], len(cell))
		}
	}
	for n, line := range lines {
		cells := make([]string, len(line))
		for i, cell := range line {
			if i < text {
				cells[i] = cell + strings.Repeat(" ", widths[i]-len(cell))
			} else {
				cells[i] = strings.Repeat(" ", widths[i]-len(cell)) + cell
			}
		}
		fmt.Println(strings.Join(cells, " | "))
		if n == 0 {
			dashes := make([]string, len(widths))
			for i, w := range widths {
				dashes[i] = strings.Repeat("-", w)
			}
			fmt.Println(strings.Join(dashes, "-|-"))
		}
	}
}

func ms(d time.Duration) string {
	if d == 0 {
		return "-"
	}
	return fmt.Sprintf("%.2f ms", float64(d)/float64(time.Millisecond))
}

func loadAverage() string {
	data, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return "?"
	}
	fields := strings.Fields(string(data))
	if len(fields) < 3 {
		return "?"
	}
	return strings.Join(fields[:3], " ")
}
