// Command forgecore-http serves forgecore's /api/v4 over net/http, as the Python host does:
//
//	forgecore-http -data-dir DIR [-listen HOST:PORT] [-repos DIR] [-external-url URL] [-config FILE] [-print-admin-token]
//	               [-read-timeout DURATION] [-write-timeout DURATION] [-max-connections N]
//	               [-max-client-connections N] [-max-requests N]
//
// -config names a JSON object merged over the configuration the host builds ({"data_dir",
// "external_url"}): its top-level keys replace those (so it may name data_dir itself, and
// then -data-dir may be left out) and the rest (rate_limits, limits, features) go to fc_open
// as they are; the core checks them.
//
// It listens first (so that port 0 works and the URL is known), opens the core with that URL
// as its external URL, runs the core's start admin command (which creates the administrator on
// the first start, with -print-admin-token issues a fresh token every start, registers every
// git repository under -repos as a public project, and answers the lines to print, the last
// "listening on URL", which tells a supervisor the host is ready), serves, prints those lines,
// and on SIGINT or SIGTERM stops accepting, lets requests in flight finish and closes the core.
//
// Clients that hold a connection without finishing their request, or without reading the
// answer, must not hold the host: the request's head must arrive within -read-timeout (default
// 30s), and then each 64 KiB of its body within -read-timeout of the one before (a minimum
// transfer rate: see forgecore.Handler.ReadTimeout); each 64 KiB of the answer must be taken
// within -write-timeout (default 30s, a minimum transfer rate: see
// forgecore.Handler.WriteTimeout); at most -max-connections (default 4096) are open at once,
// and -max-client-connections (default 64) from one client address, one more being answered
// 503 and closed at once (see cappedListener); and at most -max-requests (default 256) requests are handled at once, one
// more being answered 503 (see forgecore.Handler.MaxRequests). Goroutines are cheap, threads are not: an
// idle keep-alive connection or a request still arriving holds a goroutine and a descriptor,
// while the threads (each request calls into the core through cgo) follow -max-requests.
package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/signal"
	"strconv"
	"syscall"
	"time"

	"forgecore.dev/forgecore"
)

const (
	// shutdownTimeout bounds how long requests in flight may take once a signal arrived.
	shutdownTimeout = 15 * time.Second
	// Defaults of -read-timeout, -write-timeout, -max-connections, -max-client-connections
	// and -max-requests.
	defaultReadTimeout          = 30 * time.Second
	defaultWriteTimeout         = forgecore.DefaultWriteTimeout
	defaultMaxConnections       = 4096
	defaultMaxClientConnections = 64
	defaultMaxRequests          = 256
)

func main() {
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

type options struct {
	listen          string
	dataDir         string
	repos           string
	externalURL     string
	printAdminToken bool
	config          map[string]json.RawMessage // the -config file's object, nil without one
	readTimeout     time.Duration
	writeTimeout    time.Duration
	maxConnections  int
	maxPerClient    int
	maxRequests     int
	requestLog      bool
}

func parse(args []string, stderr io.Writer) (options, error) {
	var o options
	flags := flag.NewFlagSet("forgecore-http", flag.ContinueOnError)
	flags.SetOutput(stderr)
	flags.StringVar(&o.listen, "listen", "127.0.0.1:8080", "`HOST:PORT` to listen on (port 0: any free port)")
	flags.StringVar(&o.dataDir, "data-dir", "", "the instance's data `directory` (created if missing)")
	flags.StringVar(&o.repos, "repos", "", "register every git repository under this `directory` as a public project")
	flags.StringVar(&o.externalURL, "external-url", "", "public base `URL` (default http://HOST:PORT)")
	configFile := flags.String("config", "", "a JSON `file` merged over the configuration given to the core (rate_limits, limits, features, ...)")
	flags.BoolVar(&o.printAdminToken, "print-admin-token", false, "issue and print a token for the administrator")
	flags.DurationVar(&o.readTimeout, "read-timeout", defaultReadTimeout,
		"the request's head must arrive within this `duration`, and then each 64 KiB of its body within "+
			"this long of the one before, or the connection is closed")
	flags.DurationVar(&o.writeTimeout, "write-timeout", defaultWriteTimeout,
		"each 64 KiB of an answer must be taken by the client within this `duration`, or the connection is closed")
	flags.IntVar(&o.maxConnections, "max-connections", defaultMaxConnections,
		"connections open at once; one more is answered 503 and closed")
	flags.IntVar(&o.maxPerClient, "max-client-connections", defaultMaxClientConnections,
		"connections open at once from one client address (behind a proxy, raise it to -max-connections); one more is answered 503 and closed")
	flags.IntVar(&o.maxRequests, "max-requests", defaultMaxRequests,
		"requests handled at once; one more is answered 503")
	flags.BoolVar(&o.requestLog, "request-log", true,
		"write the core's record of every request (and its warnings) to stderr, one JSON line each")
	if err := flags.Parse(args); err != nil {
		return o, err
	}
	if flags.NArg() > 0 {
		return o, fmt.Errorf("unexpected arguments: %q", flags.Args())
	}
	if o.readTimeout <= 0 {
		return o, fmt.Errorf("-read-timeout must be above 0, got %v", o.readTimeout)
	}
	if o.writeTimeout <= 0 {
		return o, fmt.Errorf("-write-timeout must be above 0, got %v", o.writeTimeout)
	}
	for _, limit := range []struct {
		name  string
		value int
	}{{"-max-connections", o.maxConnections}, {"-max-client-connections", o.maxPerClient}, {"-max-requests", o.maxRequests}} {
		if limit.value < 1 {
			return o, fmt.Errorf("%s must be above 0, got %d", limit.name, limit.value)
		}
	}
	if *configFile != "" {
		text, err := os.ReadFile(*configFile)
		if err != nil {
			return o, fmt.Errorf("-config: %v", err)
		}
		if err := json.Unmarshal(text, &o.config); err != nil || o.config == nil {
			return o, fmt.Errorf("-config: %s is not a JSON object", *configFile)
		}
	}
	if _, ok := o.config["data_dir"]; o.dataDir == "" && !ok {
		return o, errors.New("-data-dir is required (or data_dir in the -config file)")
	}
	return o, nil
}

// listenAddress checks HOST:PORT; an empty host is 127.0.0.1.
func listenAddress(text string) (host, port string, err error) {
	host, port, err = net.SplitHostPort(text)
	if err != nil {
		return "", "", fmt.Errorf("-listen must be HOST:PORT, got %q", text)
	}
	if _, err := strconv.ParseUint(port, 10, 16); err != nil {
		return "", "", fmt.Errorf("-listen must be HOST:PORT, got %q", text)
	}
	if host == "" {
		host = "127.0.0.1"
	}
	return host, port, nil
}

func run(args []string, stdout, stderr io.Writer) int {
	o, err := parse(args, stderr)
	if errors.Is(err, flag.ErrHelp) {
		return 0
	}
	if err != nil {
		fmt.Fprintf(stderr, "forgecore-http: %v\n", err)
		return 2
	}
	host, port, err := listenAddress(o.listen)
	if err != nil {
		fmt.Fprintf(stderr, "forgecore-http: %v\n", err)
		return 2
	}
	listener, err := net.Listen("tcp", net.JoinHostPort(host, port))
	if err != nil {
		fmt.Fprintf(stderr, "forgecore-http: cannot listen on %s: %v\n", o.listen, err)
		return 1
	}
	defer listener.Close()
	url := o.externalURL
	if url == "" {
		url = "http://" + net.JoinHostPort(host, strconv.Itoa(listener.Addr().(*net.TCPAddr).Port))
	}

	config := map[string]json.RawMessage{}
	for key, value := range map[string]string{"data_dir": o.dataDir, "external_url": url} {
		config[key], _ = json.Marshal(value)
	}
	for key, value := range o.config {
		config[key] = value
	}
	text, err := json.Marshal(config)
	if err != nil {
		fmt.Fprintf(stderr, "forgecore-http: %v\n", err)
		return 1
	}
	core, err := forgecore.OpenJSON(text)
	if err != nil {
		fmt.Fprintf(stderr, "forgecore-http: %v\n", err)
		return 1
	}
	defer core.Close()
	if o.requestLog {
		if err := forgecore.LogTo(stderr, forgecore.LogInfo); err != nil {
			fmt.Fprintf(stderr, "forgecore-http: %v\n", err)
			return 1
		}
		defer func() { _ = forgecore.LogTo(nil, 0) }()
	}

	start := map[string]any{"command": "start", "issue_token": o.printAdminToken, "url": url}
	if o.repos != "" {
		start["repos"] = o.repos
	}
	var started struct {
		Lines []string `json:"lines"`
	}
	if err := admin(core, start, &started); err != nil {
		fmt.Fprintf(stderr, "forgecore-http: %v\n", err)
		return 1
	}

	handler := forgecore.NewHandler(core)
	handler.WriteTimeout = o.writeTimeout
	handler.ReadTimeout = o.readTimeout
	handler.MaxRequests = o.maxRequests
	server := &http.Server{
		Handler:     rejectFolds(handler),
		ConnContext: withRecorder,
		// The head within -read-timeout of the request's start; the body under the handler's
		// deadline per 64 KiB (no ReadTimeout: it would bound the whole body, and cut off a
		// long push however fast it comes). No WriteTimeout either: archives stream for a
		// long time; the handler's own deadline is per piece instead.
		ReadHeaderTimeout: o.readTimeout,
		IdleTimeout:       2 * time.Minute,
		MaxHeaderBytes:    64 << 10,
	}
	signals, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	served := make(chan error, 1)
	go func() {
		served <- server.Serve(capConnections(listener.(*net.TCPListener), o.maxConnections, o.maxPerClient))
	}()
	for _, line := range started.Lines {
		fmt.Fprintln(stdout, line)
	}
	if f, ok := stdout.(*os.File); ok {
		_ = f.Sync()
	}

	select {
	case err := <-served:
		fmt.Fprintf(stderr, "forgecore-http: %v\n", err)
		return 1
	case <-signals.Done():
	}
	stop()
	deadline, cancel := context.WithTimeout(context.Background(), shutdownTimeout)
	defer cancel()
	if err := server.Shutdown(deadline); err != nil {
		fmt.Fprintf(stderr, "forgecore-http: shutting down: %v\n", err)
		_ = server.Close()
	}
	<-served
	return 0
}

// admin runs one admin command and decodes its answer; a non-2xx answer is an error.
func admin(core *forgecore.Core, command map[string]any, out any) error {
	response, err := core.Admin(command)
	if err != nil {
		return err
	}
	body, err := response.Bytes()
	if err != nil {
		return err
	}
	if response.Status < 200 || response.Status > 299 {
		return fmt.Errorf("%s: %d %s", command["command"], response.Status, body)
	}
	return json.Unmarshal(body, out)
}
